// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthDBus
import LocalAuthTestSupport
import Testing

/// Attacks on agents and face consent by an app of the same uid, through the real daemon.
@Suite("Agent and consent attacks", .timeLimit(.minutes(2)))
struct AgentConsentAttackTests {
    typealias D = DaemonUnderTest

    /// An app in no session can register a fallback agent and answer its own consent question:
    /// allow-face through a fallback agent needs the passcode; a later fallback agent cannot take
    /// the sheets of the first.
    @Test func aFallbackAgentCannotAllowFaceWithoutThePasscodeNorReplaceTheFirst() async throws {
        try await withDaemon(configuration: AgentTests.strict) { _, bus in
            let app = try await Client(bus)
            try await app.setUp(faces: ["primary"])
            let agent = try await TestAgent(bus)
            try await agent.register()
            let later = try await TestAgent(bus)
            let replaced = await errorName { try await later.register() }
            #expect(replaced == D.errorPrefix + "Busy", "a second fallback agent of the uid is refused")

            let context = try await app.createContext(FaceConsentTests.usage)
            let evaluation = AgentTests.evaluate(app, context, policy: 1)
            let begin = try await agent.next("begin")
            let cookie = try #require(begin.cookie)
            #expect(try AgentTests.request(begin)["FaceConsentQuestion"] != nil)
            let bare = await errorName { try await agent.respond(cookie, "allow-face") }
            #expect(bare == D.errorPrefix + "AuthenticationFailed")
            #expect(try await FaceConsentTests.consents(app).isEmpty, "nothing stored without the passcode")
            let fresh = try #require(try await agent.next("ready").cookie)
            let wrong = await errorName { try await agent.respond(fresh, "allow-face", passcode: "guess-guess") }
            #expect(wrong == D.errorPrefix + "AuthenticationFailed")
            #expect(try await FaceConsentTests.consents(app).isEmpty)
            let again = try #require(try await agent.next("ready").cookie)
            try await agent.respond(again, "allow-face", passcode: AgentTests.passcode)
            #expect(try await FaceConsentTests.consents(app).values.map { $0 } == [true])
            _ = try await agent.next("biometry")
            try await app.simulator("PresentFace", [.string("primary"), .bool(true)])
            #expect(await evaluation.value == nil)
        }
    }

    /// Revoking needs no passcode: repeating a stored decision writes nothing, and changes are
    /// bounded per user and minute.
    @Test func repeatedRevocationsWriteNothingAndChangesAreBounded() async throws {
        try await withDaemon(configuration: AgentTests.strict) { daemon, bus in
            let app = try await Client(bus)
            try await app.setUp()
            _ = try await app.manager("SetFaceConsent", [.string("/usr/bin/victim"), .bool(false), .string("")])
            let file = try #require(FileManager.default.enumerator(atPath: daemon.stateDirectory)?
                .compactMap { $0 as? String }.first { $0.hasSuffix("face-consent.json") })
            let path = daemon.stateDirectory + "/" + file
            let written = try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date
            let linesBefore = daemon.logText.components(separatedBy: "Face ID denied").count
            for _ in 0..<60 {
                _ = try await app.manager("SetFaceConsent", [.string("/usr/bin/victim"), .bool(false), .string("")])
            }
            #expect(try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date == written, "no rewrite")
            #expect(daemon.logText.components(separatedBy: "Face ID denied").count == linesBefore, "no audit line per no-op")
            var refused: Int?
            for index in 1...40 {
                let name = await errorName { _ = try await app.manager("SetFaceConsent", [.string("/usr/bin/app\(index)"), .bool(false), .string("")]) }
                if name != nil {
                    #expect(name == "org.freedesktop.DBus.Error.LimitsExceeded")
                    refused = index
                    break
                }
            }
            #expect(refused == 20, "20 changes a minute (the first was /usr/bin/victim)")
        }
    }

    /// App identities with controls cannot be named, and none reaches the log as a forged line.
    @Test func controlCharactersInAnAppIdentityAreRefusedAndNeverForgeALogLine() async throws {
        try await withDaemon(configuration: AgentTests.strict) { daemon, bus in
            let app = try await Client(bus)
            try await app.setUp()
            let forged = "/usr/bin/x\n<2>localauthd: forged\u{1B}[2K\u{202E}"
            let name = await errorName { _ = try await app.manager("SetFaceConsent", [.string(forged), .bool(false), .string("")]) }
            #expect(name == "org.freedesktop.DBus.Error.InvalidArgs")
            #expect(try await FaceConsentTests.consents(app).isEmpty)
            #expect(!daemon.logText.contains("\n<2>localauthd: forged"))
            #expect(!daemon.logText.contains("\u{1B}"))
        }
    }
}
