// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI
import LocalAuthCore
import LocalAuthTestSupport
import Testing

@Suite("canEvaluatePolicy: Apple's precedence", .timeLimit(.minutes(1)))
struct CanEvaluatePolicyTests {
    typealias H = EngineHarness

    /// A harness whose user `alice` starts with `ledger` in the store.
    func harness(ledger: UserLedger? = nil, configuration: Configuration = Configuration()) throws -> EngineHarness {
        let store = MemoryStateStore()
        if let ledger { try store.saveLedger(ledger, user: H.alice.uid) }
        return try EngineHarness(configuration: configuration, store: store)
    }

    func check(_ h: EngineHarness, _ policy: LAPolicy, _ context: ContextID) async -> LAErrorCode? {
        do {
            try await h.engine.canEvaluatePolicy(policy, context: context, caller: H.alice.client)
            return nil
        } catch {
            return error.code
        }
    }

    var lockedLedger: UserLedger {
        var ledger = UserLedger()
        ledger.biometryFailures = 5
        ledger.biometryLockedOut = true
        return ledger
    }

    @Test func biometricsPrecedenceNotAvailableBeforePasscodeNotSet() async throws {
        let h = try harness()
        await h.fingerprint.setConnected(false)
        await h.face.setConnected(false)
        let context = try await h.context()
        for policy in [LAPolicy.deviceOwnerAuthenticationWithBiometrics, .deviceOwnerAuthenticationWithBiometricsOrCompanion] {
            #expect(await check(h, policy, context) == .biometryNotAvailable)
        }
    }

    @Test func biometricsPrecedencePasscodeNotSetBeforeNotEnrolled() async throws {
        let h = try harness()
        let context = try await h.context()
        #expect(await check(h, .deviceOwnerAuthenticationWithBiometrics, context) == .passcodeNotSet)
    }

    @Test func biometricsPrecedenceNotEnrolledBeforeLockout() async throws {
        let h = try harness(ledger: lockedLedger)
        try await h.setUp()
        let context = try await h.context()
        #expect(await check(h, .deviceOwnerAuthenticationWithBiometrics, context) == .biometryNotEnrolled)
    }

    @Test func biometricsPrecedenceLockoutLast() async throws {
        let setup = try harness()
        try await setup.setUp(fingers: ["right-index-finger"])  // checks the passcode, which clears any lock
        try setup.store.saveLedger(lockedLedger, user: H.alice.uid)
        let h = try EngineHarness(store: setup.store)
        let context = try await h.context()
        #expect(await check(h, .deviceOwnerAuthenticationWithBiometrics, context) == .biometryLockout)
        #expect(await check(h, .deviceOwnerAuthenticationWithBiometricsOrCompanion, context) == .biometryLockout)
    }

    @Test func enrollmentOnADisconnectedSensorOnlyIsNotEnrolled() async throws {
        let h = try harness()
        try await h.setUp(fingers: ["right-index-finger"])
        await h.fingerprint.setConnected(false)
        let context = try await h.context()
        #expect(await check(h, .deviceOwnerAuthenticationWithBiometrics, context) == .biometryNotEnrolled)
    }

    @Test func biometricsSucceedsWhenSetUp() async throws {
        let h = try harness()
        try await h.setUp(faces: ["primary"])
        let context = try await h.context()
        #expect(await check(h, .deviceOwnerAuthenticationWithBiometrics, context) == nil)
        #expect(await check(h, .deviceOwnerAuthenticationWithBiometricsOrCompanion, context) == nil)
    }

    @Test func deviceOwnerNeedsOnlyAPasscode() async throws {
        let h = try harness(ledger: lockedLedger)
        let context = try await h.context()
        #expect(await check(h, .deviceOwnerAuthentication, context) == .passcodeNotSet)
        try await h.setUp()
        #expect(await check(h, .deviceOwnerAuthentication, context) == nil, "biometry locked and not enrolled")
        await h.fingerprint.setConnected(false)
        await h.face.setConnected(false)
        #expect(await check(h, .deviceOwnerAuthentication, context) == nil, "no biometric hardware")
    }

    @Test func deviceOwnerFailsWhenThePasscodeIsPermanentlyLockedButNotWhileDelayed() async throws {
        var delayed = UserLedger()
        delayed.passcodeFailures = 5
        delayed.passcodeRetryAfter = FakeClock().now() + 60
        let h1 = try harness(ledger: delayed)
        try await h1.setUp()
        #expect(await check(h1, .deviceOwnerAuthentication, try await h1.context()) == nil)

        var locked = UserLedger()
        locked.passcodeFailures = 10
        locked.passcodeLockedOut = true
        let h2 = try harness(ledger: locked)
        try await h2.setUp()
        #expect(await check(h2, .deviceOwnerAuthentication, try await h2.context()) == .passcodeLockout)
    }

    @Test("companion policies fail first, whatever is set up", arguments: [
        LAPolicy.deviceOwnerAuthenticationWithCompanion, .deviceOwnerAuthenticationWithWristDetection,
    ])
    func companionPoliciesAlwaysFail(policy: LAPolicy) async throws {
        let bare = try harness()
        await bare.fingerprint.setConnected(false)
        await bare.face.setConnected(false)
        #expect(await check(bare, policy, try await bare.context()) == .companionNotAvailable)
        let full = try harness()
        try await full.setUp(fingers: ["left-thumb"], faces: ["primary"])
        #expect(await check(full, policy, try await full.context()) == .companionNotAvailable)
        let handle = await full.begin(policy, on: try await full.context())
        #expect(await handle.errorCode == .companionNotAvailable)
    }

    @Test func biometryTypeIsNoneUntilCheckedThenThePreferredAvailableHardware() async throws {
        let h = try harness()
        let context = try await h.context()
        func type() async throws -> LABiometryType { try await h.engine.snapshot(of: context, caller: H.alice.client).biometryType }
        #expect(try await type() == .none)
        _ = await check(h, .deviceOwnerAuthenticationWithBiometrics, context)  // fails: no passcode
        #expect(try await type() == .faceID, "reported whatever the result")
        await h.face.setConnected(false)
        _ = await check(h, .deviceOwnerAuthentication, context)
        #expect(try await type() == .touchID)
        await h.fingerprint.setConnected(false)
        _ = await check(h, .deviceOwnerAuthentication, context)
        #expect(try await type() == LABiometryType.none)
    }

    @Test func preferredBiometryFingerprintReportsTouchID() async throws {
        var configuration = Configuration()
        configuration.preferredBiometry = .fingerprint
        let h = try harness(configuration: configuration)
        let context = try await h.context()
        _ = await check(h, .deviceOwnerAuthentication, context)
        #expect(try await h.engine.snapshot(of: context, caller: H.alice.client).biometryType == .touchID)
    }

    @Test func domainStateAppearsAfterABiometricCheckAndTracksEnrollments() async throws {
        let h = try harness()
        try await h.setUp(fingers: ["right-index-finger"])
        let context = try await h.context()
        func state() async throws -> [UInt8] {
            try await h.engine.snapshot(of: context, caller: H.alice.client).evaluatedPolicyDomainState
        }
        _ = await check(h, .deviceOwnerAuthentication, context)
        #expect(try await state().isEmpty, "policy 2 does not reveal it")
        _ = await check(h, .deviceOwnerAuthenticationWithBiometrics, context)
        let first = try await state()
        #expect(first.count == 32)

        let passcode = Passcode(H.passcode)
        try await h.engine.enroll(.fingerprint, label: "left-thumb", passcode: passcode, caller: H.alice)
        _ = await check(h, .deviceOwnerAuthenticationWithBiometrics, context)
        let afterEnroll = try await state()
        try await h.engine.unenroll(.fingerprint, label: "left-thumb", passcode: passcode, caller: H.alice)
        _ = await check(h, .deviceOwnerAuthenticationWithBiometrics, context)
        let afterUnenroll = try await state()
        try await h.engine.enroll(.fingerprint, label: "right-index-finger", passcode: passcode, caller: H.alice)
        _ = await check(h, .deviceOwnerAuthenticationWithBiometrics, context)
        let afterReenroll = try await state()
        #expect(Set([first, afterEnroll, afterUnenroll, afterReenroll]).count == 4, "every change gives a new value")
    }

    @Test func domainStateStaysEmptyWhenTheCheckFails() async throws {
        let h = try harness()
        let context = try await h.context()
        _ = await check(h, .deviceOwnerAuthenticationWithBiometrics, context)
        #expect(try await h.engine.snapshot(of: context, caller: H.alice.client).evaluatedPolicyDomainState.isEmpty)
    }
}
