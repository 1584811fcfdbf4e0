// SPDX-License-Identifier: Apache-2.0
import LocalAuthCore
import LocalAuthTestSupport
import Testing

/// Which agent shows an evaluation, with logind sessions injected through the session directory.
@Suite("Agent routing by session and uid", .timeLimit(.minutes(1)))
struct AgentRoutingTests {
    typealias H = EngineHarness
    static let app = Caller(client: ClientID(":1.10"), uid: 1000, pid: 100)
    static let agentOfAnotherSession = Caller(client: ClientID(":1.30"), uid: 1000, pid: 300)
    static let bobInMySession = Caller(client: ClientID(":1.31"), uid: 1001, pid: 301)
    static let myAgent = Caller(client: ClientID(":1.32"), uid: 1000, pid: 302)
    static let secondAgentOfMySession = Caller(client: ClientID(":1.33"), uid: 1000, pid: 303)
    static let sessionlessFallback = Caller(client: ClientID(":1.34"), uid: 1000, pid: 304)

    func harness() async throws -> EngineHarness {
        let h = try EngineHarness(appPasscodeEntry: false)
        try await h.setUp(Self.app)
        let mine = LoginSession(id: "1", owner: 1000)
        for pid: UInt32 in [100, 301, 302, 303] { h.sessions.set(mine, process: pid) }
        h.sessions.set(LoginSession(id: "2", owner: 1000), process: 300)
        return h
    }

    @Test func onlyTheAgentOfTheAppsOwnSessionReceivesItsPrompt() async throws {
        let h = try await harness()
        await #expect(throws: LocalAuthError(.accessDenied, "Only the owner of session 1 may register its agent.")) {
            try await h.engine.registerAgent(Self.bobInMySession, locale: "C", scope: .session)
        }
        try await h.engine.registerAgent(Self.agentOfAnotherSession, locale: "C", scope: .session)
        try await h.engine.registerAgent(Self.sessionlessFallback, locale: "C", scope: .fallback)
        // No agent in the app's session: the other session's and the fallback agent are not asked.
        let context = try await h.context(Self.app)
        #expect(await h.begin(.deviceOwnerAuthentication, on: context, by: Self.app).errorCode == .notInteractive)
        #expect(h.agents.calls.isEmpty)

        try await h.engine.registerAgent(Self.myAgent, locale: "C", scope: .session)
        await #expect(throws: LocalAuthError.self) {
            try await h.engine.registerAgent(Self.secondAgentOfMySession, locale: "C", scope: .session)
        }
        let evaluation = await h.begin(.deviceOwnerAuthentication, on: context, by: Self.app)
        #expect(Set(h.agents.calls.map(\.agent)) == [Self.myAgent.client])
        let cookie = try #require(h.agents.cookie(of: Self.myAgent.client))
        for stranger in [Self.agentOfAnotherSession, Self.sessionlessFallback, Self.bobInMySession, Self.app] {
            await #expect(throws: LocalAuthError.self) {
                try await h.engine.agentResponse(cookie: cookie, .passcode(Passcode(H.passcode)), caller: stranger)
            }
        }
        try await h.engine.agentResponse(cookie: cookie, .passcode(Passcode(H.passcode)), caller: Self.myAgent)
        #expect(try await evaluation.result.get() == .passcode)
        #expect(await h.engine.userState(of: 1000).passcodeFailures == 0)
    }

    /// An app that is its own agent is never asked whether it may use face: it would answer for itself.
    @Test func anOwnContextsAgentIsNotAskedFaceConsent() async throws {
        let h = try EngineHarness(appPasscodeEntry: false, faceConsent: true)
        try await h.setUp(Self.app, faces: ["primary"])
        try await h.engine.registerAgent(Self.app, locale: "C", scope: .ownContexts)
        let context = try await h.context(Self.app) {
            $0.faceUsageDescription = "to unlock"
            $0.appIdentity = "/usr/bin/notes"
        }
        #expect(await h.begin(.deviceOwnerAuthenticationWithBiometrics, on: context, by: Self.app).errorCode == .biometryNotAvailable)
        #expect(!h.agents.calls.contains { if case .begin(let request, _) = $0 { request.faceConsentQuestion != nil } else { false } })
    }
}

extension AgentRoutingTests {
    /// An agent that goes away while asking about face does not leave face allowed.
    @Test func anUnansweredFaceQuestionIsANoWhenTheAgentGoes() async throws {
        let h = try EngineHarness(appPasscodeEntry: false, faceConsent: true)
        try await h.setUp(Self.app, faces: ["primary"])
        for pid: UInt32 in [100, 302] { h.sessions.set(LoginSession(id: "1", owner: 1000), process: pid) }
        try await h.engine.registerAgent(Self.myAgent, locale: "C", scope: .session)
        let context = try await h.context(Self.app) {
            $0.faceUsageDescription = "to unlock"
            $0.appIdentity = "/usr/bin/notes"
        }
        let evaluation = await h.begin(.deviceOwnerAuthenticationWithBiometrics, on: context, by: Self.app)
        #expect(h.agents.calls.contains { if case .begin(let request, _) = $0 { request.faceConsentQuestion != nil } else { false } })
        #expect(try await h.state(of: context, Self.app) == .waiting)
        await h.engine.clientDisconnected(Self.myAgent.client)
        #expect(await evaluation.errorCode == .biometryNotAvailable)
        #expect(await h.engine.faceConsentDecisions(of: 1000).isEmpty)
    }
}

extension AgentRoutingTests {
    /// A sandboxed app is no agent (allowing face needs the passcode from every agent:
    /// FaceConsentNeedsThePasscodeTests).
    @Test func sandboxedAppsAreNoAgents() async throws {
        let h = try EngineHarness(appPasscodeEntry: false, faceConsent: true)
        for pid: UInt32 in [100, 302] { h.sessions.set(LoginSession(id: "1", owner: 1000), process: pid) }
        for sandboxed in ["flatpak:org.example.Notes", "snap:notes"] {
            await #expect(throws: LocalAuthError.self) {
                try await h.engine.registerAgent(Self.myAgent, locale: "C", scope: .session, app: AppIdentity(id: sandboxed))
            }
        }
        try await h.engine.registerAgent(Self.myAgent, locale: "C", scope: .session, app: AppIdentity(executable: "/usr/libexec/desktop-agent"))
    }
}
