// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI
import LocalAuthCore
import LocalAuthTestSupport
import Synchronization
import Testing

private typealias H = EngineHarness

/// A provider's double: enrollment hands out scripted template ids (or fails), deletions are
/// recorded, and the armed session can be fed attempts.
private final class ScriptedSensor: CapturingBackend {
    let id = "scripted"
    let modality = BiometricModality.fingerprint
    var isAvailable: Bool { true }
    private struct State {
        var next: [Result<String, LocalAuthError>] = []
        var deleted: [String] = []
        var armed: SensorSession?
        var onCapture: (@Sendable () -> Void)?
    }
    private let state = Mutex(State())

    func script(_ results: Result<String, LocalAuthError>...) { state.withLock { $0.next = results } }
    var deleted: [String] { state.withLock { $0.deleted } }
    var armed: SensorSession? { state.withLock { $0.armed } }
    /// Runs once, during the next capture (after the passcode was checked).
    func duringNextCapture(_ body: @escaping @Sendable () -> Void) { state.withLock { $0.onCapture = body } }

    func validateEnrollment(label: String, existing: [String]) throws(LocalAuthError) {}
    func labelsRemoved(withUnenrolling label: String, existing: [String]) -> Set<String> { [label] }
    func arm(_ session: SensorSession) { state.withLock { $0.armed = session } }
    func disarm(_ sessionID: UInt64) { state.withLock { if $0.armed?.id == sessionID { $0.armed = nil } } }
    func takeQueuedAttempt(for session: SensorSession) -> AttemptEvent? { nil }

    func capture(user: UInt32, label: String, progress: @escaping @Sendable (EnrollmentProgress) -> Void) async throws(LocalAuthError) -> String {
        progress(EnrollmentProgress(status: .stagePassed, completedStages: 1, stages: 1, detail: ""))
        let (result, hook) = state.withLock { state in
            defer { state.onCapture = nil }
            return (state.next.removeFirst(), state.onCapture)
        }
        hook?()
        return try result.get()
    }

    func deleteTemplates(_ templates: [String], user: UInt32) async {
        state.withLock { $0.deleted += templates }
    }
}

/// Enrollment on a ``CapturingBackend``: the label is stored against the provider's template only
/// once it exists, templates the profile no longer names are deleted, and attempts are judged
/// by label.
@Suite("Enrollment with captures (providers)")
struct CapturingEnrollmentTests {
    private static func harness() throws -> (H, ScriptedSensor) {
        let sensor = ScriptedSensor()
        return (try H(sensor: sensor), sensor)
    }

    @Test func theLabelIsStoredAgainstTheTemplateAndArmedWithIt() async throws {
        let (h, sensor) = try Self.harness()
        try await h.setUp()
        sensor.script(.success("t-1"))
        let progress = Mutex<[EnrollmentProgress]>([])
        try await h.engine.enroll(.fingerprint, label: "left-thumb", passcode: Passcode(H.passcode), caller: H.alice) { step in
            progress.withLock { $0.append(step) }
        }
        #expect(progress.withLock { $0.count } == 1)
        #expect(h.store.profile(of: 1000)?.enrollments == [Enrollment(modality: .fingerprint, label: "left-thumb", template: "t-1")])

        let context = try await h.context()
        let evaluation = await h.begin(.deviceOwnerAuthenticationWithBiometrics, on: context)
        let armed = try #require(sensor.armed)
        #expect(armed.templates == ["left-thumb": "t-1"] && armed.enrolledLabels == ["left-thumb"])
        #expect(await armed.deliver(.match(label: "left-thumb")))
        #expect(await evaluation.result == .success(.biometricMatch(.fingerprint)))
    }

    @Test func aFailedCaptureEnrollsNothing() async throws {
        let (h, sensor) = try Self.harness()
        try await h.setUp()
        sensor.script(.failure(LocalAuthError(.limitsExceeded, "full")))
        await #expect(throws: LocalAuthError.self) {
            try await h.engine.enroll(.fingerprint, label: "left-thumb", passcode: Passcode(H.passcode), caller: H.alice)
        }
        #expect(h.store.profile(of: 1000)?.enrollments == [])
        #expect(sensor.deleted.isEmpty)
    }

    @Test func replacedUnenrolledAndUnsavedTemplatesAreDeleted() async throws {
        let (h, sensor) = try Self.harness()
        try await h.setUp()
        sensor.script(.success("t-1"), .success("t-2"), .success("t-3"), .success("t-4"))
        let enroll = { (label: String) async throws in
            try await h.engine.enroll(.fingerprint, label: label, passcode: Passcode(H.passcode), caller: H.alice)
        }
        try await enroll("left-thumb")
        try await enroll("left-thumb")
        #expect(sensor.deleted == ["t-1"], "re-enrolling replaced t-1")
        try await h.engine.unenroll(.fingerprint, label: "left-thumb", passcode: Passcode(H.passcode), caller: H.alice)
        #expect(sensor.deleted == ["t-1", "t-2"])
        sensor.duringNextCapture { h.store.setFailWrites(true) }
        await #expect(throws: LocalAuthError.self) { try await enroll("right-thumb") }
        h.store.setFailWrites(false)
        #expect(sensor.deleted == ["t-1", "t-2", "t-3"], "a template whose label could not be saved is deleted")
        try await enroll("right-thumb")
        try await h.engine.removePasscode(current: Passcode(H.passcode), caller: H.alice)
        #expect(sensor.deleted == ["t-1", "t-2", "t-3", "t-4"], "removing the passcode removes every enrollment and its template")
    }

    /// Removing the passcode while an enrollment is being saved waits for it, and then removes
    /// that enrollment's template too.
    @Test func removingThePasscodeDuringAnEnrollmentsSaveDeletesItsTemplate() async throws {
        let (h, sensor) = try Self.harness()
        try await h.setUp()
        sensor.script(.success("t-1"))
        h.store.holdProfileSaves()
        let enrollment = Task {
            try await h.engine.enroll(.fingerprint, label: "left-thumb", passcode: Passcode(H.passcode), caller: H.alice)
        }
        #expect(await eventually { h.store.heldProfileSaves == 1 }, "the enrollment reached its save")
        let verified = h.hasher.verificationCount
        let removal = Task { try await h.engine.removePasscode(current: Passcode(H.passcode), caller: H.alice) }
        #expect(await eventually { h.hasher.verificationCount > verified }, "the removal checked the passcode")
        h.store.releaseProfileSaves()
        try await enrollment.value
        try await removal.value
        #expect(h.store.profile(of: 1000)?.enrollments == [])
        #expect(sensor.deleted == ["t-1"], "the template enrolled meanwhile is deleted with the rest")
    }
}
