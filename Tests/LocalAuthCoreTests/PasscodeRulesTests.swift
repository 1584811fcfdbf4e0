// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI
import LocalAuthCore
import LocalAuthTestSupport
import Testing

@Suite("Passcode: resets, delays, one ledger for every check", .timeLimit(.minutes(1)))
struct PasscodeRulesTests {
    typealias H = EngineHarness
    let owner = LAPolicy.deviceOwnerAuthentication

    func submit(_ h: EngineHarness, _ passcode: String, on context: ContextID) async -> LocalAuthError? {
        do { try await h.engine.submitPasscode(Passcode(passcode), context: context, caller: H.alice.client); return nil } catch { return error }
    }

    @Test func correctPasscodeResetsBiometricLockoutAndEveryCounter() async throws {
        var ledger = UserLedger()
        ledger.biometryFailures = 5
        ledger.biometryLockedOut = true
        ledger.passcodeFailures = 3
        let setup = try EngineHarness()
        try await setup.setUp(fingers: ["right-index-finger"])  // checks the passcode, which clears any lock
        let store = setup.store
        try store.saveLedger(ledger, user: H.alice.uid)
        let h = try EngineHarness(store: store)
        let context = try await h.context()
        let evaluation = await h.begin(owner, on: context)
        #expect(try await h.state(of: context) == .passcode, "locked biometry: straight to the passcode")
        #expect(await submit(h, H.passcode, on: context) == nil)
        #expect(try await evaluation.result.get() == .passcode)
        let saved = try #require(store.ledger(of: H.alice.uid))
        #expect(saved.biometryFailures == 0 && !saved.biometryLockedOut && saved.passcodeFailures == 0)
        try await h.engine.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, context: context, caller: H.alice.client)
    }

    @Test func delayScheduleWithAFakeClock() async throws {
        let h = try EngineHarness()
        try await h.setUp()
        let context = try await h.context()
        let evaluation = await h.begin(owner, on: context)
        var failures = 0
        /// Waits out any delay, then submits a wrong passcode, which must be answered authenticationFailed.
        func wrong() async throws {
            if let retryAfter = await h.engine.userState(of: H.alice.uid).passcodeRetryAfter {
                h.clock.advance(by: retryAfter - h.clock.now())
            }
            #expect(await submit(h, "wrong", on: context)?.code == .authenticationFailed)
            failures += 1
            #expect(h.store.ledger(of: H.alice.uid)?.passcodeFailures == failures, "saved before the answer")
        }
        for _ in 1...4 { try await wrong() }
        #expect(await h.engine.userState(of: H.alice.uid).passcodeRetryAfter == nil)
        let expectedDelays: [Double] = [60, 300, 900, 900, 3600]
        for delay in expectedDelays {
            try await wrong()  // the failure that starts a delay is itself authenticationFailed
            let start = h.clock.now()
            #expect(await h.engine.userState(of: H.alice.uid).passcodeRetryAfter == start + delay)
            let refused = await submit(h, H.passcode, on: context)
            #expect(refused?.code == .passcodeLockout && refused?.retryAfter == start + delay, "even the right passcode waits")
            #expect(h.store.ledger(of: H.alice.uid)?.passcodeFailures == failures, "a refused try is not counted")
            h.clock.advance(by: delay - 1)
            #expect(await submit(h, "wrong", on: context)?.code == .passcodeLockout)
        }
        #expect(failures == 9)
        try await wrong()  // the 10th: locked until an administrator resets it
        #expect(await evaluation.errorCode == .passcodeLockout)
        h.clock.advance(by: 100_000)
        let state = await h.engine.userState(of: H.alice.uid)
        #expect(state.passcodeLockedOut && state.passcodeFailures == 10)
        await #expect(throws: LocalAuthError.self) {
            try await h.engine.canEvaluatePolicy(owner, context: context, caller: H.alice.client)
        }
        #expect(h.audit.all.contains { $0.event == .passcodeLockout && $0.result == "locked" })

        try await h.engine.resetLockout(user: H.alice.uid, caller: H.root)
        let again = await h.begin(owner, on: context)
        #expect(await submit(h, H.passcode, on: context) == nil)
        #expect(try await again.result.get() == .passcode)
    }

    @Test func everyPasscodeCheckCountsInTheSameLedgerSoNoneIsAnOracle() async throws {
        let h = try EngineHarness()
        try await h.setUp(fingers: ["right-index-finger"], faces: ["primary"])
        let wrong = Passcode("not-it")
        let engine = h.engine
        let attempts: [() async throws -> Void] = [
            { try await engine.setPasscode(current: wrong, new: Passcode("new-passcode"), caller: H.alice) },
            { try await engine.removePasscode(current: wrong, caller: H.alice) },
            { try await engine.enroll(.fingerprint, label: "left-thumb", passcode: wrong, caller: H.alice) },
            { try await engine.unenroll(.face, label: "primary", passcode: wrong, caller: H.alice) },
        ]
        for attempt in attempts {
            do { try await attempt(); Issue.record("accepted a wrong passcode") } catch {
                #expect((error as? LocalAuthError)?.code == .authenticationFailed)
            }
        }
        #expect(h.store.ledger(of: H.alice.uid)?.passcodeFailures == 4)
        do { try await engine.setRequireAttention(false, passcode: wrong, caller: H.alice) } catch {
            #expect(error.code == .authenticationFailed)
        }
        #expect(await engine.userState(of: H.alice.uid).passcodeRetryAfter != nil, "the 5th failure started the delay")
        // During the delay, the correct passcode is refused everywhere: nothing can be learned.
        do { try await engine.enroll(.fingerprint, label: "left-thumb", passcode: Passcode(H.passcode), caller: H.alice); Issue.record("accepted") } catch {
            #expect(error.code == .passcodeLockout)
        }
        #expect(await engine.userState(of: H.alice.uid).enrollments.count == 2)
        #expect(await engine.userState(of: H.alice.uid).requireAttention)
    }

    @Test func passcodeLengthIsCheckedBeforeAnythingIsCounted() async throws {
        let h = try EngineHarness()
        for bad in ["abc", String(repeating: "x", count: 129)] {
            do { try await h.engine.setPasscode(current: Passcode(""), new: Passcode(bad), caller: H.alice); Issue.record("accepted") } catch {
                #expect(error.kind == .invalidArgument)
                #expect(!error.message.contains(bad))
            }
        }
        #expect(await !h.engine.userState(of: H.alice.uid).passcodeSet)
        try await h.engine.setPasscode(current: Passcode(""), new: Passcode("abcd"), caller: H.alice)
        try await h.engine.setPasscode(current: Passcode("abcd"), new: Passcode(String(repeating: "y", count: 128)), caller: H.alice)
        #expect(await h.engine.userState(of: H.alice.uid).passcodeFailures == 0)
    }

    @Test func settingAFirstPasscodeNeedsAnEmptyCurrentOneAndChangingNeedsTheCurrentOne() async throws {
        let h = try EngineHarness()
        do { try await h.engine.setPasscode(current: Passcode("guess"), new: Passcode("1234"), caller: H.alice); Issue.record("accepted") } catch {
            #expect(error.kind == .invalidArgument)
        }
        try await h.setUp()
        do { try await h.engine.setPasscode(current: Passcode(""), new: Passcode("1234"), caller: H.alice); Issue.record("accepted") } catch {
            #expect(error.kind == .invalidArgument, "a passcode that cannot be stored cannot match: refused, not counted")
        }
        do { try await h.engine.setPasscode(current: Passcode("not-it"), new: Passcode("1234"), caller: H.alice); Issue.record("accepted") } catch {
            #expect(error.code == .authenticationFailed)
        }
        #expect(await h.engine.userState(of: H.alice.uid).passcodeFailures == 1)
        try await h.engine.setPasscode(current: Passcode(H.passcode), new: Passcode("9876"), caller: H.alice)
        let context = try await h.context()
        let evaluation = await h.begin(owner, on: context)
        #expect(await submit(h, "9876", on: context) == nil)
        _ = try await evaluation.result.get()
        #expect(h.audit.all.filter { $0.event == .passcodeChange }.map(\.result) == ["set", "changed"])
    }

    @Test func removingThePasscodeRemovesEveryEnrollment() async throws {
        let h = try EngineHarness()
        try await h.setUp(fingers: ["left-thumb"], faces: ["primary"])
        try await h.engine.removePasscode(current: Passcode(H.passcode), caller: H.alice)
        let state = await h.engine.userState(of: H.alice.uid)
        #expect(!state.passcodeSet && state.enrollments.isEmpty)
        await #expect(throws: LocalAuthError(.passcodeNotSet)) {
            try await h.engine.enroll(.fingerprint, label: "left-thumb", passcode: Passcode(H.passcode), caller: H.alice)
        }
    }

    @Test func enrollmentRules() async throws {
        let h = try EngineHarness()
        let passcode = Passcode(H.passcode)
        try await h.setUp()
        func refused(_ modality: BiometricModality, _ label: String, _ kind: LocalAuthError.Kind) async {
            do { try await h.engine.enroll(modality, label: label, passcode: passcode, caller: H.alice); Issue.record("accepted \(label)") } catch {
                #expect(error.kind == kind)
            }
        }
        await refused(.fingerprint, "right-toe", .invalidArgument)
        await refused(.face, "alternate", .invalidArgument)  // needs the primary first
        await refused(.face, "sideways", .invalidArgument)
        for finger in ["left-thumb", "left-index-finger", "left-middle-finger", "left-ring-finger", "left-little-finger"] {
            try await h.engine.enroll(.fingerprint, label: finger, passcode: passcode, caller: H.alice)
        }
        await refused(.fingerprint, "right-thumb", .limitsExceeded)
        try await h.engine.enroll(.fingerprint, label: "left-thumb", passcode: passcode, caller: H.alice)  // re-enroll is fine
        try await h.engine.enroll(.face, label: "primary", passcode: passcode, caller: H.alice)
        try await h.engine.enroll(.face, label: "alternate", passcode: passcode, caller: H.alice)
        try await h.engine.unenroll(.face, label: "primary", passcode: passcode, caller: H.alice)
        #expect(await h.engine.userState(of: H.alice.uid).enrollments.filter { $0.modality == .face }.isEmpty)
        do { try await h.engine.unenroll(.face, label: "primary", passcode: passcode, caller: H.alice); Issue.record("accepted") } catch {
            #expect(error.kind == .invalidArgument)
        }
        #expect(await h.engine.userState(of: H.alice.uid).passcodeFailures == 0, "refused arguments never checked the passcode")
    }

    @Test func disabledBackendsCannotBeEnrolledOrSetUp() async throws {
        var configuration = Configuration()
        configuration.backends = ["fingerprint"]
        let h = try EngineHarness(configuration: configuration)
        do { try await h.engine.setPasscode(current: Passcode(""), new: Passcode("1234"), caller: H.alice); Issue.record("accepted") } catch {
            #expect(error.kind == .notSupported)
        }
        #expect(await h.engine.backendStatus() == [BackendStatus(id: "fingerprint", modality: "fingerprint", available: true,
                                                                 detail: BackendDetail(kind: .simulator, version: "", state: "available",
                                                                                       description: "Built-in fingerprint simulator"))])
    }

    @Test func onlyRootResetsLockouts() async throws {
        let h = try EngineHarness()
        await #expect(throws: LocalAuthError.self) { try await h.engine.resetLockout(user: H.alice.uid, caller: H.alice) }
        try await h.engine.resetLockout(user: H.alice.uid, caller: H.root)
        #expect(h.audit.all.last?.event == .administratorReset)
    }
}
