// SPDX-License-Identifier: Apache-2.0
import LocalAuthCore
import LocalAuthTestSupport
import Testing

/// Absurd but parseable ledgers are corrupt: the user fails closed, and the daemon does not crash.
@Suite("Ledger validation on load", .timeLimit(.minutes(1)))
struct LedgerValidationTests {
    typealias H = EngineHarness
    static let tenYears = 10 * 365 * 86_400.0

    /// A harness whose store holds alice's passcode and `ledger`, as a restarted daemon finds it.
    static func restarted(with change: (inout UserLedger, UnixTime) -> Void) async throws -> EngineHarness {
        let setup = try EngineHarness()
        try await setup.setUp(fingers: ["right-index-finger"])
        var ledger = UserLedger()
        change(&ledger, setup.clock.now())
        try setup.store.saveLedger(ledger, user: H.alice.uid)
        return try EngineHarness(store: setup.store, clock: setup.clock)
    }

    /// The user is locked and a state error was logged; a passcode submission is refused, not counted.
    static func expectFailedClosed(_ h: EngineHarness, _ comment: Comment) async throws {
        let state = await h.engine.userState(of: H.alice.uid)
        #expect(state.passcodeLockedOut && state.biometryLockedOut, comment)
        #expect(h.audit.all.contains { $0.event == .stateError && $0.user == H.alice.uid }, comment)
        let context = try await h.context()
        do {
            try await h.engine.setRequireAttention(false, passcode: Passcode(H.passcode), caller: H.alice)
            Issue.record("a passcode was accepted: \(comment)")
        } catch {
            #expect(error.code == .passcodeLockout, comment)
        }
        await #expect(throws: LocalAuthError(.biometryLockout), comment) {
            try await h.engine.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, context: context, caller: H.alice.client)
        }
    }

    @Test func negativeCountsAreCorruptNotFreeGuesses() async throws {
        try await Self.expectFailedClosed(try await Self.restarted { ledger, _ in ledger.passcodeFailures = -100 }, "passcodeFailures -100")
        try await Self.expectFailedClosed(try await Self.restarted { ledger, _ in ledger.biometryFailures = -5 }, "biometryFailures -5")
    }

    @Test func aRetryTimeBeyondTheLongestDelayIsCorrupt() async throws {
        try await Self.expectFailedClosed(try await Self.restarted { ledger, now in
            ledger.passcodeFailures = 5
            ledger.passcodeRetryAfter = now + Self.tenYears
        }, "retry in ten years")
    }

    @Test func valuesThatCrashedTheDaemonAreCorrupt() async throws {
        try await Self.expectFailedClosed(try await Self.restarted { ledger, _ in
            ledger.passcodeFailures = 5
            ledger.passcodeRetryAfter = UnixTime(1e30)
        }, "retry at 1e30")
        try await Self.expectFailedClosed(try await Self.restarted { ledger, _ in ledger.passcodeFailures = Int.max }, "Int.max failures")
        try await Self.expectFailedClosed(try await Self.restarted { ledger, _ in ledger.biometryFailures = Int.max }, "Int.max biometric failures")
    }

    @Test func plausibleLedgersStayAsTheyAre() async throws {
        let h = try await Self.restarted { ledger, now in
            ledger.biometryFailures = 2
            ledger.passcodeFailures = 5
            ledger.passcodeRetryAfter = now + 30
            ledger.lastUnlockMatch = now + -10
        }
        let state = await h.engine.userState(of: H.alice.uid)
        #expect(state.biometryFailures == 2 && !state.biometryLockedOut && state.passcodeFailures == 5 && !state.passcodeLockedOut)
        #expect(state.passcodeRetryAfter == h.clock.now() + 30)
        #expect(!h.audit.all.contains { $0.event == .stateError })
    }

    // MARK: The validating step itself

    static let schedule = Configuration().passcodeSchedule  // longest delay 3600 s
    static let now = ClockReading(wall: UnixTime(1_800_000_000), uptime: BootTime(boot: "this", seconds: 5000))

    @Test("out-of-range values are corrupt", arguments: [
        { (l: inout UserLedger) in l.passcodeFailures = -1 },
        { (l: inout UserLedger) in l.biometryFailures = UserLedger.countLimit + 1 },
        { (l: inout UserLedger) in l.passcodeFailures = Int.max },
        { (l: inout UserLedger) in l.passcodeRetryAfter = UnixTime(.nan) },
        { (l: inout UserLedger) in l.lastUnlockMatch = UnixTime(.infinity) },
        { (l: inout UserLedger) in l.passcodeRetryAfter = now.wall + 3601 },
        { (l: inout UserLedger) in l.passcodeDelay = PasscodeDelay(started: now.uptime, seconds: 3601) },
        { (l: inout UserLedger) in l.passcodeDelay = PasscodeDelay(started: now.uptime, seconds: .nan) },
        { (l: inout UserLedger) in l.passcodeDelay = PasscodeDelay(started: now.uptime, seconds: -1) },
        { (l: inout UserLedger) in l.passcodeDelay = PasscodeDelay(started: BootTime(boot: "this", seconds: 5001), seconds: 60) },
        { (l: inout UserLedger) in l.passcodeDelay = PasscodeDelay(started: BootTime(boot: "other", seconds: -.infinity), seconds: 60) },
    ] as [@Sendable (inout UserLedger) -> Void])
    func outOfRange(_ change: @Sendable (inout UserLedger) -> Void) {
        var ledger = UserLedger()
        change(&ledger)
        #expect(throws: StateStoreError.self) { try ledger.validated(at: Self.now, schedule: Self.schedule) }
    }

    @Test func aDelayGoesOnInItsBootAndStartsAgainInAnother() throws {
        var ledger = UserLedger()
        ledger.passcodeFailures = 9
        ledger.passcodeDelay = PasscodeDelay(started: BootTime(boot: "this", seconds: 4000), seconds: 3600)
        let sameBoot = try ledger.validated(at: Self.now, schedule: Self.schedule)
        #expect(sameBoot.retryAfter(at: Self.now) == Self.now.wall + 2600)
        #expect(sameBoot.passcodeRetryAfter == Self.now.wall + 2600)

        ledger.passcodeDelay?.started.boot = "before-the-reboot"
        let rebooted = try ledger.validated(at: Self.now, schedule: Self.schedule)
        #expect(rebooted.passcodeDelay == PasscodeDelay(started: Self.now.uptime, seconds: 3600))
        #expect(rebooted.retryAfter(at: Self.now) == Self.now.wall + 3600)
    }

    @Test func aWallClockRetryTimeFromAnOlderFileBecomesADelay() throws {
        var ledger = UserLedger()
        ledger.passcodeFailures = 5
        ledger.passcodeRetryAfter = Self.now.wall + 45
        let loaded = try ledger.validated(at: Self.now, schedule: Self.schedule)
        #expect(loaded.passcodeDelay == PasscodeDelay(started: Self.now.uptime, seconds: 45))
        ledger.passcodeRetryAfter = Self.now.wall + -45
        #expect(try ledger.validated(at: Self.now, schedule: Self.schedule).passcodeDelay == nil, "over")
    }

    @Test func countingStopsAtTheLimit() {
        var ledger = UserLedger()
        ledger.passcodeFailures = UserLedger.countLimit
        ledger.biometryFailures = UserLedger.countLimit
        ledger.recordPasscodeFailure(at: Self.now, schedule: Self.schedule)
        _ = ledger.recordBiometricFailure(maxFailures: 5)
        #expect(ledger.passcodeFailures == UserLedger.countLimit && ledger.biometryFailures == UserLedger.countLimit)
        #expect(ledger.passcodeLockedOut && ledger.biometryLockedOut)
    }
}
