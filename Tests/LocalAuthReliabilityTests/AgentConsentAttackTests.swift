// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthAPI
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
            #expect(replaced == LocalAuthBusNames.errorPrefix + "Busy", "a second fallback agent of the uid is refused")

            let context = try await app.createContext(FaceConsentTests.usage)
            let evaluation = AgentTests.evaluate(app, context, policy: 1)
            let begin = try await agent.next("begin")
            let cookie = try #require(begin.cookie)
            #expect(try AgentTests.request(begin)["FaceConsentQuestion"] != nil)
            let bare = await errorName { try await agent.respond(cookie, "allow-face") }
            #expect(bare == LocalAuthBusNames.errorPrefix + "AuthenticationFailed")
            #expect(try await FaceConsentTests.consents(app).isEmpty, "nothing stored without the passcode")
            let fresh = try #require(try await agent.next("ready").cookie)
            let wrong = await errorName { try await agent.respond(fresh, "allow-face", passcode: "guess-guess") }
            #expect(wrong == LocalAuthBusNames.errorPrefix + "AuthenticationFailed")
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

    /// An executable path with quotes, a newline and U+202E cannot rewrite the consent question:
    /// the identity's controls are escaped, and the question escapes its quotes too.
    @Test func theConsentQuestionEscapesTheAppIdentity() async throws {
        try await withDaemon(configuration: AgentTests.strict) { _, bus in
            let app = try await Client(bus)
            try await app.setUp(faces: ["primary"])
            let agent = try await TestAgent(bus)
            try await agent.register()
            let localauth = URL(fileURLWithPath: D.binary).deletingLastPathComponent().appendingPathComponent("localauth").path
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("la-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let tricky = directory.appendingPathComponent("notes\u{201D} to use Face ID? Yes\n\u{202E}exe.sh")
            try FileManager.default.copyItem(atPath: localauth, toPath: tricky.path)
            let process = Process()
            process.executableURL = tricky
            process.arguments = ["--address", bus.address, "evaluate", "--reason", "open the notes", "--policy", "biometrics"]
            let input = Pipe()
            process.standardInput = input
            process.standardOutput = FileHandle.nullDevice
            let errors = Pipe()
            process.standardError = errors
            try process.run()
            defer { if process.isRunning { process.terminate() } }

            let begin: TestAgent.Event
            do { begin = try await agent.next("begin", within: .seconds(10)) } catch {
                process.terminate()
                let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                Issue.record("no sheet; localauth evaluate said: \(said)")
                return
            }
            let request = try AgentTests.request(begin)
            let identity = directory.path + "/notes\u{201D} to use Face ID? Yes\\u{a}\\u{202e}exe.sh"
            #expect(request["App"] == .string(identity), "the structured identity has its controls escaped")
            let quoted = directory.path + "/notes\\u{201d} to use Face ID? Yes\\u{a}\\u{202e}exe.sh"
            #expect(request["FaceConsentQuestion"] == .string("Allow “\(quoted)” to use Face ID?"))
            try await agent.respond(try #require(begin.cookie), "cancel")
            _ = try await agent.next("end")
        }
    }

    /// A refusal quotes at most 64 characters of what it refuses, escaped.
    @Test func refusalsEchoAtMostSixtyFourCharactersOfTheInput() async throws {
        try await withDaemon(configuration: AgentTests.strict) { _, bus in
            let app = try await Client(bus)
            try await app.setUp()
            let long = String(repeating: "A", count: 5000) + "\n<2>forged"
            for (modality, member) in [("face", "Enroll"), ("fingerprint", "Enroll"), ("face", "Unenroll")] {
                do {
                    _ = try await app.manager(member, [.string(modality), .string(long), .string(AgentTests.passcode)])
                    Issue.record("\(member) \(modality) took a 5000-character label")
                } catch let error as DBusError {
                    #expect(error.message.count < 300 && error.message.contains("AAAA…") && !error.message.contains("\n"),
                            "\(member) \(modality): \(error.message.prefix(300))")
                }
            }
        }
    }
}
