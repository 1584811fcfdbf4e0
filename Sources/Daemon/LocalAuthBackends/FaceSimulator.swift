// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI
import LocalAuthCore

/// What the simulated camera sees.
public enum FaceAppearance: String, Sendable, CaseIterable {
    /// The user's enrolled primary appearance.
    case primary
    /// The user's alternate appearance (Apple's "Set Up an Alternate Appearance").
    case alternate
    /// Someone else: a no-match.
    case unknown
    /// No face in view: a retry, never counted.
    case none
}

/// A scripted face sensor. Enrollments are `primary` and at most one `alternate` (which needs the
/// primary). With the user's require-attention setting on, a matching face that is not attentive
/// does not match and is reported as attention-required, not counted.
public final class FaceSimulator: BiometricBackend {
    public let id = "face"
    public let modality = BiometricModality.face
    /// Internal for the ``SimulatorControl`` conformance (SimulatorControl.swift).
    let sensor: SimulatedSensor

    public init(queue: SimulatorEventQueue) {
        sensor = SimulatedSensor(modality: .face, queue: queue)
    }

    public var isAvailable: Bool { sensor.isConnected }

    public func validateEnrollment(label: String, existing: [String]) throws(LocalAuthError) {
        try Self.validateEnrollment(label: label, existing: existing)
    }

    /// The face enrollment rules, shared with face providers: `primary`, then at most one `alternate`.
    public static func validateEnrollment(label: String, existing: [String]) throws(LocalAuthError) {
        switch label {
        case FaceAppearance.primary.rawValue:
            return
        case FaceAppearance.alternate.rawValue:
            guard existing.contains(FaceAppearance.primary.rawValue) else {
                throw LocalAuthError(.invalidArgument, "Enroll the primary face before an alternate appearance.")
            }
        default:
            throw LocalAuthError(.invalidArgument, "Unknown face enrollment \"\(DisplayText.escaped(label, limit: 64))\"; use `primary` or `alternate`.")
        }
    }

    /// The alternate appearance depends on the primary, so unenrolling the primary removes both.
    public func labelsRemoved(withUnenrolling label: String, existing: [String]) -> Set<String> {
        Self.labelsRemoved(withUnenrolling: label, existing: existing)
    }

    public static func labelsRemoved(withUnenrolling label: String, existing: [String]) -> Set<String> {
        label == FaceAppearance.primary.rawValue ? Set(existing) : [label]
    }

    public func arm(_ session: SensorSession) { sensor.arm(session) }
    public func disarm(_ sessionID: UInt64) { sensor.disarm(sessionID) }
    public func takeQueuedAttempt(for session: SensorSession) -> AttemptEvent? { sensor.takeQueuedAttempt(for: session) }

    /// A face in front of the camera (`primary`, `alternate`, `unknown`, `none`).
    public func present(_ appearance: String, attentive: Bool) async throws(LocalAuthError) {
        try await sensor.present(try judge(appearance, attentive: attentive))
    }

    func judge(_ appearance: String, attentive: Bool) throws(LocalAuthError) -> SimulatorEventQueue.Judge {
        guard let face = FaceAppearance(rawValue: appearance) else {
            throw LocalAuthError(.invalidArgument, "Unknown face appearance \"\(appearance)\"; use one of: \(FaceAppearance.allCases.map(\.rawValue).joined(separator: ", ")).")
        }
        return { session in
            switch face {
            case .none:
                return .retry(.noFace)
            case .unknown:
                return .noMatch
            case .primary, .alternate:
                guard session.enrolledLabels.contains(face.rawValue) else { return .noMatch }
                return attentive || !session.requireAttention ? .match(label: face.rawValue) : .retry(.attentionRequired)
            }
        }
    }

    public func setConnected(_ connected: Bool) async { await sensor.setConnected(connected) }
}
