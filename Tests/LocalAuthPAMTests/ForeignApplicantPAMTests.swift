// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthDBus
import LocalAuthTestSupport
import Testing

/// `su root` run by another user, through `pam_localauth.so` and the real daemon: the module
/// names the applicant (its real uid, or `PAM_RUSER` in a root process) and the daemon counts that
/// user's failures apart, so they lock only that user out of root's biometry.
@Suite("pam_localauth.so: another user's failures", .timeLimit(.minutes(5)))
struct ForeignApplicantPAMTests {
    static let finger = "right-index-finger"
    static let nobody: UInt32 = 65534

    @Test func anotherUserCannotLockMyBiometryThroughSuButLocksItself() async throws {
        try await withDaemon(configuration: "simulator_event_ttl = 600\n") { _, bus in
            let client = try await Client(bus)
            try await client.setUp(passcode: "4711-secret", fingers: [Self.finger])
            let pam = try PAMHarness(bus: bus)
            // Four no-matches as su run by nobody; the fifth, as a root process naming nobody in
            // PAM_RUSER, counts for the same applicant and locks it.
            for attempt in 1...5 {
                try await client.simulator("Touch", [.string("left-thumb")])
                let result = try await pam.runAsApplicant("solo", ruid: attempt < 5 ? Self.nobody : 0, ruser: attempt < 5 ? nil : "nobody")
                let expected = attempt < 5 ? PAMOutcome.maxTries : "Biometry is locked after too many failed attempts"
                #expect(result.status != 0 && result.output.contains(expected), "attempt \(attempt): \(result.output)")
                #expect(!result.output.contains("fingerprint") && !result.output.contains("Fingerprint"),
                        "the prompts do not tell another user which sensors root enrolled: \(result.output)")
                #expect(!result.output.contains("to stop."), "a conversation's prompt names a key, not a button: \(result.output)")
            }
            let mine = try await client.userState()
            #expect(mine["BiometryFailures"] == .uint32(0) && mine["BiometryLockedOut"] == .bool(false), "root's own ledger untouched")

            // Nobody locked itself out: not even root's finger is read for it.
            try await client.simulator("Touch", [.string(Self.finger)])
            let locked = try await pam.runAsApplicant("solo", ruid: Self.nobody)
            #expect(locked.output.contains("Biometry is locked after too many failed attempts") && locked.output.contains(PAMOutcome.authinfoUnavailable),
                    "\(locked.output)")

            // Root's own login (a root process, no PAM_RUSER) reads that touch and succeeds.
            let own = try await pam.run("solo")
            #expect(own.status == 0 && own.output.contains(PAMOutcome.success), "\(own.output)")
        }
    }
}
