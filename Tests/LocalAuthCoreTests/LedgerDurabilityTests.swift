// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI
import LocalAuthCore
import LocalAuthTestSupport
import Testing

/// A ledger that cannot be saved is treated as locked: no attempt counts only in memory.
@Suite("Ledger durability: an unsaveable ledger refuses attempts", .timeLimit(.minutes(1)))
struct LedgerDurabilityTests {
    typealias H = EngineHarness
    let bio = LAPolicy.deviceOwnerAuthenticationWithBiometrics

    func submit(_ h: EngineHarness, _ passcode: String, on context: ContextID) async -> LocalAuthError? {
        do { try await h.engine.submitPasscode(Passcode(passcode), context: context, caller: H.alice.client); return nil } catch { return error }
    }

    /// One biometric evaluation with one touch (or none), cancelled if still running; how it ended.
    func attempt(_ h: EngineHarness, touching finger: String?) async -> LocalAuthError.Kind? {
        guard let context = try? await h.context() else { return nil }
        let evaluation = await h.begin(bio, on: context)
        if let finger, await (try? h.state(of: context)) == .biometry { try? await h.fingerprint.touch(finger) }
        try? await h.engine.cancel(context: context, caller: H.alice.client)
        return await evaluation.result.errorKind
    }

    @Test func aNoMatchThatCannotBeSavedEndsTheEvaluationAndLaterAttemptsAreRefused() async throws {
        let h = try EngineHarness()
        try await h.setUp(fingers: ["right-index-finger"])
        h.store.setFailWrites(true)
        let context = try await h.context()
        let evaluation = await h.begin(bio, on: context)
        try await h.fingerprint.touch("left-thumb")
        try await h.engine.cancel(context: context, caller: H.alice.client)  // does nothing when it already ended
        guard case .failure(let error) = await evaluation.result else { Issue.record("the evaluation succeeded"); return }
        #expect(error.kind == .serviceFailure, "an unsaved no-match is not a normal outcome: \(error)")
        #expect(error.message.contains("disk space"), "says what to do: \(error.message)")
        #expect(await h.engine.userState(of: H.alice.uid).biometryFailures == 1, "the count stays in memory")

        // Five more tries, as in the report: every one refused, nothing more counted only in memory.
        for _ in 0..<5 {
            #expect(await attempt(h, touching: nil) == .serviceFailure)
        }
        #expect(await h.engine.userState(of: H.alice.uid).biometryFailures == 1)
        #expect(h.audit.all.filter { $0.event == .stateError }.count == 1, "logged once: \(h.audit.all)")

        // Writable again: the next attempt saves the count first, then runs.
        h.store.setFailWrites(false)
        let again = await h.begin(bio, on: try await h.context())
        #expect(h.store.ledger(of: H.alice.uid)?.biometryFailures == 1, "the in-memory count was saved")
        try await h.fingerprint.touch("right-index-finger")
        #expect(try await again.result.get() == .biometricMatch(.fingerprint))
    }

    @Test func aRestartAfterUnsavedFailuresNeverForgetsAReportedOne() async throws {
        let store = MemoryStateStore()
        let before = try EngineHarness(store: store)
        try await before.setUp(fingers: ["right-index-finger"])
        store.setFailWrites(true)
        var reportedNoMatches = 0
        for _ in 0..<5 {
            if await attempt(before, touching: "left-thumb") != .serviceFailure { reportedNoMatches += 1 }
        }
        store.setFailWrites(false)
        let after = try EngineHarness(store: store)  // a restarted daemon
        let saved = await after.engine.userState(of: H.alice.uid).biometryFailures
        #expect(saved >= reportedNoMatches, "\(reportedNoMatches) no-matches reported but \(saved) survived the restart")
    }

    @Test func aPasscodeAttemptThatCannotBeCountedIsNotCompared() async throws {
        let h = try EngineHarness()
        try await h.setUp()
        let context = try await h.context()
        let evaluation = await h.begin(.deviceOwnerAuthentication, on: context)
        h.store.setFailWrites(true)
        let verifications = h.hasher.verificationCount
        let wrong = await submit(h, "wrong", on: context)
        #expect(wrong?.kind == .serviceFailure, "not a normal wrong-passcode answer: \(String(describing: wrong))")
        #expect(await submit(h, H.passcode, on: context)?.kind == .serviceFailure, "refused while the ledger cannot be saved")
        do { try await h.engine.setRequireAttention(false, passcode: Passcode(H.passcode), caller: H.alice); Issue.record("allowed") } catch {
            #expect(error.kind == .serviceFailure)
        }
        #expect(h.hasher.verificationCount == verifications, "nothing was compared without a saved count")
        #expect(await h.engine.userState(of: H.alice.uid).passcodeFailures >= 1, "the count never goes down")

        h.store.setFailWrites(false)
        #expect(await submit(h, H.passcode, on: context) == nil)
        #expect(try await evaluation.result.get() == .passcode)
        #expect(h.store.ledger(of: H.alice.uid)?.passcodeFailures == 0)
    }

    /// A match that clears no failures and is no unlock changes nothing to save; every failure is
    /// saved before it is reported, and so is the match that clears it and an unlock match.
    @Test func aMatchThatChangesNothingIsNotSavedButFailuresAndTheirClearingAre() async throws {
        let h = try EngineHarness()
        try await h.setUp(fingers: ["right-index-finger"])
        func evaluate(_ finger: String, by caller: Caller = H.alice, unlock: Bool = false) async throws -> Result<EvaluationSuccess, LocalAuthError> {
            let context = try await h.context(caller) { if unlock { $0.user = H.alice.uid; $0.isUnlockContext = true } }
            let evaluation = await h.begin(bio, on: context, by: caller)
            try await h.fingerprint.touch(finger)
            try? await h.engine.cancel(context: context, caller: caller.client)
            return await evaluation.result
        }

        #expect(try await evaluate("right-index-finger").get() == .biometricMatch(.fingerprint))
        var writes = h.store.ledgerWrites
        #expect(try await evaluate("right-index-finger").get() == .biometricMatch(.fingerprint))
        #expect(h.store.ledgerWrites == writes, "a match with nothing to clear wrote the ledger")

        h.store.setFailWrites(true)
        #expect(try await evaluate("left-thumb").errorKind == .serviceFailure, "a failure that cannot be saved is not reported as a no-match")
        h.store.setFailWrites(false)
        writes = h.store.ledgerWrites
        _ = try await evaluate("left-thumb")
        #expect(h.store.ledgerWrites > writes, "a failure was not saved")
        #expect(h.store.ledger(of: H.alice.uid)?.biometryFailures == 2, "both failures are on disk")

        writes = h.store.ledgerWrites
        #expect(try await evaluate("right-index-finger").get() == .biometricMatch(.fingerprint))
        #expect(h.store.ledgerWrites == writes + 1 && h.store.ledger(of: H.alice.uid)?.biometryFailures == 0, "the match that clears failures is saved")

        writes = h.store.ledgerWrites
        #expect(try await evaluate("right-index-finger", by: H.root, unlock: true).get() == .biometricMatch(.fingerprint))
        #expect(h.store.ledgerWrites == writes + 1 && h.store.ledger(of: H.alice.uid)?.lastUnlockMatch != nil, "an unlock match is saved")
    }
}

extension Result where Failure == LocalAuthError {
    var errorKind: LocalAuthError.Kind? {
        if case .failure(let error) = self { return error.kind }
        return nil
    }
}
