// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI
import LocalAuthCore
import LocalAuthTestSupport
import Testing

@Suite("Ledger persistence and failing closed", .timeLimit(.minutes(1)))
struct PersistenceTests {
    typealias H = EngineHarness
    let bio = LAPolicy.deviceOwnerAuthenticationWithBiometrics

    @Test func lockoutSurvivesAReloadedStore() async throws {
        let store = MemoryStateStore()
        let clock = FakeClock()
        let before = try EngineHarness(store: store, clock: clock)
        try await before.setUp(fingers: ["right-index-finger"])
        for _ in 0..<2 {
            let evaluation = await before.begin(bio, on: try await before.context())
            for _ in 0..<3 {
                if await before.engine.userState(of: H.alice.uid).biometryLockedOut { break }
                try await before.fingerprint.touch("left-thumb")
            }
            _ = await evaluation.result
        }
        let context = try await before.context()
        let passcodeEvaluation = await before.begin(.deviceOwnerAuthentication, on: context)
        for _ in 1...5 { _ = try? await before.engine.submitPasscode(Passcode("wrong"), context: context, caller: H.alice.client) }
        try await before.engine.cancel(context: context, caller: H.alice.client)
        _ = await passcodeEvaluation.result

        let after = try EngineHarness(store: store, clock: clock)  // a restarted daemon
        let state = await after.engine.userState(of: H.alice.uid)
        #expect(state.biometryLockedOut && state.biometryFailures == 5)
        #expect(state.passcodeFailures == 5 && state.passcodeRetryAfter == clock.now() + 60)
        await #expect(throws: LocalAuthError(.biometryLockout)) {
            try await after.engine.canEvaluatePolicy(bio, context: try await after.context(), caller: H.alice.client)
        }
    }

    @Test func corruptLedgerMeansLockedLoggedAndRecoverableByTheAdministrator() async throws {
        let store = MemoryStateStore()
        let setup = try EngineHarness(store: store)
        try await setup.setUp(fingers: ["right-index-finger"])
        store.markLedgerCorrupt(H.alice.uid)

        let h = try EngineHarness(store: store)
        let context = try await h.context()
        await #expect(throws: LocalAuthError(.biometryLockout)) {
            try await h.engine.canEvaluatePolicy(bio, context: context, caller: H.alice.client)
        }
        do { try await h.engine.canEvaluatePolicy(.deviceOwnerAuthentication, context: context, caller: H.alice.client); Issue.record("allowed") } catch {
            #expect(error.code == .passcodeLockout)
        }
        #expect(h.audit.all.contains { $0.event == .stateError && $0.severity == .error && $0.user == H.alice.uid })

        try await h.engine.resetLockout(user: H.alice.uid, caller: H.root)
        try await h.engine.canEvaluatePolicy(bio, context: context, caller: H.alice.client)
        #expect(store.ledger(of: H.alice.uid) == UserLedger())
    }

    @Test func corruptProfileFailsClosedAndTheResetQuarantinesIt() async throws {
        let store = MemoryStateStore()
        store.markProfileCorrupt(H.alice.uid)
        let h = try EngineHarness(store: store)
        let context = try await h.context()
        await #expect(throws: LocalAuthError.self) {
            try await h.engine.canEvaluatePolicy(.deviceOwnerAuthentication, context: context, caller: H.alice.client)
        }
        do { try await h.engine.setPasscode(current: Passcode(""), new: Passcode("1234"), caller: H.alice); Issue.record("allowed") } catch {
            #expect(error.kind == .serviceFailure)
        }
        try await h.engine.resetLockout(user: H.alice.uid, caller: H.root)
        #expect(store.wasQuarantined(H.alice.uid))
        await #expect(throws: LocalAuthError(.passcodeNotSet)) {
            try await h.engine.canEvaluatePolicy(.deviceOwnerAuthentication, context: context, caller: H.alice.client)
        }
    }

    @Test func aFailedSaveKeepsTheCountInMemoryAndSaysSo() async throws {
        let h = try EngineHarness()
        try await h.setUp(fingers: ["right-index-finger"])
        h.store.setFailWrites(true)
        let evaluation = await h.begin(bio, on: try await h.context())
        try await h.fingerprint.touch("left-thumb")
        #expect(await h.engine.userState(of: H.alice.uid).biometryFailures == 1)
        #expect(h.audit.all.contains { $0.event == .stateError })
        do { try await h.engine.enroll(.fingerprint, label: "left-thumb", passcode: Passcode(H.passcode), caller: H.alice); Issue.record("allowed") } catch {
            #expect(error.kind == .serviceFailure)
        }
        #expect(await h.engine.userState(of: H.alice.uid).enrollments.count == 1, "nothing changed")
        h.store.setFailWrites(false)
        for _ in 0..<2 { try await h.fingerprint.touch("left-thumb") }
        _ = await evaluation.result
    }

    @Test func everyEvaluationOutcomeIsAudited() async throws {
        let h = try EngineHarness()
        try await h.setUp(fingers: ["right-index-finger"])
        let context = try await h.context()
        let evaluation = await h.begin(bio, on: context)
        try await h.fingerprint.touch("right-index-finger")
        _ = await evaluation.result
        let asking = try await h.context()  // the context that succeeded would succeed again
        let cancelled = await h.begin(bio, on: asking)
        try await h.engine.cancel(context: asking, caller: H.alice.client)
        _ = await cancelled.result
        let outcomes = h.audit.all.filter { $0.event == .evaluation }
        #expect(outcomes.map(\.result) == ["success", "UserCancel"])
        #expect(outcomes.allSatisfy { $0.client == H.alice.client.rawValue && $0.policy == bio })
        #expect(!h.audit.all.contains { $0.description.contains(H.passcode) })
    }
}
