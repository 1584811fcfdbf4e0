// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI
import LocalAuthCore

/// A scripted fingerprint sensor: presenting an enrolled finger matches, any other finger does
/// not; retry conditions use fprintd's names. Up to five fingers per user, as on Apple devices.
public final class FingerprintSimulator: BiometricBackend {
    public static let maximumEnrollments = 5
    /// The retry conditions a fingerprint read can report.
    public static let retryReasons: [RetryReason] = [.tooShort, .notCentered, .removeAndRetry, .tooFast]

    public let id = "fingerprint"
    public let modality = BiometricModality.fingerprint
    /// Internal for the ``SimulatorControl`` conformance (SimulatorControl.swift).
    let sensor: SimulatedSensor

    public init(queue: SimulatorEventQueue) {
        sensor = SimulatedSensor(modality: .fingerprint, queue: queue)
    }

    public var isAvailable: Bool { sensor.isConnected }

    public func validateEnrollment(label: String, existing: [String]) throws(LocalAuthError) {
        try Self.validateEnrollment(label: label, existing: existing)
    }

    /// The fingerprint enrollment rules, shared with fingerprint providers: an fprintd finger name, at most five.
    public static func validateEnrollment(label: String, existing: [String]) throws(LocalAuthError) {
        _ = try FingerName(validating: label)
        guard existing.contains(label) || existing.count < Self.maximumEnrollments else {
            throw LocalAuthError(.limitsExceeded, "At most \(Self.maximumEnrollments) fingers can be enrolled; unenroll one first.")
        }
    }

    public func labelsRemoved(withUnenrolling label: String, existing: [String]) -> Set<String> { [label] }

    public func arm(_ session: SensorSession) { sensor.arm(session) }
    public func disarm(_ sessionID: UInt64) { sensor.disarm(sessionID) }
    public func takeQueuedAttempt(for session: SensorSession) -> AttemptEvent? { sensor.takeQueuedAttempt(for: session) }

    /// A finger on the sensor.
    public func touch(_ finger: String) async throws(LocalAuthError) {
        try await sensor.present(try touchJudge(finger))
    }

    /// A read that cannot be judged (`too-short`, `not-centered`, `remove-and-retry`, `too-fast`).
    public func retry(_ reason: String) async throws(LocalAuthError) {
        try await sensor.present(try retryJudge(reason))
    }

    func touchJudge(_ finger: String) throws(LocalAuthError) -> SimulatorEventQueue.Judge {
        let name = try FingerName(validating: finger).rawValue
        return { session in session.enrolledLabels.contains(name) ? .match(label: name) : .noMatch }
    }

    func retryJudge(_ reason: String) throws(LocalAuthError) -> SimulatorEventQueue.Judge {
        guard let retry = RetryReason(rawValue: reason), Self.retryReasons.contains(retry) else {
            throw LocalAuthError(.invalidArgument, "Unknown fingerprint retry reason \"\(reason)\"; use one of: \(Self.retryReasons.map(\.rawValue).joined(separator: ", ")).")
        }
        return { _ in .retry(retry) }
    }

    public func setConnected(_ connected: Bool) async { await sensor.setConnected(connected) }
}
