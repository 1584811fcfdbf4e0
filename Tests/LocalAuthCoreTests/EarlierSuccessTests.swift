// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI
import LocalAuthCore
import LocalAuthTestSupport
import Testing

/// Apple's "a context that succeeded succeeds again" and the sheet's buttons, in the core.
@Suite("Earlier success of a context; sheet buttons", .timeLimit(.minutes(1)))
struct EarlierSuccessTests {
    typealias H = EngineHarness
    let bio = LAPolicy.deviceOwnerAuthenticationWithBiometrics

    /// A harness with a fingerprint and a context whose biometric evaluation succeeded; afterwards the
    /// context allows no interaction, so only the earlier success can satisfy it.
    func succeeded() async throws -> (EngineHarness, ContextID) {
        let h = try EngineHarness()
        try await h.setUp(fingers: ["right-index-finger"])
        let context = try await h.context()
        let evaluation = await h.begin(bio, on: context)
        try await h.fingerprint.touch("right-index-finger")
        #expect(try await evaluation.result.get() == .biometricMatch(.fingerprint))
        try await h.engine.updateOptions(of: context, caller: H.alice.client, .interactionNotAllowed(true))
        return (h, context)
    }

    @Test func aBiometricSuccessSatisfiesPoliciesOneTwoAndFourWithoutInteraction() async throws {
        let (h, context) = try await succeeded()
        for policy in [LAPolicy.deviceOwnerAuthenticationWithBiometrics, .deviceOwnerAuthentication, .deviceOwnerAuthenticationWithBiometricsOrCompanion] {
            #expect(try await h.begin(policy, on: context).result.get() == .earlierSuccess, "\(policy)")
        }
        #expect(await h.begin(.deviceOwnerAuthenticationWithCompanion, on: context).errorCode == .companionNotAvailable)
        #expect(h.audit.all.last(where: { $0.result == "success" })?.message.contains("an earlier success of this context") == true)
    }

    @Test func aFreshContextAsksAgain() async throws {
        let (h, _) = try await succeeded()
        let fresh = try await h.context { $0.interactionNotAllowed = true }
        #expect(await h.begin(bio, on: fresh).errorCode == .notInteractive)
    }

    @Test func aPasscodeSuccessSatisfiesOnlyPolicyTwo() async throws {
        let h = try EngineHarness()
        try await h.setUp(fingers: ["right-index-finger"])
        let context = try await h.context()
        let evaluation = await h.begin(.deviceOwnerAuthentication, on: context)
        try await h.engine.submitPasscode(Passcode(H.passcode), context: context, caller: H.alice.client)
        #expect(try await evaluation.result.get() == .passcode)
        #expect(try await h.begin(.deviceOwnerAuthentication, on: context).result.get() == .earlierSuccess)
        let biometric = await h.begin(bio, on: context)
        #expect(try await h.state(of: context) == .biometry, "policy 1 still wants biometry")
        try await h.engine.press(.cancel)
        #expect(await biometric.errorCode == .userCancel)
    }

    @Test func anEnrollmentChangeEndsIt() async throws {
        let (h, context) = try await succeeded()
        try await h.engine.enroll(.fingerprint, label: "left-thumb", passcode: Passcode(H.passcode), caller: H.alice)
        #expect(await h.begin(bio, on: context).errorCode == .notInteractive, "enrollments changed")
    }

    @Test func aBiometryLockoutSetsItAside() async throws {
        let (h, context) = try await succeeded()
        try await ReuseWindowEndTests().failBiometry(h, 5)
        #expect(await h.engine.userState(of: H.alice.uid).biometryLockedOut)
        #expect(await h.begin(.deviceOwnerAuthentication, on: context).errorCode == .notInteractive, "locked out: the passcode is owed")
        #expect(await h.begin(bio, on: context).errorCode == .biometryLockout)
    }

    @Test func unlockContextsNeverReuseASuccess() async throws {
        let h = try EngineHarness()
        try await h.setUp(fingers: ["right-index-finger"])
        let unlock = try await h.context(H.root) { $0.user = H.alice.uid; $0.isUnlockContext = true }
        let evaluation = await h.begin(bio, on: unlock, by: H.root)
        try await h.fingerprint.touch("right-index-finger")
        #expect(try await evaluation.result.get() == .biometricMatch(.fingerprint))
        try await h.engine.updateOptions(of: unlock, caller: H.root.client, .interactionNotAllowed(true))
        #expect(await h.begin(bio, on: unlock, by: H.root).errorCode == .notInteractive)
    }

    @Test func theSheetButtonsActOnTheOldestRunningEvaluation() async throws {
        let h = try EngineHarness()
        try await h.setUp(fingers: ["right-index-finger"])
        await #expect(throws: LocalAuthError.self) { try await h.engine.press(.cancel) }
        let first = await h.begin(bio, on: try await h.context())
        let second = await h.begin(bio, on: try await h.context())
        try await h.engine.press(.fallback)
        #expect(await first.errorCode == .userFallback)
        try await h.engine.press(.cancel)
        #expect(await second.errorCode == .userCancel)

        let hidden = try await h.context { $0.localizedFallbackTitle = "" }
        let running = await h.begin(bio, on: hidden)
        await #expect(throws: LocalAuthError(.notSupported, "The sheet shows no fallback button: the context's fallback title is empty.")) {
            try await h.engine.press(.fallback)
        }
        #expect(try await h.state(of: hidden) == .biometry, "nothing changed")
        try await h.engine.press(.cancel)
        #expect(await running.errorCode == .userCancel)
    }
}
