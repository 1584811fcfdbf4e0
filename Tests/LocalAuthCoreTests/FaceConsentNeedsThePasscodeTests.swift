// SPDX-License-Identifier: Apache-2.0
import LocalAuthCore
import LocalAuthTestSupport
import Testing

/// Who may consent to an app's use of Face ID, and how: only with the user's passcode, whichever
/// agent answers (issue 27, R1 and R2).
@Suite("Face consent needs the passcode", .timeLimit(.minutes(1)))
struct FaceConsentNeedsThePasscodeTests {
    typealias H = EngineHarness
    static let app = Caller(client: ClientID(":1.10"), uid: 1000, pid: 100)
    static let sessionAgent = Caller(client: ClientID(":1.32"), uid: 1000, pid: 302)

    /// The app's evaluation, shown by its session's agent with the face question open.
    func faceQuestion(appIdentity: String? = "/usr/bin/notes") async throws -> (EngineHarness, ContextID, RunningEvaluationHandle) {
        let h = try EngineHarness(appPasscodeEntry: false, faceConsent: true)
        try await h.setUp(Self.app, faces: ["primary"])
        for pid: UInt32 in [100, 302] { h.sessions.set(LoginSession(id: "1", owner: 1000), process: pid) }
        try await h.engine.registerAgent(Self.sessionAgent, locale: "C", scope: .session)
        let context = try await h.context(Self.app) {
            $0.faceUsageDescription = "to unlock"
            $0.appIdentity = appIdentity
        }
        let evaluation = await h.begin(.deviceOwnerAuthenticationWithBiometrics, on: context, by: Self.app)
        return (h, context, evaluation)
    }

    static func questionCookie(_ h: EngineHarness) throws -> String {
        try #require(h.agents.calls.compactMap { call -> String? in
            if case .begin(let request, _) = call, request.faceConsentQuestion != nil { request.cookie } else { nil }
        }.first)
    }

    /// An app that starts its own session agent (as `localauth agent`, answering y) gets nothing
    /// without the passcode; with the right one the decision is stored.
    @Test func allowingFaceThroughAnyAgentNeedsThePasscode() async throws {
        let (h, _, _) = try await faceQuestion()
        let cookie = try Self.questionCookie(h)
        await #expect(throws: LocalAuthError(.authenticationFailed, "Allowing Face ID needs the user's passcode with allow-face; deny-face needs none.")) {
            try await h.engine.agentResponse(cookie: cookie, .faceConsent(true, Passcode("")), caller: Self.sessionAgent)
        }
        #expect(await h.engine.faceConsentDecisions(of: 1000).isEmpty)
        let fresh = try #require(h.agents.cookie(of: Self.sessionAgent.client))
        await #expect(throws: LocalAuthError.self) {
            try await h.engine.agentResponse(cookie: fresh, .faceConsent(true, Passcode("wrong-guess")), caller: Self.sessionAgent)
        }
        #expect(await h.engine.faceConsentDecisions(of: 1000).isEmpty)
        #expect(await h.engine.userState(of: 1000).passcodeFailures == 1)
        let again = try #require(h.agents.cookie(of: Self.sessionAgent.client))
        try await h.engine.agentResponse(cookie: again, .faceConsent(true, Passcode(H.passcode)), caller: Self.sessionAgent)
        #expect(await h.engine.faceConsentDecisions(of: 1000) == ["/usr/bin/notes": true])
    }

    @Test func refusingFaceNeedsNoPasscode() async throws {
        let (h, _, evaluation) = try await faceQuestion()
        try await h.engine.agentResponse(cookie: try Self.questionCookie(h), .faceConsent(false, Passcode("")), caller: Self.sessionAgent)
        #expect(await h.engine.faceConsentDecisions(of: 1000) == ["/usr/bin/notes": false])
        #expect(await evaluation.errorCode == .biometryNotAvailable)
    }

    /// With the decision open and no agent to ask, face is not offered, and the refusal and the
    /// audit say why.
    @Test func undecidedFaceWithNoAgentToAskIsNotOfferedAndSaysWhy() async throws {
        let h = try EngineHarness(appPasscodeEntry: false, faceConsent: true)
        try await h.setUp(Self.app, faces: ["primary"])
        let context = try await h.context(Self.app) {
            $0.faceUsageDescription = "to unlock"
            $0.appIdentity = "/usr/bin/notes"
        }
        await #expect(throws: LocalAuthError(.biometryNotAvailable, "Face ID is not offered to this app: you have not decided whether it may use Face ID, "
                                                 + "and no agent runs to ask you (run `localauth agent`, or allow it with `localauth apps allow`).")) {
            try await h.engine.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, context: context, caller: Self.app.client)
        }
        // Policy 2 goes on with the passcode alone; the audit names why face was left out.
        _ = await h.begin(.deviceOwnerAuthentication, on: context, by: Self.app)
        #expect(h.audit.all.contains { $0.result == "face-not-offered" && $0.message.contains("no agent runs to ask you") })
    }

    /// An app whose identity could not be read (no appIdentity) is never asked about nor offered
    /// face: its decision would be every unidentified app's.
    @Test func anUnidentifiedAppIsNeverOfferedFace() async throws {
        let (h, context, evaluation) = try await faceQuestion(appIdentity: nil)
        #expect(!h.agents.calls.contains { if case .begin(let request, _) = $0 { request.faceConsentQuestion != nil } else { false } })
        #expect(await evaluation.errorCode == .biometryNotAvailable)
        await #expect(throws: LocalAuthError(.biometryNotAvailable, "Face ID is not offered to this app: the service could not tell which app it is (the service's log says why).")) {
            try await h.engine.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, context: context, caller: Self.app.client)
        }
    }
}
