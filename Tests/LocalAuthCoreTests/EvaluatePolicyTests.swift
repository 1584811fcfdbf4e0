// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI
import LocalAuthCore
import LocalAuthTestSupport
import Testing

@Suite("evaluatePolicy: biometric phase, lockout, passcode, endings", .timeLimit(.minutes(1)))
struct EvaluatePolicyTests {
    typealias H = EngineHarness
    let bio = LAPolicy.deviceOwnerAuthenticationWithBiometrics
    let owner = LAPolicy.deviceOwnerAuthentication

    func ready(fingers: [String] = ["right-index-finger"], faces: [String] = [], configuration: Configuration = Configuration()) async throws -> EngineHarness {
        let h = try EngineHarness(configuration: configuration)
        try await h.setUp(fingers: fingers, faces: faces)
        return h
    }

    @Test func enrolledFingerMatches() async throws {
        let h = try await ready()
        let context = try await h.context()
        let evaluation = await h.begin(bio, on: context)
        #expect(try await h.state(of: context) == .biometry)
        try await h.fingerprint.touch("right-index-finger")
        #expect(try await evaluation.result.get() == .biometricMatch(.fingerprint))
        #expect(try await h.state(of: context) == .idle)
        #expect(h.observer.promptKinds(for: context) == [.biometry])
    }

    @Test func noMatchIsCountedAndSavedBeforeItIsReported() async throws {
        let h = try await ready()
        let context = try await h.context()
        let evaluation = await h.begin(bio, on: context)
        try await h.fingerprint.touch("left-thumb")
        #expect(h.store.ledger(of: H.alice.uid)?.biometryFailures == 1)
        #expect(h.observer.promptKinds(for: context).last == .noMatch)
        #expect(try await h.state(of: context) == .biometry)
        try await h.fingerprint.touch("right-index-finger")
        #expect(try await evaluation.result.get() == .biometricMatch(.fingerprint))
        #expect(h.store.ledger(of: H.alice.uid)?.biometryFailures == 0, "a match resets the consecutive count")
    }

    @Test func perEvaluationLimitThenAuthenticationFailed() async throws {
        let h = try await ready()
        let evaluation = await h.begin(bio, on: try await h.context())
        for _ in 1...3 { try await h.fingerprint.touch("left-thumb") }
        #expect(await evaluation.errorCode == .authenticationFailed)
        let ledger = try #require(h.store.ledger(of: H.alice.uid))
        #expect(ledger.biometryFailures == 3 && !ledger.biometryLockedOut)
    }

    @Test func globalLockoutAtExactlyFiveAcrossTwoContexts() async throws {
        let h = try await ready()
        let first = await h.begin(bio, on: try await h.context(H.alice))
        for _ in 1...3 { try await h.fingerprint.touch("left-thumb") }
        #expect(await first.errorCode == .authenticationFailed)

        let otherApp = try await h.context(H.aliceSecondApp)
        let second = await h.begin(bio, on: otherApp, by: H.aliceSecondApp)
        try await h.fingerprint.touch("left-thumb")
        #expect(await h.engine.userState(of: H.alice.uid).biometryFailures == 4)
        #expect(await !h.engine.userState(of: H.alice.uid).biometryLockedOut)
        try await h.fingerprint.touch("left-thumb")
        #expect(await second.errorCode == .biometryLockout)
        #expect(h.store.ledger(of: H.alice.uid)?.biometryLockedOut == true)
        await #expect(throws: LocalAuthError(.biometryLockout)) {
            try await h.engine.canEvaluatePolicy(bio, context: otherApp, caller: H.aliceSecondApp.client)
        }
        #expect(h.audit.all.contains { $0.event == .biometryLockout && $0.user == H.alice.uid })
    }

    @Test func lockoutReachesEveryEvaluationOfTheUser() async throws {
        let setup = try await ready()  // checks the passcode, which clears the count
        var ledger = UserLedger()
        ledger.biometryFailures = 4
        try setup.store.saveLedger(ledger, user: H.alice.uid)
        let h = try EngineHarness(store: setup.store)
        let holder = await h.begin(bio, on: try await h.context())
        let waitingContext = try await h.context(H.aliceSecondApp)
        _ = await h.begin(owner, on: waitingContext, by: H.aliceSecondApp)
        #expect(try await h.state(of: waitingContext, H.aliceSecondApp) == .waiting)
        try await h.fingerprint.touch("left-thumb")
        #expect(await holder.errorCode == .biometryLockout)
        #expect(try await h.state(of: waitingContext, H.aliceSecondApp) == .passcode)
        // No attempt is accepted past the lock: the enrolled finger now goes to the queue, not to anyone.
        try await h.fingerprint.touch("right-index-finger")
        #expect(try await h.state(of: waitingContext, H.aliceSecondApp) == .passcode)
    }

    @Test func retryConditionsAreReportedButNeverCounted() async throws {
        let h = try await ready()
        let context = try await h.context()
        let evaluation = await h.begin(bio, on: context)
        for reason in ["too-short", "not-centered", "remove-and-retry", "too-fast"] {
            try await h.fingerprint.retry(reason)
        }
        #expect(await h.engine.userState(of: H.alice.uid).biometryFailures == 0)
        #expect(h.observer.promptKinds(for: context) == [.biometry, .retry, .retry, .retry, .retry])
        try await h.engine.cancel(context: context, caller: H.alice.client)
        #expect(await evaluation.errorCode == .userCancel)
    }

    @Test func faceAndFingerprintListenInParallelFirstMatchWins() async throws {
        let h = try await ready(faces: ["primary"])
        let context = try await h.context()
        let byFace = await h.begin(bio, on: context)
        let prompt = try #require(h.observer.prompts.last)
        #expect(prompt.prompt.kind == .biometry)
        #expect(prompt.prompt.message.contains("Look at the screen or touch the fingerprint sensor"))
        try await h.face.present("primary", attentive: true)
        #expect(try await byFace.result.get() == .biometricMatch(.face))

        // A new context: the one that succeeded would succeed again without listening.
        let byFinger = await h.begin(bio, on: try await h.context())
        try await h.face.present("unknown", attentive: true)
        try await h.fingerprint.touch("right-index-finger")
        #expect(try await byFinger.result.get() == .biometricMatch(.fingerprint))
    }

    @Test func passcodeWhileBiometryListensWinsWhenCorrect() async throws {
        let h = try await ready(faces: ["primary"])
        let context = try await h.context()
        let evaluation = await h.begin(owner, on: context)
        #expect(try await h.state(of: context) == .biometry)
        await #expect(throws: LocalAuthError(.authenticationFailed, "Wrong passcode.")) {
            try await h.engine.submitPasscode(Passcode("0000"), context: context, caller: H.alice.client)
        }
        #expect(try await h.state(of: context) == .biometry, "a wrong passcode does not end the evaluation")
        #expect(h.observer.promptKinds(for: context).last == .passcodeWrong)
        try await h.engine.submitPasscode(Passcode(H.passcode), context: context, caller: H.alice.client)
        #expect(try await evaluation.result.get() == .passcode)
        // The sensors are free again for the next evaluation.
        let next = await h.begin(bio, on: try await h.context())
        try await h.fingerprint.touch("right-index-finger")
        #expect(try await next.result.get() == .biometricMatch(.fingerprint))
    }

    @Test func submittingAPasscodeWithoutAPolicyTwoEvaluationIsRefused() async throws {
        let h = try await ready()
        let context = try await h.context()
        let verificationsBefore = h.hasher.verificationCount
        await #expect(throws: LocalAuthError.self) {
            try await h.engine.submitPasscode(Passcode(H.passcode), context: context, caller: H.alice.client)
        }
        _ = await h.begin(bio, on: context)
        do {
            try await h.engine.submitPasscode(Passcode(H.passcode), context: context, caller: H.alice.client)
            Issue.record("accepted")
        } catch {
            #expect(error.kind == .notEvaluating)
        }
        #expect(h.hasher.verificationCount == verificationsBefore, "not checked, so not counted")
    }

    @Test func policyTwoMovesToThePasscodeAfterThePerEvaluationLimit() async throws {
        let h = try await ready(fingers: [], faces: ["primary"])
        let context = try await h.context()
        let evaluation = await h.begin(owner, on: context)
        try await h.face.present("unknown", attentive: true)
        try await h.face.present("unknown", attentive: true)
        #expect(try await h.state(of: context) == .passcode)
        #expect(h.observer.promptKinds(for: context).last == .passcode)
        try await h.face.present("primary", attentive: true)  // not listening any more: queued, not a match
        #expect(try await h.state(of: context) == .passcode)
        try await h.engine.submitPasscode(Passcode(H.passcode), context: context, caller: H.alice.client)
        #expect(try await evaluation.result.get() == .passcode)
    }

    @Test func policyTwoGoesStraightToThePasscodeWhenBiometryIsNotUsable() async throws {
        let h = try await ready(fingers: [])
        let context = try await h.context()
        _ = await h.begin(owner, on: context)
        #expect(try await h.state(of: context) == .passcode)
    }

    @Test func fallbackEndsPolicyOneAndMovesPolicyTwoToThePasscode() async throws {
        let h = try await ready()
        let one = try await h.context()
        let bioEvaluation = await h.begin(bio, on: one)
        try await h.engine.fallback(context: one, caller: H.alice.client)
        #expect(await bioEvaluation.errorCode == .userFallback)

        let two = try await h.context()
        _ = await h.begin(owner, on: two)
        try await h.engine.fallback(context: two, caller: H.alice.client)
        #expect(try await h.state(of: two) == .passcode)
    }

    @Test func fallbackIsRefusedWhileTheTitleIsEmptyAndTheEvaluationGoesOn() async throws {
        let h = try await ready()
        let context = try await h.context { $0.localizedFallbackTitle = "" }
        let evaluation = await h.begin(bio, on: context)
        await #expect(throws: LocalAuthError.self) { try await h.engine.fallback(context: context, caller: H.alice.client) }
        #expect(try await h.state(of: context) == .biometry)
        try await h.fingerprint.touch("right-index-finger")
        #expect(try await evaluation.result.get() == .biometricMatch(.fingerprint))
    }

    @Test func cancelAndFallbackWithNothingRunningAreNoOps() async throws {
        let h = try await ready()
        let context = try await h.context()
        try await h.engine.cancel(context: context, caller: H.alice.client)
        try await h.engine.fallback(context: context, caller: H.alice.client)
        #expect(try await h.state(of: context) == .idle)
    }

    @Test func cancelEndsWithUserCancel() async throws {
        let h = try await ready()
        let context = try await h.context()
        let evaluation = await h.begin(bio, on: context)
        try await h.engine.cancel(context: context, caller: H.alice.client)
        #expect(await evaluation.errorCode == .userCancel)
    }

    @Test func aSecondEvaluationOnOneContextIsBusyAndTheFirstGoesOn() async throws {
        let h = try await ready()
        let context = try await h.context()
        let first = await h.begin(bio, on: context)
        let second = await h.begin(owner, on: context)
        if case .failure(let error) = await second.result { #expect(error.kind == .busy) } else { Issue.record("second accepted") }
        try await h.fingerprint.touch("right-index-finger")
        #expect(try await first.result.get() == .biometricMatch(.fingerprint))
    }

    @Test("the reason must be non-empty and at most 512 bytes", arguments: ["", String(repeating: "é", count: 257)])
    func badReasonsAreInvalidArguments(reason: String) async throws {
        let h = try await ready()
        let evaluation = await h.begin(bio, on: try await h.context(), reason: reason)
        if case .failure(let error) = await evaluation.result { #expect(error.kind == .invalidArgument) } else { Issue.record("accepted") }
    }

    @Test func aReasonOfExactly512BytesIsAccepted() async throws {
        let h = try await ready()
        let context = try await h.context()
        _ = await h.begin(bio, on: context, reason: String(repeating: "a", count: 512))
        #expect(try await h.state(of: context) == .biometry)
    }

    @Test func interactionNotAllowedGivesNotInteractive() async throws {
        let h = try await ready()
        let evaluation = await h.begin(bio, on: try await h.context { $0.interactionNotAllowed = true })
        #expect(await evaluation.errorCode == .notInteractive)
    }

    @Test func timeoutEndsWithSystemCancelAtTheConfiguredDeadline() async throws {
        var configuration = Configuration()
        configuration.evaluationTimeout = 30
        let h = try await ready(configuration: configuration)
        let context = try await h.context()
        let start = h.clock.uptime()
        let evaluation = await h.begin(bio, on: context)
        #expect(h.observer.lastDeadline == start.advanced(by: 30))
        h.clock.advance(by: 29.9)
        await h.engine.handleDeadlines()
        #expect(try await h.state(of: context) == .biometry)
        h.clock.advance(by: 0.1)
        await h.engine.handleDeadlines()
        #expect(await evaluation.errorCode == .systemCancel)
        #expect(h.observer.lastDeadline == nil)
    }

    /// Only running evaluations have deadlines; one that ends — by a match, by Invalidate, because its
    /// client left, or at shutdown — takes its deadline with it, and idle contexts have none.
    @Test func theNextDeadlineFollowsTheRunningEvaluations() async throws {
        var configuration = Configuration()
        configuration.evaluationTimeout = 30
        let h = try await ready(configuration: configuration)
        try await h.setUp(H.bob, fingers: ["left-thumb"])
        let start = h.clock.uptime()
        _ = try await h.context()
        let matched = await h.begin(bio, on: try await h.context())
        #expect(h.observer.lastDeadline == start.advanced(by: 30))
        try await h.fingerprint.touch("right-index-finger")
        #expect(try await matched.result.get() == .biometricMatch(.fingerprint))
        #expect(h.observer.lastDeadline == nil)

        h.clock.advance(by: 5)
        let aliceContext = try await h.context()
        let invalidated = await h.begin(bio, on: aliceContext)
        #expect(h.observer.lastDeadline == start.advanced(by: 35))
        try await h.engine.invalidate(context: aliceContext, caller: H.alice.client)
        #expect(await invalidated.errorCode == .appCancel)
        #expect(h.observer.lastDeadline == nil)

        let left = await h.begin(bio, on: try await h.context(H.bob), by: H.bob)
        #expect(h.observer.lastDeadline == start.advanced(by: 35))
        await h.engine.clientDisconnected(H.bob.client)
        #expect(await left.errorCode == .systemCancel)
        #expect(h.observer.lastDeadline == nil)

        let stopped = await h.begin(bio, on: try await h.context())
        #expect(h.observer.lastDeadline == start.advanced(by: 35))
        await h.engine.shutdown()
        #expect(await stopped.errorCode == .systemCancel)
        #expect(h.observer.lastDeadline == nil)
        h.clock.advance(by: 60)
        await h.engine.handleDeadlines()
        #expect(h.observer.lastDeadline == nil)
    }

    @Test func shutdownEndsEvaluationsWithSystemCancelAndRefusesNewOnes() async throws {
        let h = try await ready()
        let context = try await h.context()
        let evaluation = await h.begin(bio, on: context)
        await h.engine.shutdown()
        #expect(await evaluation.errorCode == .systemCancel)
        #expect(await h.begin(bio, on: context).errorCode == .systemCancel)
    }

    @Test func ownerGoneDropsTheEvaluationAndCountsNothing() async throws {
        let h = try await ready()
        let context = try await h.context()
        _ = await h.begin(bio, on: context)
        await h.engine.clientDisconnected(H.alice.client)
        try await h.fingerprint.touch("left-thumb")  // nobody listens: queued, never counted
        #expect(await h.engine.userState(of: H.alice.uid).biometryFailures == 0)
        do {
            _ = try await h.engine.snapshot(of: context, caller: H.alice.client)
            Issue.record("context survived its owner")
        } catch {
            #expect(error.kind == .unknownContext)
        }
    }

    @Test func sensorDisconnectedEndsPolicyOneAndMovesPolicyTwoToThePasscode() async throws {
        let h = try await ready()
        let one = await h.begin(bio, on: try await h.context())
        let twoContext = try await h.context(H.aliceSecondApp)
        _ = await h.begin(owner, on: twoContext, by: H.aliceSecondApp)
        await h.fingerprint.setConnected(false)
        #expect(await one.errorCode == .biometryNotAvailable)
        #expect(try await h.state(of: twoContext, H.aliceSecondApp) == .passcode)
    }

    @Test func theOldestEvaluationHoldsTheSensorAndTheOthersWait() async throws {
        let h = try await ready()
        try await h.setUp(H.bob, fingers: ["left-thumb"])
        let aliceContext = try await h.context(H.alice)
        let bobContext = try await h.context(H.bob)
        let alice = await h.begin(bio, on: aliceContext, by: H.alice)
        let bob = await h.begin(bio, on: bobContext, by: H.bob)
        #expect(try await h.state(of: bobContext, H.bob) == .waiting)
        #expect(h.observer.promptKinds(for: bobContext) == [.waiting])
        try await h.fingerprint.touch("right-index-finger")
        #expect(try await alice.result.get() == .biometricMatch(.fingerprint))
        #expect(try await h.state(of: bobContext, H.bob) == .biometry)
        #expect(h.observer.promptKinds(for: bobContext) == [.waiting, .biometry])
        try await h.fingerprint.touch("left-thumb")
        #expect(try await bob.result.get() == .biometricMatch(.fingerprint))
    }

    @Test func aSimulatorEventQueuedBeforeTheEvaluationIsConsumedByIt() async throws {
        let h = try await ready()
        try await h.fingerprint.touch("right-index-finger")
        #expect(h.queue.pending == 1)
        let evaluation = await h.begin(bio, on: try await h.context())
        #expect(try await evaluation.result.get() == .biometricMatch(.fingerprint))
        #expect(h.queue.pending == 0)
    }

    @Test func anExpiredQueuedEventIsNotConsumed() async throws {
        let h = try await ready()
        try await h.fingerprint.touch("right-index-finger")
        h.clock.advance(by: 10)
        let context = try await h.context()
        _ = await h.begin(bio, on: context)
        #expect(try await h.state(of: context) == .biometry)
    }

    @Test func inattentiveFaceIsAttentionRequiredNotCountedUntilTheSettingIsOff() async throws {
        let h = try await ready(fingers: [], faces: ["primary"])
        let context = try await h.context()
        let first = await h.begin(bio, on: context)
        try await h.face.present("primary", attentive: false)
        #expect(h.observer.promptKinds(for: context).last == .attentionRequired)
        #expect(await h.engine.userState(of: H.alice.uid).biometryFailures == 0)
        try await h.engine.cancel(context: context, caller: H.alice.client)
        _ = await first.result

        try await h.engine.setRequireAttention(false, passcode: Passcode(H.passcode), caller: H.alice)
        let second = await h.begin(bio, on: context)
        try await h.face.present("primary", attentive: false)
        #expect(try await second.result.get() == .biometricMatch(.face))
    }

    @Test func alternateAppearanceMatchesOnlyWhenEnrolled() async throws {
        let h = try await ready(fingers: [], faces: ["primary"])
        let context = try await h.context()
        let evaluation = await h.begin(bio, on: context)
        try await h.face.present("alternate", attentive: true)
        #expect(await h.engine.userState(of: H.alice.uid).biometryFailures == 1)
        try await h.engine.cancel(context: context, caller: H.alice.client)
        _ = await evaluation.result
        try await h.engine.enroll(.face, label: "alternate", passcode: Passcode(H.passcode), caller: H.alice)
        let again = await h.begin(bio, on: context)
        try await h.face.present("alternate", attentive: true)
        #expect(try await again.result.get() == .biometricMatch(.face))
    }
}
