// SPDX-License-Identifier: Apache-2.0
/// A biometric sensor plugged into the engine: the one seam a new sensor type implements.
///
/// The engine arms the sensor for at most one evaluation at a time and disarms it when that
/// evaluation leaves the biometric phase. The backend reports attempts through the session's
/// ``SensorSession/deliver``; attempts that arrive while nothing is armed may be kept and handed
/// out by ``takeQueuedAttempt(for:)`` when the next session arms. Implementations are thread-safe:
/// the engine calls them from its actor, their own inputs come from anywhere.
public protocol BiometricBackend: AnyObject, Sendable {
    /// The configuration and D-Bus name of this backend (`fingerprint`, `face`).
    var id: String { get }
    var modality: BiometricModality { get }
    /// Whether the hardware is connected now.
    var isAvailable: Bool { get }
    /// Checks that `label` may be enrolled next to the user's `existing` labels of this modality
    /// (known name, per-user limit, ordering rules). Re-enrolling an existing label is allowed.
    func validateEnrollment(label: String, existing: [String]) throws(LocalAuthError)
    /// Labels removed together with `label` (e.g. a face's alternate appearance with its primary).
    func labelsRemoved(withUnenrolling label: String, existing: [String]) -> Set<String>
    /// Starts listening on behalf of one evaluation.
    func arm(_ session: SensorSession)
    /// Stops listening for the session with this id, if it is the armed one.
    func disarm(_ sessionID: UInt64)
    /// The oldest attempt that arrived while nothing was armed and is still fresh, judged for `session`.
    func takeQueuedAttempt(for session: SensorSession) -> AttemptEvent?
}

/// One evaluation's claim on a sensor: whose templates to match and where to report.
public struct SensorSession: Sendable {
    public let id: UInt64
    public let user: UInt32
    /// The user's enrolled labels of the sensor's modality.
    public let enrolledLabels: [String]
    /// The user's require-attention setting (face sensors).
    public let requireAttention: Bool
    /// Hands an attempt to the engine. Returns false when the session is no longer armed, so
    /// the backend can keep the attempt for the next one.
    public let deliver: @Sendable (AttemptEvent) async -> Bool

    public init(id: UInt64, user: UInt32, enrolledLabels: [String], requireAttention: Bool,
                deliver: @escaping @Sendable (AttemptEvent) async -> Bool) {
        self.id = id
        self.user = user
        self.enrolledLabels = enrolledLabels
        self.requireAttention = requireAttention
        self.deliver = deliver
    }
}
