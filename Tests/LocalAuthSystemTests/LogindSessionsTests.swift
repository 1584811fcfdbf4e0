// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthCore
@testable import LocalAuthSystem
import Testing

@Suite("logind session standings", .timeLimit(.minutes(1)))
struct LogindSessionsTests {
    /// True where logind has written no session (a container, a build machine).
    static let noSessions = ((try? FileManager.default.contentsOfDirectory(atPath: "/run/systemd/sessions")) ?? []).isEmpty

    @Test(.enabled(if: noSessions)) func withoutLogindEveryClientIsUnknown() {
        let sessions = LogindSessions()
        #expect(sessions.standing(ofProcess: UInt32(getpid()), user: getuid()) == .unknown)
        #expect(sessions.standing(ofProcess: nil, user: 65534) == .unknown)
    }

    @Test func aSessionLogindCannotDescribeIsUnknown() {
        #expect(LogindSessions.standing(ofSession: "no-such-session-4711") == .unknown)
        #expect(LogindSessions.session(ofProcess: 0) == nil)
        #expect(LogindSessions.session(ofProcess: UInt32.max) == nil)
    }
}
