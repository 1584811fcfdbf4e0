// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI
import LocalAuthCore
import LocalAuthTestSupport
import Testing

/// An evaluation's timeout is measured on a clock that setting the date cannot move: it ends
/// `evaluation_timeout` seconds of elapsed time after it began, whatever the wall clock does.
@Suite("Evaluation timeouts and clock changes", .timeLimit(.minutes(1)))
struct EvaluationDeadlineClockTests {
    let bio = LAPolicy.deviceOwnerAuthenticationWithBiometrics
    static let day: Double = 86_400

    func ready() async throws -> EngineHarness {
        var configuration = Configuration()
        configuration.evaluationTimeout = 30
        let h = try EngineHarness(configuration: configuration)
        try await h.setUp(fingers: ["right-index-finger"])
        return h
    }

    /// Lets 30 s pass in two steps and checks the evaluation ends at the second, not before.
    func expectTimeoutAfterThirtySeconds(_ h: EngineHarness, _ context: ContextID, _ evaluation: RunningEvaluationHandle) async throws {
        h.clock.advance(by: 29.9)
        await h.engine.handleDeadlines()
        #expect(try await h.state(of: context) == .biometry, "29.9 s passed: too early")
        h.clock.advance(by: 0.1)
        await h.engine.handleDeadlines()
        let state = try await h.state(of: context)
        #expect(state == .idle, "30 s passed: the evaluation should have timed out")
        if state == .idle {
            #expect(await evaluation.errorCode == .systemCancel)
        } else {
            try await h.fingerprint.touch("right-index-finger")  // ends it, so the test does not hang
            _ = await evaluation.result
        }
    }

    /// The announced deadline, as the observer's timer would wait for it after the date changed.
    func expectTimerWaitsThirtySeconds(_ h: EngineHarness) {
        #expect(h.observer.lastDeadline?.remaining(from: h.clock.uptime()) == 30)
    }

    @Test func settingTheClockBackADayDoesNotStopTheTimeout() async throws {
        let h = try await ready()
        let context = try await h.context()
        let evaluation = await h.begin(bio, on: context)
        h.clock.setWallClock(by: -Self.day)
        await h.engine.handleDeadlines()
        expectTimerWaitsThirtySeconds(h)
        try await expectTimeoutAfterThirtySeconds(h, context, evaluation)
    }

    @Test func settingTheClockForwardADayDoesNotEndTheEvaluationEarly() async throws {
        let h = try await ready()
        let context = try await h.context()
        let evaluation = await h.begin(bio, on: context)
        h.clock.setWallClock(by: Self.day)
        await h.engine.handleDeadlines()
        #expect(try await h.state(of: context) == .biometry, "the clock moved a day, no time passed")
        expectTimerWaitsThirtySeconds(h)
        guard try await h.state(of: context) == .biometry else { return }
        try await expectTimeoutAfterThirtySeconds(h, context, evaluation)
    }

    /// A timer that wakes the engine before the deadline (or for nothing) is armed again, so a
    /// running evaluation always has a wake-up ahead of it.
    @Test func aWakeBeforeTheDeadlineArmsTheTimerAgain() async throws {
        let h = try await ready()
        let context = try await h.context()
        let evaluation = await h.begin(bio, on: context)
        let announced = h.observer.deadlineAnnouncements
        h.clock.advance(by: 10)
        await h.engine.handleDeadlines()
        #expect(h.observer.deadlineAnnouncements == announced + 1)
        #expect(h.observer.lastDeadline?.remaining(from: h.clock.uptime()) == 20)
        try await h.fingerprint.touch("right-index-finger")
        #expect(try await evaluation.result.get() == .biometricMatch(.fingerprint))
        #expect(h.observer.lastDeadline == nil)
    }
}
