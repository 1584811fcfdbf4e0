// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthAPI
import LocalAuthDBus
import LocalAuthTestSupport
import Testing

/// Face ID per app: asked once through the agent, kept per user and app across restarts,
/// revocable; a refused app's face-only evaluations fail with BiometryNotAvailable while
/// fingerprint and passcode are unaffected.
@Suite("Face consent", .timeLimit(.minutes(2)))
struct FaceConsentTests {
    typealias D = DaemonUnderTest
    static let usage: [String: DBusValue] = ["FaceUsageDescription": .string("Unlock your notes with a glance.")]
    static let notAvailable = LocalAuthBusNames.errorPrefix + "BiometryNotAvailable"

    static func consents(_ client: Client) async throws -> [String: Bool] {
        let elements = try #require(try await client.manager("GetFaceConsents").first?.arrayElements)
        var result: [String: Bool] = [:]
        for element in elements {
            let fields = try #require(element.structure)
            // Unwrapped before the assignment: as the value of a `[String: Bool]` subscript, `#require`
            // would take `Bool?` as its result type and never fail.
            let allowed = try #require(fields[1].bool as Bool?)
            result[try #require(fields[0].string)] = allowed
        }
        return result
    }

    @Test func consentIsAskedOnceRevokedAndPersistsAcrossARestart() async throws {
        try await withPrivateBus { bus in
            let daemon = try DaemonUnderTest(bus: bus, configuration: AgentTests.strict)
            let watcher = try await bus.connect()
            defer { watcher.close(); daemon.kill() }
            try await daemon.start(watcher: watcher)
            let app = try await Client(bus)
            try await app.setUp(faces: ["primary"])
            let agent = try await TestAgent(bus)
            try await agent.register()

            // Without a usage description face is not offered at all.
            let undescribed = try await app.createContext()
            #expect(await errorName { _ = try await app.context(undescribed, "CanEvaluatePolicy", [.uint32(1)]) } == Self.notAvailable)

            // First use: the agent asks, with the app's identity and its description; the user allows.
            let first = try await app.createContext(Self.usage)
            let evaluation = AgentTests.evaluate(app, first, policy: 1)
            let begin = try await agent.next("begin")
            let request = try AgentTests.request(begin)
            let identity = try #require(request["App"]?.string)
            #expect(request["FaceUsageDescription"] == .string("Unlock your notes with a glance."))
            #expect(request["FaceConsentQuestion"] == .string("Allow “\(identity)” to use Face ID?"))
            #expect(try await app.property(first, "State") == .string("waiting"), "the face sensor waits for the answer")
            // A fallback agent's allow-face carries the passcode (anyone of the uid can be one).
            try await agent.respond(try #require(begin.cookie), "allow-face", passcode: AgentTests.passcode)
            _ = try await agent.next("biometry")
            try await app.simulator("PresentFace", [.string("primary"), .bool(true)])
            #expect(await evaluation.value == nil)
            #expect(try await Self.consents(app) == [identity: true])

            // Asked once: the next evaluation does not ask again.
            let second = try await app.createContext(Self.usage)
            let again = AgentTests.evaluate(app, second, policy: 1)
            #expect(try AgentTests.request(try await agent.next("begin"))["FaceConsentQuestion"] == nil)
            _ = try await agent.next("biometry")
            try await app.simulator("PresentFace", [.string("primary"), .bool(true)])
            #expect(await again.value == nil)

            // Revoked (no passcode needed to take a permission away).
            _ = try await app.manager("SetFaceConsent", [.string(identity), .bool(false), .string("")])
            let revoked = try await app.createContext(Self.usage)
            #expect(await errorName { _ = try await app.context(revoked, "CanEvaluatePolicy", [.uint32(1)]) } == Self.notAvailable)
            #expect(await AgentTests.evaluate(app, revoked, policy: 1).value == Self.notAvailable)

            // Restart over the same state: still refused.
            daemon.kill()
            let restarted = try DaemonUnderTest(bus: bus, stateDirectory: daemon.stateDirectory, configuration: AgentTests.strict)
            defer { restarted.kill() }
            try await restarted.start(watcher: watcher)
            let later = try await Client(bus)
            #expect(try await Self.consents(later) == [identity: false])
            let afterRestart = try await later.createContext(Self.usage)
            #expect(await errorName { _ = try await later.context(afterRestart, "CanEvaluatePolicy", [.uint32(1)]) } == Self.notAvailable)
            // The passcode is unaffected (policy 2 through the agent, without face).
            let agentAgain = try await TestAgent(bus)
            try await agentAgain.register()
            let owner = AgentTests.evaluate(later, afterRestart, policy: 2)
            let ownerBegin = try await agentAgain.next("begin")
            #expect(try AgentTests.request(ownerBegin)["Biometry"] == .strings([]))
            try await agentAgain.respond(try #require(try await agentAgain.next("passcode").cookie), "passcode", passcode: AgentTests.passcode)
            #expect(await owner.value == nil)

            // Allowing needs the passcode, so an app cannot allow itself.
            let guessed = await errorName { _ = try await later.manager("SetFaceConsent", [.string(identity), .bool(true), .string("guess-guess")]) }
            #expect(guessed == LocalAuthBusNames.errorPrefix + "AuthenticationFailed")
            #expect(try await later.userState()["PasscodeFailures"] == .uint32(1))
            _ = try await later.manager("SetFaceConsent", [.string(identity), .bool(true), .string(AgentTests.passcode)])
            _ = try await later.context(try await later.createContext(Self.usage), "CanEvaluatePolicy", [.uint32(1)])
        }
    }

    @Test func deniedThroughTheAgentFingerprintStillWorks() async throws {
        try await withDaemon(configuration: AgentTests.strict) { _, bus in
            let app = try await Client(bus)
            try await app.setUp(fingers: ["right-index-finger"], faces: ["primary"])
            let agent = try await TestAgent(bus)
            try await agent.register()
            let context = try await app.createContext(Self.usage)
            let evaluation = AgentTests.evaluate(app, context, policy: 1)
            let begin = try await agent.next("begin")
            #expect(try AgentTests.request(begin)["FaceConsentQuestion"] != nil)
            try await agent.respond(try #require(begin.cookie), "deny-face")
            // Fingerprint (no consent on Apple platforms) goes on.
            try await app.simulator("Touch", [.string("right-index-finger")])
            #expect(await evaluation.value == nil)
            #expect(try await Self.consents(app).values.map { $0 } == [false])
            // Later evaluations of the app: face is left out, fingerprint offered, nothing asked.
            let next = try await app.createContext(Self.usage)
            _ = try await app.context(next, "CanEvaluatePolicy", [.uint32(1)])
            let again = AgentTests.evaluate(app, next, policy: 1)
            let request = try AgentTests.request(try await agent.next("begin"))
            #expect(request["FaceConsentQuestion"] == nil && request["Biometry"] == .strings(["fingerprint"]))
            try await app.simulator("Touch", [.string("right-index-finger")])
            #expect(await again.value == nil)
        }
    }

    /// With no agent to ask, an undecided app gets no face; `apps` lists and changes decisions.
    @Test func withoutAnAgentUndecidedFaceIsNotOfferedAndTheCommandLineManagesDecisions() async throws {
        try await withDaemon(configuration: AgentTests.strict) { _, bus in
            let app = try await Client(bus)
            try await app.setUp(faces: ["primary"])
            let context = try await app.createContext(Self.usage)
            #expect(await AgentTests.evaluate(app, context, policy: 1).value == Self.notAvailable)
            #expect(try await Self.consents(app).isEmpty, "nothing is stored without the user's answer")

            let localauth = URL(fileURLWithPath: D.binary).deletingLastPathComponent().appendingPathComponent("localauth").path
            let listed = try await runTool(localauth, ["--address", bus.address, "apps"])
            #expect(listed.output.contains("No application has asked for Face ID yet."), "\(listed.output)")
            let allowed = try await runTool("/bin/sh", ["-c", "echo \(AgentTests.passcode) | \(localauth) --address '\(bus.address)' apps allow /opt/notes --stdin"])
            #expect(allowed.status == 0, "\(allowed.output)")
            let revoked = try await runTool(localauth, ["--address", bus.address, "apps", "revoke", "/usr/bin/other"])
            #expect(revoked.status == 0, "\(revoked.output)")
            let now = try await runTool(localauth, ["--address", bus.address, "apps"])
            #expect(now.output == "allowed  /opt/notes\ndenied   /usr/bin/other\n", "\(now.output)")
        }
    }
}

extension FaceConsentTests {
    /// The app identity is the daemon's finding, never the app's word.
    @Test func anAppCannotNameItsOwnIdentity() async throws {
        try await withDaemon(configuration: AgentTests.strict) { _, bus in
            let app = try await Client(bus)
            let named = await errorName { _ = try await app.createContext(["AppIdentity": .string("/usr/bin/allowed-app")]) }
            #expect(named == "org.freedesktop.DBus.Error.InvalidArgs")
        }
    }
}
