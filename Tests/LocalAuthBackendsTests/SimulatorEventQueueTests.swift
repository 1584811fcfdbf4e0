// SPDX-License-Identifier: Apache-2.0
import LocalAuthBackends
import LocalAuthCore
import LocalAuthTestSupport
import Testing

@Suite("Simulator event queue", .timeLimit(.minutes(1)))
struct SimulatorEventQueueTests {
    let clock = FakeClock()
    let queue: SimulatorEventQueue
    let fingerprint: FingerprintSimulator
    let face: FaceSimulator
    /// A reader that has every finger and both faces enrolled, so each input is judged by name.
    let everything = SensorRecorder()

    init() {
        queue = SimulatorEventQueue(capacity: 16, timeToLive: 10, clock: clock)
        fingerprint = FingerprintSimulator(queue: queue)
        face = FaceSimulator(queue: queue)
    }

    func fingerReader(id: UInt64 = 100) -> SensorSession { everything.session(id: id, labels: fprintdFingerNames, requireAttention: false) }
    func faceReader(id: UInt64 = 200) -> SensorSession { everything.session(id: id, labels: ["primary", "alternate"], requireAttention: false) }

    /// Every queued fingerprint attempt, oldest first, judged for `session`.
    func drainFingerprint(_ session: SensorSession? = nil) -> [AttemptEvent] {
        let session = session ?? fingerReader()
        var events: [AttemptEvent] = []
        while let event = fingerprint.takeQueuedAttempt(for: session) {
            events.append(event)
            guard events.count <= 16 else { break }  // bounded even if broken
        }
        return events
    }

    func drainFace(_ session: SensorSession? = nil) -> [AttemptEvent] {
        let session = session ?? faceReader()
        var events: [AttemptEvent] = []
        while let event = face.takeQueuedAttempt(for: session) {
            events.append(event)
            guard events.count <= 16 else { break }
        }
        return events
    }

    @Test func anEmptyQueueHandsOutNothing() {
        #expect(queue.pending == 0)
        #expect(fingerprint.takeQueuedAttempt(for: fingerReader()) == nil)
        #expect(face.takeQueuedAttempt(for: faceReader()) == nil)
    }

    /// The daemon's queue takes a touch from each of 256 clients that touch, then evaluate (one user's
    /// default `max_contexts_per_user`); with 16 for everyone the 17th was refused and its evaluation
    /// waited for its timeout. The 257th is refused.
    @Test func theDefaultQueueHoldsATouchForEachOf256Clients() async throws {
        let daemonQueue = SimulatorEventQueue(timeToLive: 10, clock: clock)
        let sensor = FingerprintSimulator(queue: daemonQueue)
        #expect(SimulatorEventQueue.defaultCapacity == 256)
        for _ in 0..<256 { try await sensor.touch("right-index-finger") }
        #expect(daemonQueue.pending == 256)
        #expect(await errorKind { try await sensor.touch("right-index-finger") } == .limitsExceeded)
        let reader = everything.session(id: 300, labels: ["right-index-finger"], requireAttention: false)
        var taken = 0
        while taken <= 256, sensor.takeQueuedAttempt(for: reader) == .match(label: "right-index-finger") { taken += 1 }
        #expect(taken == 256)
        #expect(daemonQueue.pending == 0)
    }

    @Test func sixteenInputsInAllAcrossBothSimulators() async throws {
        let fingers = Array(fprintdFingerNames.prefix(8))
        for (index, finger) in fingers.enumerated() {
            try await fingerprint.touch(finger)
            try await face.present(index.isMultiple(of: 2) ? "primary" : "alternate", attentive: true)
        }
        #expect(queue.pending == 16)
        #expect(await errorKind { try await fingerprint.touch("right-little-finger") } == .limitsExceeded)
        #expect(await errorKind { try await fingerprint.retry("too-fast") } == .limitsExceeded)
        #expect(await errorKind { try await face.present("none", attentive: true) } == .limitsExceeded)
        #expect(queue.pending == 16, "a refused input changes nothing")
        #expect(drainFingerprint() == fingers.map { .match(label: $0) })
        #expect(queue.pending == 8)
        #expect(drainFace() == (0..<8).map { .match(label: $0.isMultiple(of: 2) ? "primary" : "alternate") })
        #expect(queue.pending == 0)
    }

    @Test func takingOneFreesOnePlace() async throws {
        for _ in 0..<16 { try await fingerprint.retry("too-short") }
        #expect(await errorKind { try await face.present("primary", attentive: true) } == .limitsExceeded)
        #expect(fingerprint.takeQueuedAttempt(for: fingerReader()) == .retry(.tooShort))
        try await face.present("primary", attentive: true)
        #expect(queue.pending == 16)
        #expect(await errorKind { try await face.present("primary", attentive: true) } == .limitsExceeded)
    }

    @Test func anExpiredInputIsNeitherHandedOutNorCounted() async throws {
        try await fingerprint.touch("left-thumb")
        clock.advance(by: 5)
        try await fingerprint.touch("right-thumb")
        try await face.present("primary", attentive: true)
        clock.advance(by: 4.5)  // first input 9.5 s old: still fresh
        #expect(queue.pending == 3)
        clock.advance(by: 1)  // 10.5 s: expired; the others are 5.5 s old
        #expect(queue.pending == 2)
        #expect(drainFingerprint() == [.match(label: "right-thumb")])
        clock.advance(by: 5)  // the face is 10.5 s old
        #expect(queue.pending == 0)
        #expect(drainFace() == [])
    }

    /// The TTL counts elapsed time: setting the date neither drops waiting inputs nor keeps them longer.
    @Test func settingTheClockDoesNotChangeHowLongInputsWait() async throws {
        try await fingerprint.touch("left-thumb")
        clock.setWallClock(by: 86_400)  // no time passed
        #expect(queue.pending == 1, "the clock moved a day forward, no time passed")
        clock.advance(by: 5)
        try await fingerprint.touch("right-thumb")
        clock.setWallClock(by: -2 * 86_400)
        clock.advance(by: 5.5)  // left-thumb 10.5 s old, right-thumb 5.5 s
        #expect(queue.pending == 1, "the clock moved back two days; left-thumb waited 10.5 s")
        clock.advance(by: 5)
        #expect(queue.pending == 0, "right-thumb waited 10.5 s")
    }

    @Test func expiredInputsFreeTheirPlaces() async throws {
        for _ in 0..<16 { try await fingerprint.touch("left-thumb") }
        #expect(await errorKind { try await fingerprint.touch("right-thumb") } == .limitsExceeded)
        clock.advance(by: 11)
        for _ in 0..<16 { try await face.present("unknown", attentive: true) }  // no pending read in between
        #expect(queue.pending == 16)
        #expect(drainFingerprint() == [])
        #expect(drainFace() == Array(repeating: .noMatch, count: 16))
    }

    @Test func firstInFirstOutPerModality() async throws {
        try await fingerprint.touch("left-thumb")
        try await face.present("alternate", attentive: true)
        try await fingerprint.retry("not-centered")
        try await face.present("none", attentive: true)
        try await fingerprint.touch("right-ring-finger")
        try await face.present("unknown", attentive: true)
        #expect(queue.pending == 6)
        #expect(drainFingerprint() == [.match(label: "left-thumb"), .retry(.notCentered), .match(label: "right-ring-finger")])
        #expect(queue.pending == 3, "taking fingerprint inputs leaves the face's")
        #expect(drainFace() == [.match(label: "alternate"), .retry(.noFace), .noMatch])
    }

    @Test func aQueuedInputIsJudgedForTheSessionThatTakesIt() async throws {
        // Queued before any enrollment set is known.
        try await fingerprint.touch("right-index-finger")
        try await fingerprint.touch("right-index-finger")
        try await face.present("primary", attentive: false)
        try await face.present("primary", attentive: false)
        try await face.present("alternate", attentive: true)
        let recorder = SensorRecorder()
        #expect(fingerprint.takeQueuedAttempt(for: recorder.session(labels: ["right-index-finger"])) == .match(label: "right-index-finger"))
        #expect(fingerprint.takeQueuedAttempt(for: recorder.session(labels: ["left-thumb"])) == .noMatch)
        #expect(face.takeQueuedAttempt(for: recorder.session(labels: ["primary"], requireAttention: true)) == .retry(.attentionRequired))
        #expect(face.takeQueuedAttempt(for: recorder.session(labels: ["primary"], requireAttention: false)) == .match(label: "primary"))
        #expect(face.takeQueuedAttempt(for: recorder.session(labels: ["primary"])) == .noMatch)
        #expect(recorder.delivered.isEmpty, "taken attempts are returned, not delivered")
        #expect(queue.pending == 0)
    }

    @Test func clearForgetsEverything() async throws {
        for _ in 0..<10 { try await fingerprint.touch("left-thumb") }
        for _ in 0..<6 { try await face.present("primary", attentive: true) }
        queue.clear()
        #expect(queue.pending == 0)
        #expect(drainFingerprint() == [])
        #expect(drainFace() == [])
        for _ in 0..<16 { try await fingerprint.touch("left-thumb") }  // the whole capacity is free again
        #expect(queue.pending == 16)
    }

    @Test func aSmallerCapacityIsHonoured() async throws {
        let small = SimulatorEventQueue(capacity: 2, timeToLive: 10, clock: clock)
        let sensor = FingerprintSimulator(queue: small)
        try await sensor.touch("left-thumb")
        try await sensor.touch("left-thumb")
        #expect(await errorKind { try await sensor.touch("left-thumb") } == .limitsExceeded)
        #expect(small.pending == 2)
    }

    /// A session that refuses an input because the engine has just replaced it: the input goes to
    /// the new session (which already looked at the queue when it was armed), not to the queue.
    @Test func anInputRefusedByAReplacedSessionGoesToItsSuccessor() async throws {
        let sensor = fingerprint
        let successor = SensorRecorder()
        let next = successor.session(id: 2, labels: ["left-thumb"])
        let replaced = SensorSession(id: 1, user: 1000, enrolledLabels: ["left-thumb"], requireAttention: true) { _ in
            // What the engine does while the input is on its way: disarm the old session, arm the new one, take the queue.
            sensor.disarm(1)
            sensor.arm(next)
            #expect(sensor.takeQueuedAttempt(for: next) == nil)
            return false
        }
        sensor.arm(replaced)
        try await sensor.touch("left-thumb")
        #expect(successor.delivered == [.match(label: "left-thumb")])
        #expect(queue.pending == 0)
    }

    /// An input presented while an evaluation arms the sensor (the engine calls `arm` and then
    /// `takeQueuedAttempt`) must reach that evaluation: delivered to it or handed out by the take,
    /// never left behind in the queue while the evaluation waits. A race: this catches a regression
    /// often, not always (before the fix it failed within ~10 000 rounds in most runs).
    @Test func anInputRacingWithArmingIsNeverLeftBehind() async throws {
        for round in 0..<20_000 {
            let queue = SimulatorEventQueue(timeToLive: 10, clock: clock)
            let sensor = FingerprintSimulator(queue: queue)
            let recorder = SensorRecorder()
            let session = recorder.session(id: UInt64(round), labels: ["left-thumb"])
            async let armed: AttemptEvent? = Task.detached {
                sensor.arm(session)
                return sensor.takeQueuedAttempt(for: session)
            }.value
            async let touched: Void = Task.detached { try await sensor.touch("left-thumb") }.value
            try await touched
            let taken = await armed
            let reached = recorder.delivered + (taken.map { [$0] } ?? [])
            try #require(reached == [.match(label: "left-thumb")], "round \(round): left in the queue (pending \(queue.pending))")
        }
    }
}
