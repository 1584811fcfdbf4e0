// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthCore
import LocalAuthBackends
import LocalAuthSystem
import Testing

@Suite("Journal fields", .timeLimit(.minutes(1)))
struct SystemLogTests {
    @Test func auditEntriesBecomeStructuredJournalFields() {
        let entry = AuditEntry(.evaluation, severity: .notice, user: 1000, client: ":1.7", clientPID: 4242,
                               policy: .deviceOwnerAuthentication, result: "BiometryLockout", message: "Policy 2 not satisfied.")
        let fields = SystemLog.journalFields(of: entry)
        #expect(fields["MESSAGE_ID"] == "4e1a2c7b9d0f4f3e8a61b2c3d4e5f601")
        #expect(fields["PRIORITY"] == "5" && fields["SYSLOG_IDENTIFIER"] == "localauthd")
        #expect(fields["LOCALAUTH_USER_ID"] == "1000" && fields["LOCALAUTH_CLIENT"] == ":1.7" && fields["LOCALAUTH_CLIENT_PID"] == "4242")
        #expect(fields["LOCALAUTH_POLICY"] == "2" && fields["LOCALAUTH_RESULT"] == "BiometryLockout" && fields["LOCALAUTH_EVENT"] == "evaluation")
        #expect(fields["MESSAGE"] == "evaluation uid=1000 client=:1.7 pid=4242 policy=2 result=BiometryLockout: Policy 2 not satisfied.")
    }

    @Test func everyEventHasItsOwnFixedMessageID() {
        let ids = AuditEntry.Event.allCases.map(SystemLog.messageID)
        #expect(Set(ids).count == AuditEntry.Event.allCases.count)
        #expect(ids.allSatisfy { $0.count == 32 && $0.allSatisfy(\.isHexDigit) })
    }

    @Test func withoutJournalStreamLogsGoToStandardError() {
        #expect(SystemLog.detectDestination() == .standardError || ProcessInfo.processInfo.environment["JOURNAL_STREAM"] != nil)
    }
}

/// The `<N>` priority prefix is for programs reading stderr, not for a person at a terminal.
@Suite("Priority prefixes", .timeLimit(.minutes(1)))
struct PriorityPrefixTests {
    @Test func prefixedOnAPipeButNotOnATerminal() throws {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        defer { fds.forEach { close($0) } }
        #expect(SystemLog.wantsPriorityPrefix(on: fds[1]))
        var primary: Int32 = 0, secondary: Int32 = 0
        try #require(openpty(&primary, &secondary, nil, nil, nil) == 0)
        defer { close(primary); close(secondary) }
        #expect(!SystemLog.wantsPriorityPrefix(on: secondary))
        #expect(!SystemLog(destination: .standardError, prefixesPriority: false).prefixesPriority)
    }
}
