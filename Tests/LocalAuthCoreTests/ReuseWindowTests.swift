// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI
import LocalAuthCore
import LocalAuthTestSupport
import Testing

@Suite("Reuse window (allowableReuseDuration)", .timeLimit(.minutes(1)))
struct ReuseWindowTests {
    typealias H = EngineHarness
    let bio = LAPolicy.deviceOwnerAuthenticationWithBiometrics

    /// Alice's harness after an unlock match by root's unlock context at the harness clock's start.
    func unlocked() async throws -> EngineHarness {
        let h = try EngineHarness()
        try await h.setUp(fingers: ["right-index-finger"])
        let unlock = try await h.context(H.root) { $0.user = H.alice.uid; $0.isUnlockContext = true }
        let evaluation = await h.begin(bio, on: unlock, by: H.root)
        try await h.fingerprint.touch("right-index-finger")
        #expect(try await evaluation.result.get() == .biometricMatch(.fingerprint))
        return h
    }

    func evaluate(_ h: EngineHarness, reuse: Double, policy: LAPolicy = .deviceOwnerAuthenticationWithBiometrics) async throws -> Result<EvaluationSuccess, LocalAuthError> {
        let context = try await h.context { options in
            options.interactionNotAllowed = true  // only the reuse window can satisfy it
            try? options.setAllowableReuseDuration(reuse)
        }
        return await h.begin(policy, on: context).result
    }

    @Test("inside the window: success without a prompt", arguments: [0.0, 30, 60])
    func insideTheWindow(elapsed: Double) async throws {
        let h = try await unlocked()
        h.clock.advance(by: elapsed)
        #expect(try await evaluate(h, reuse: 60).get() == .reuse)
    }

    @Test func justOutsideTheWindowNeedsInteraction() async throws {
        let h = try await unlocked()
        h.clock.advance(by: 60.001)
        #expect(try await evaluate(h, reuse: 60) == .failure(LocalAuthError(.notInteractive)))
    }

    @Test func theWindowIsClampedToThreeHundredSeconds() async throws {
        let h = try await unlocked()
        h.clock.advance(by: 300)
        #expect(try await evaluate(h, reuse: 10_000).get() == .reuse)
        h.clock.advance(by: 1)
        #expect(try await evaluate(h, reuse: 10_000) == .failure(LocalAuthError(.notInteractive)))
    }

    @Test func zeroDurationNeverReuses() async throws {
        let h = try await unlocked()
        #expect(try await evaluate(h, reuse: 0) == .failure(LocalAuthError(.notInteractive)))
    }

    @Test func appliesToPoliciesOneTwoAndFour() async throws {
        let h = try await unlocked()
        for policy in [LAPolicy.deviceOwnerAuthenticationWithBiometrics, .deviceOwnerAuthentication, .deviceOwnerAuthenticationWithBiometricsOrCompanion] {
            #expect(try await evaluate(h, reuse: 60, policy: policy).get() == .reuse)
        }
    }

    @Test func matchesInsideOrdinaryAppEvaluationsNeverCount() async throws {
        let h = try EngineHarness()
        try await h.setUp(fingers: ["right-index-finger"])
        let evaluation = await h.begin(bio, on: try await h.context())
        try await h.fingerprint.touch("right-index-finger")
        _ = try await evaluation.result.get()
        #expect(try await evaluate(h, reuse: 300) == .failure(LocalAuthError(.notInteractive)))
    }
}

/// What ends the window: a lockout, or any change to how the user authenticates. A recent unlock
/// only stands for "the owner is here" while nothing has happened since that says otherwise.
@Suite("Reuse window: what ends it", .timeLimit(.minutes(1)))
struct ReuseWindowEndTests {
    typealias H = EngineHarness
    let reuseTests = ReuseWindowTests()
    let bio = LAPolicy.deviceOwnerAuthenticationWithBiometrics
    let owner = LAPolicy.deviceOwnerAuthentication
    var notInteractive: Result<EvaluationSuccess, LocalAuthError> { .failure(LocalAuthError(.notInteractive)) }

    /// `count` no-matches in Alice's app evaluations (three per evaluation, as configured).
    func failBiometry(_ h: EngineHarness, _ count: Int) async throws {
        let context = try await h.context()
        var left = count
        while left > 0 {
            let evaluation = await h.begin(bio, on: context)
            for _ in 0..<min(left, 3) { try await h.fingerprint.touch("left-thumb") }
            if left < 3 { try await h.engine.cancel(context: context, caller: H.alice.client) }
            _ = await evaluation.result
            left -= min(left, 3)
        }
    }

    /// The right passcode through a policy-2 evaluation: lifts every lock, changes no setting.
    func enterPasscode(_ h: EngineHarness) async throws {
        let context = try await h.context()
        let evaluation = await h.begin(owner, on: context)
        try await h.engine.submitPasscode(Passcode(H.passcode), context: context, caller: H.alice.client)
        #expect(try await evaluation.result.get() == .passcode)
    }

    @Test func failuresShortOfALockoutKeepTheWindow() async throws {
        let h = try await reuseTests.unlocked()
        try await failBiometry(h, 4)
        #expect(try await reuseTests.evaluate(h, reuse: 300, policy: owner).get() == .reuse)
        #expect(try await reuseTests.evaluate(h, reuse: 300, policy: bio).get() == .reuse)
    }

    @Test func aBiometryLockoutEndsTheWindowForGood() async throws {
        let h = try await reuseTests.unlocked()
        try await failBiometry(h, 5)
        #expect(await h.engine.userState(of: H.alice.uid).biometryLockedOut)
        #expect(try await reuseTests.evaluate(h, reuse: 300, policy: owner) == notInteractive)
        // The passcode lifts the lockout; the unlock from before it stays spent.
        try await enterPasscode(h)
        #expect(try await reuseTests.evaluate(h, reuse: 300, policy: bio) == notInteractive)
        #expect(try await reuseTests.evaluate(h, reuse: 300, policy: owner) == notInteractive)
    }

    @Test func aPasscodeLockoutEndsTheWindowForGood() async throws {
        let h = try await reuseTests.unlocked()
        let context = try await h.context()
        let evaluation = await h.begin(owner, on: context)
        for _ in 1...5 {  // the fifth wrong passcode starts a 60 s delay
            await #expect(throws: LocalAuthError.self) {
                try await h.engine.submitPasscode(Passcode("wrong-guess"), context: context, caller: H.alice.client)
            }
        }
        try await h.engine.cancel(context: context, caller: H.alice.client)
        _ = await evaluation.result
        #expect(await h.engine.userState(of: H.alice.uid).passcodeRetryAfter != nil)
        #expect(try await reuseTests.evaluate(h, reuse: 300, policy: bio) == notInteractive)
        #expect(try await reuseTests.evaluate(h, reuse: 300, policy: owner) == notInteractive)
        h.clock.advance(by: 61)  // the delay is over, the window (300 s) would still be open
        #expect(try await reuseTests.evaluate(h, reuse: 300, policy: owner) == notInteractive)
    }

    enum ProfileChange: String, CaseIterable, Sendable {
        case enrollAnotherFinger, unenroll, changePasscode, removeAndSetPasscode, requireAttention
    }

    @Test(arguments: ProfileChange.allCases)
    func aProfileChangeEndsTheWindow(_ change: ProfileChange) async throws {
        let h = try await reuseTests.unlocked()
        let engine = h.engine, passcode = Passcode(H.passcode)
        switch change {
        case .enrollAnotherFinger:
            try await engine.enroll(.fingerprint, label: "left-thumb", passcode: passcode, caller: H.alice)
        case .unenroll:
            try await engine.unenroll(.fingerprint, label: "right-index-finger", passcode: passcode, caller: H.alice)
        case .changePasscode:
            try await engine.setPasscode(current: passcode, new: Passcode("another-secret-9"), caller: H.alice)
        case .removeAndSetPasscode:
            try await engine.removePasscode(current: passcode, caller: H.alice)
            try await engine.setPasscode(current: Passcode(""), new: passcode, caller: H.alice)
        case .requireAttention:
            try await engine.setRequireAttention(true, passcode: passcode, caller: H.alice)
        }
        #expect(try await reuseTests.evaluate(h, reuse: 300, policy: owner) == notInteractive)
    }
}
