// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI
import LocalAuthBackends
import LocalAuthCore
import LocalAuthTestSupport
import Testing

@Suite("Fingerprint simulator", .timeLimit(.minutes(1)))
struct FingerprintSimulatorTests {
    let queue = SimulatorEventQueue(timeToLive: 10, clock: FakeClock())
    var sensor: FingerprintSimulator { FingerprintSimulator(queue: queue) }

    // MARK: Enrollment

    @Test(arguments: fprintdFingerNames)
    func everyFprintdFingerNameCanBeEnrolled(_ finger: String) throws {
        let sensor = self.sensor
        try sensor.validateEnrollment(label: finger, existing: [])
        #expect(sensor.labelsRemoved(withUnenrolling: finger, existing: fprintdFingerNames) == [finger])
    }

    @Test func theNameTableIsExactlyFprintds() {
        #expect(FingerName.allCases.map(\.rawValue) == fprintdFingerNames)
    }

    @Test(arguments: ["right-toe", "", "Right-Thumb", "right thumb", "right-thumb ", "thumb", "right-index", "primary"])
    func anyOtherLabelIsAnInvalidArgument(_ label: String) {
        #expect(errorKind { try sensor.validateEnrollment(label: label, existing: []) } == .invalidArgument)
    }

    @Test func atMostFiveFingers() throws {
        let sensor = self.sensor
        let five = Array(fprintdFingerNames.prefix(5))
        try sensor.validateEnrollment(label: five[4], existing: Array(five.prefix(4)))  // the 5th
        #expect(errorKind { try sensor.validateEnrollment(label: fprintdFingerNames[5], existing: five) } == .limitsExceeded)
        for finger in five {  // re-enrolling an existing finger at the limit is fine
            try sensor.validateEnrollment(label: finger, existing: five)
        }
        // The name is checked before the limit.
        #expect(errorKind { try sensor.validateEnrollment(label: "right-toe", existing: five) } == .invalidArgument)
    }

    // MARK: Inputs that are refused

    @Test(arguments: ["right-toe", "", "Right-Thumb", "primary"])
    func touchingAnUnknownFingerIsRefusedAndQueuesNothing(_ finger: String) async {
        let sensor = self.sensor
        let recorder = SensorRecorder()
        #expect(await errorKind { try await sensor.touch(finger) } == .invalidArgument)
        sensor.arm(recorder.session(labels: fprintdFingerNames))
        #expect(await errorKind { try await sensor.touch(finger) } == .invalidArgument)
        #expect(recorder.delivered.isEmpty)
        #expect(queue.pending == 0)
    }

    @Test(arguments: ["no-face", "attention-required", "", "TOO-SHORT", "too short", "dirty"])
    func anUnknownRetryReasonIsRefusedAndQueuesNothing(_ reason: String) async {
        let sensor = self.sensor
        #expect(await errorKind { try await sensor.retry(reason) } == .invalidArgument)
        #expect(queue.pending == 0)
    }

    // MARK: Judging, delivered to the armed session

    @Test func anEnrolledFingerMatchesAndAnotherDoesNot() async throws {
        let sensor = self.sensor
        let recorder = SensorRecorder()
        sensor.arm(recorder.session(labels: ["right-index-finger", "left-thumb"]))
        try await sensor.touch("right-index-finger")
        try await sensor.touch("left-index-finger")
        try await sensor.touch("left-thumb")
        #expect(recorder.delivered == [.match(label: "right-index-finger"), .noMatch, .match(label: "left-thumb")])
        #expect(queue.pending == 0)
    }

    @Test func nothingEnrolledIsANoMatch() async throws {
        let sensor = self.sensor
        let recorder = SensorRecorder()
        sensor.arm(recorder.session(labels: []))
        try await sensor.touch("right-index-finger")
        #expect(recorder.delivered == [.noMatch])
    }

    @Test(arguments: [("too-short", RetryReason.tooShort), ("not-centered", .notCentered),
                      ("remove-and-retry", .removeAndRetry), ("too-fast", .tooFast)])
    func retryReasonsAreJudgedRetry(_ name: String, _ reason: RetryReason) async throws {
        let sensor = self.sensor
        let recorder = SensorRecorder()
        sensor.arm(recorder.session(labels: ["right-index-finger"]))
        try await sensor.retry(name)
        #expect(recorder.delivered == [.retry(reason)])
    }

    @Test func aSessionThatIsNoLongerArmedLeavesTheInputQueued() async throws {
        let sensor = self.sensor
        let stale = SensorRecorder(accepting: false)
        sensor.arm(stale.session(id: 1, labels: ["right-index-finger"]))
        try await sensor.touch("right-index-finger")
        #expect(stale.delivered == [.match(label: "right-index-finger")], "offered to the armed session first")
        #expect(queue.pending == 1)
        // The next session gets it, judged against its own enrollments.
        let next = SensorRecorder()
        #expect(sensor.takeQueuedAttempt(for: next.session(id: 2, labels: ["left-thumb"])) == .noMatch)
        #expect(queue.pending == 0)
    }

    @Test func disarmStopsDeliveryOnlyForTheArmedSession() async throws {
        let sensor = self.sensor
        let recorder = SensorRecorder()
        sensor.arm(recorder.session(id: 7, labels: ["right-thumb"]))
        sensor.disarm(8)  // not the armed one: no effect
        try await sensor.touch("right-thumb")
        sensor.disarm(7)
        try await sensor.touch("right-thumb")
        #expect(recorder.delivered == [.match(label: "right-thumb")])
        #expect(queue.pending == 1)
    }

    // MARK: Connection

    @Test func aDisconnectedSensorRefusesInputAndIsUnavailable() async throws {
        let sensor = self.sensor
        #expect(sensor.isAvailable)
        await sensor.setConnected(false)
        #expect(!sensor.isAvailable)
        #expect(await errorKind { try await sensor.touch("right-thumb") } == .notSupported)
        #expect(await errorKind { try await sensor.retry("too-fast") } == .notSupported)
        #expect(queue.pending == 0)
        await sensor.setConnected(true)
        #expect(sensor.isAvailable)
        try await sensor.touch("right-thumb")
        #expect(queue.pending == 1)
    }

    @Test func disconnectingWhileArmedTellsTheArmedSessionAndDisarms() async throws {
        let sensor = self.sensor
        let recorder = SensorRecorder()
        sensor.arm(recorder.session(labels: ["right-thumb"]))
        await sensor.setConnected(false)
        #expect(recorder.delivered == [.disconnected])
        await sensor.setConnected(false)  // already disconnected, nothing armed: nothing more
        await sensor.setConnected(true)
        #expect(recorder.delivered == [.disconnected])
        try await sensor.touch("right-thumb")  // the old session is no longer armed
        #expect(recorder.delivered == [.disconnected])
        #expect(queue.pending == 1)
    }

    @Test func disconnectingWithNothingArmedDeliversNothing() async {
        let sensor = self.sensor
        let recorder = SensorRecorder()
        sensor.arm(recorder.session(id: 3))
        sensor.disarm(3)
        await sensor.setConnected(false)
        #expect(recorder.delivered.isEmpty)
    }
}
