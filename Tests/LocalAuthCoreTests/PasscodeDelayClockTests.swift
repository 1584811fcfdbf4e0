// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI
import LocalAuthCore
import LocalAuthTestSupport
import Testing

/// A running passcode delay is measured on a clock that setting the date cannot move.
@Suite("Passcode delays and clock changes", .timeLimit(.minutes(1)))
struct PasscodeDelayClockTests {
    typealias H = EngineHarness

    /// Five wrong passcodes through setRequireAttention: the fifth starts the 60 s delay.
    static func startDelay(_ h: EngineHarness) async throws {
        for _ in 1...5 {
            do { try await h.engine.setRequireAttention(false, passcode: Passcode("wrong"), caller: H.alice) } catch {
                #expect(error.code == .authenticationFailed)
            }
        }
        #expect(await h.engine.userState(of: H.alice.uid).passcodeRetryAfter == h.clock.now() + 60)
    }

    static func tryCorrect(_ h: EngineHarness) async -> LAErrorCode? {
        do { try await h.engine.setRequireAttention(false, passcode: Passcode(H.passcode), caller: H.alice); return nil } catch {
            return error.code
        }
    }

    @Test func settingTheClockForwardDoesNotShortenARunningDelay() async throws {
        let h = try EngineHarness()
        try await h.setUp()
        try await Self.startDelay(h)
        h.clock.setWallClock(by: 3600)
        #expect(await Self.tryCorrect(h) == .passcodeLockout, "the clock moved an hour, no time passed")
        #expect(await h.engine.userState(of: H.alice.uid).passcodeRetryAfter == h.clock.now() + 60, "reported in the new wall time")
        h.clock.advance(by: 59)
        #expect(await Self.tryCorrect(h) == .passcodeLockout)
        h.clock.advance(by: 1)
        #expect(await Self.tryCorrect(h) == nil)
    }

    @Test func aRestartedDaemonKeepsTheDelayAfterTheClockMovedForward() async throws {
        let before = try EngineHarness()
        try await before.setUp()
        try await Self.startDelay(before)
        before.clock.advance(by: 20)
        before.clock.setWallClock(by: 86_400)
        let after = try EngineHarness(store: before.store, clock: before.clock)
        #expect(await Self.tryCorrect(after) == .passcodeLockout, "a restart in the same boot knows 20 s passed")
        after.clock.advance(by: 39)
        #expect(await Self.tryCorrect(after) == .passcodeLockout)
        after.clock.advance(by: 1)
        #expect(await Self.tryCorrect(after) == nil)
    }

    @Test func settingTheClockBackDoesNotLengthenADelayBeyondItsLength() async throws {
        let h = try EngineHarness()
        try await h.setUp()
        try await Self.startDelay(h)
        h.clock.setWallClock(by: -86_400)
        h.clock.advance(by: 60)
        #expect(await Self.tryCorrect(h) == nil, "60 s passed; the date going back a day does not add a day")
    }

    @Test func aRebootStartsTheDelayAgainWhateverTheClockSays() async throws {
        let before = try EngineHarness()
        try await before.setUp()
        try await Self.startDelay(before)
        before.clock.advance(by: 30)
        before.clock.reboot()
        before.clock.setWallClock(by: 86_400)
        let after = try EngineHarness(store: before.store, clock: before.clock)
        #expect(await Self.tryCorrect(after) == .passcodeLockout, "the time the machine was off cannot be trusted")
        after.clock.advance(by: 30)
        let again = try EngineHarness(store: before.store, clock: before.clock)  // a second restart in the same boot
        #expect(await again.engine.userState(of: H.alice.uid).passcodeRetryAfter == again.clock.now() + 30, "not restarted twice")
        again.clock.advance(by: 30)
        #expect(await Self.tryCorrect(again) == nil)
    }
}
