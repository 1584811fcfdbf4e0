// SPDX-License-Identifier: Apache-2.0
import LocalAuthBackends
import LocalAuthCore
import LocalAuthTestSupport
import Testing

@Suite("Face simulator", .timeLimit(.minutes(1)))
struct FaceSimulatorTests {
    let queue = SimulatorEventQueue(timeToLive: 10, clock: FakeClock())
    var sensor: FaceSimulator { FaceSimulator(queue: queue) }

    // MARK: Enrollment

    struct EnrollmentRow: Sendable, CustomTestStringConvertible {
        let label: String
        let existing: [String]
        let refusal: LocalAuthError.Kind?
        var testDescription: String { "\(label.debugDescription) next to \(existing) → \(refusal.map { "\($0)" } ?? "ok")" }
    }

    @Test(arguments: [
        EnrollmentRow(label: "primary", existing: [], refusal: nil),
        EnrollmentRow(label: "primary", existing: ["primary"], refusal: nil),  // re-enroll
        EnrollmentRow(label: "primary", existing: ["primary", "alternate"], refusal: nil),
        EnrollmentRow(label: "alternate", existing: ["primary"], refusal: nil),
        EnrollmentRow(label: "alternate", existing: ["primary", "alternate"], refusal: nil),  // re-enroll
        EnrollmentRow(label: "alternate", existing: [], refusal: .invalidArgument),  // needs the primary
        EnrollmentRow(label: "secondary", existing: ["primary"], refusal: .invalidArgument),
        EnrollmentRow(label: "unknown", existing: [], refusal: .invalidArgument),
        EnrollmentRow(label: "none", existing: [], refusal: .invalidArgument),
        EnrollmentRow(label: "Primary", existing: [], refusal: .invalidArgument),
        EnrollmentRow(label: "", existing: [], refusal: .invalidArgument),
        EnrollmentRow(label: "right-thumb", existing: [], refusal: .invalidArgument),
    ])
    func enrollmentRules(_ row: EnrollmentRow) {
        #expect(errorKind { try sensor.validateEnrollment(label: row.label, existing: row.existing) } == row.refusal)
    }

    @Test func unenrollingThePrimaryRemovesTheAlternateToo() {
        let sensor = self.sensor
        #expect(sensor.labelsRemoved(withUnenrolling: "primary", existing: ["primary", "alternate"]) == ["primary", "alternate"])
        #expect(sensor.labelsRemoved(withUnenrolling: "primary", existing: ["primary"]) == ["primary"])
        #expect(sensor.labelsRemoved(withUnenrolling: "alternate", existing: ["primary", "alternate"]) == ["alternate"])
    }

    // MARK: Judging

    struct JudgingRow: Sendable, CustomTestStringConvertible {
        let appearance: String
        let enrolled: [String]
        let attentive: Bool
        let requireAttention: Bool
        let expected: AttemptEvent
        var testDescription: String {
            "\(appearance) (\(attentive ? "attentive" : "inattentive"), attention \(requireAttention ? "required" : "not required")) with \(enrolled) → \(expected)"
        }
    }

    static let both = ["primary", "alternate"]

    @Test(arguments: [
        JudgingRow(appearance: "primary", enrolled: ["primary"], attentive: true, requireAttention: true, expected: .match(label: "primary")),
        JudgingRow(appearance: "primary", enrolled: both, attentive: true, requireAttention: true, expected: .match(label: "primary")),
        JudgingRow(appearance: "alternate", enrolled: both, attentive: true, requireAttention: true, expected: .match(label: "alternate")),
        JudgingRow(appearance: "alternate", enrolled: ["primary"], attentive: true, requireAttention: true, expected: .noMatch),
        JudgingRow(appearance: "primary", enrolled: [], attentive: true, requireAttention: true, expected: .noMatch),
        JudgingRow(appearance: "unknown", enrolled: both, attentive: true, requireAttention: true, expected: .noMatch),
        JudgingRow(appearance: "unknown", enrolled: both, attentive: false, requireAttention: true, expected: .noMatch),
        JudgingRow(appearance: "none", enrolled: both, attentive: true, requireAttention: true, expected: .retry(.noFace)),
        JudgingRow(appearance: "none", enrolled: both, attentive: false, requireAttention: false, expected: .retry(.noFace)),
        // require-attention
        JudgingRow(appearance: "primary", enrolled: both, attentive: false, requireAttention: true, expected: .retry(.attentionRequired)),
        JudgingRow(appearance: "alternate", enrolled: both, attentive: false, requireAttention: true, expected: .retry(.attentionRequired)),
        JudgingRow(appearance: "primary", enrolled: both, attentive: false, requireAttention: false, expected: .match(label: "primary")),
        JudgingRow(appearance: "alternate", enrolled: both, attentive: false, requireAttention: false, expected: .match(label: "alternate")),
        // an inattentive face that is not enrolled is a plain no-match, not a hint that it would match
        JudgingRow(appearance: "alternate", enrolled: ["primary"], attentive: false, requireAttention: true, expected: .noMatch),
    ])
    func judging(_ row: JudgingRow) async throws {
        let sensor = self.sensor
        let recorder = SensorRecorder()
        sensor.arm(recorder.session(labels: row.enrolled, requireAttention: row.requireAttention))
        try await sensor.present(row.appearance, attentive: row.attentive)
        #expect(recorder.delivered == [row.expected])
        #expect(queue.pending == 0)
    }

    @Test(arguments: ["smile", "", "Primary", "no-face", "primary "])
    func anUnknownAppearanceIsAnInvalidArgumentAndQueuesNothing(_ appearance: String) async {
        let sensor = self.sensor
        let recorder = SensorRecorder()
        #expect(await errorKind { try await sensor.present(appearance, attentive: true) } == .invalidArgument)
        sensor.arm(recorder.session(labels: Self.both))
        #expect(await errorKind { try await sensor.present(appearance, attentive: true) } == .invalidArgument)
        #expect(recorder.delivered.isEmpty)
        #expect(queue.pending == 0)
    }

    // MARK: Connection

    @Test func aDisconnectedCameraRefusesFacesAndTellsTheArmedSession() async throws {
        let sensor = self.sensor
        let recorder = SensorRecorder()
        sensor.arm(recorder.session(labels: ["primary"]))
        await sensor.setConnected(false)
        #expect(!sensor.isAvailable)
        #expect(recorder.delivered == [.disconnected])
        #expect(await errorKind { try await sensor.present("primary", attentive: true) } == .notSupported)
        #expect(queue.pending == 0)
        await sensor.setConnected(true)
        #expect(sensor.isAvailable)
    }
}
