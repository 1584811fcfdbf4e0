// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI

/// A biometric sensor plugged into the engine: the one seam a new sensor type implements.
///
/// The engine arms the sensor for at most one evaluation at a time and disarms it when that
/// evaluation leaves the biometric phase. The backend reports attempts through the session's
/// ``SensorSession/deliver``; attempts that arrive while nothing is armed may be kept and handed
/// out by ``takeQueuedAttempt(for:)`` when the next session arms. Implementations are thread-safe:
/// the engine calls them from its actor, their own inputs come from anywhere.
public protocol BiometricBackend: AnyObject, ListedBackend {
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
    /// Stops listening for the session with this id, if it is the armed one. The backend lets go
    /// of the session then (its ``SensorSession/deliver`` holds the engine).
    func disarm(_ sessionID: UInt64)
    /// The oldest attempt that arrived while nothing was armed and is still fresh, judged for `session`.
    func takeQueuedAttempt(for session: SensorSession) -> AttemptEvent?
    /// What `Backends` shows besides id, modality and availability.
    var detail: BackendDetail { get }
}

extension BiometricBackend {
    /// A built-in sensor (a simulator): the daemon's own version, connected or not.
    public var detail: BackendDetail {
        BackendDetail(kind: .simulator, version: "", state: isAvailable ? "available" : "disconnected",
                      description: "Built-in \(modality.rawValue) simulator")
    }
}

/// A sensor whose enrollment takes captures on real hardware (a provider): the engine asks it
/// for a new template after checking the passcode, and tells it which templates to forget.
/// Backends that do not conform enroll at once (the label is the template).
public protocol CapturingBackend: BiometricBackend {
    /// Captures a new template for `user` and returns its id. Calls `progress` after each
    /// capture. Cancelling the calling task cancels the enrollment (userCancel); other failures
    /// throw an error that says what to do.
    func capture(user: UInt32, label: String, progress: @escaping @Sendable (EnrollmentProgress) -> Void) async throws(LocalAuthError) -> String
    /// Forgets templates the user no longer has enrolled; failures are the backend's to log.
    func deleteTemplates(_ templates: [String], user: UInt32) async
}

/// One step of a capturing enrollment.
public struct EnrollmentProgress: Sendable, Hashable {
    public enum Status: String, Sendable, Hashable {
        /// One more capture taken.
        case stagePassed = "stage-passed"
        /// A capture could not be used; `detail` is the retry reason.
        case retry
    }

    public var status: Status
    public var completedStages: UInt32
    public var stages: UInt32
    /// For retry the reason (`too-short`, …); empty otherwise.
    public var detail: String

    public init(status: Status, completedStages: UInt32, stages: UInt32, detail: String) {
        self.status = status
        self.completedStages = completedStages
        self.stages = stages
        self.detail = detail
    }
}

/// One evaluation's claim on a sensor: whose templates to match and where to report.
public struct SensorSession: Sendable {
    public let id: UInt64
    public let user: UInt32
    /// The user's enrolled labels of the sensor's modality.
    public let enrolledLabels: [String]
    /// Label → provider template id, for labels enrolled through a ``CapturingBackend``.
    public let templates: [String: String]
    /// The user's require-attention setting (face sensors).
    public let requireAttention: Bool
    /// Hands an attempt to the engine. Returns false when the session is no longer armed, so
    /// the backend can keep the attempt for the next one.
    public let deliver: @Sendable (AttemptEvent) async -> Bool

    public init(id: UInt64, user: UInt32, enrolledLabels: [String], templates: [String: String] = [:], requireAttention: Bool,
                deliver: @escaping @Sendable (AttemptEvent) async -> Bool) {
        self.id = id
        self.user = user
        self.enrolledLabels = enrolledLabels
        self.templates = templates
        self.requireAttention = requireAttention
        self.deliver = deliver
    }
}
