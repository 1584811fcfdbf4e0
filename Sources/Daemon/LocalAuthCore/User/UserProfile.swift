// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI

/// What a user has set up: passcode hash, enrollments, settings. Persisted apart from the
/// ledger, so an administrator's lockout reset never touches the passcode.
public struct UserProfile: Codable, Sendable, Hashable {
    /// An Argon2id hash string (`$argon2id$…`); never the passcode.
    public var passcodeHash: String?
    public var enrollments: [Enrollment] = []
    /// A face that is not looking at the screen does not match (Apple's default: on).
    public var requireAttention = true
    /// Counts every change of `enrollments` (enroll, re-enroll, unenroll, removal), so the
    /// evaluated policy domain state changes with each one, even back to an earlier set.
    public private(set) var enrollmentGeneration: UInt64 = 0

    public init() {}

    public var hasPasscode: Bool { passcodeHash != nil }

    /// Whether anything of `modality` is enrolled; with `label`, whether that is.
    public func isEnrolled(_ modality: BiometricModality, label: String? = nil) -> Bool {
        enrollments.contains { $0.modality == modality && (label == nil || $0.label == label) }
    }

    public func labels(of modality: BiometricModality) -> [String] {
        enrollments.filter { $0.modality == modality }.map(\.label)
    }

    /// The provider template ids behind the labels of `modality` (labels without one are left out).
    public func templates(of modality: BiometricModality) -> [String: String] {
        var result = [String: String]()
        for enrollment in enrollments where enrollment.modality == modality {
            if let template = enrollment.template { result[enrollment.label] = template }
        }
        return result
    }

    /// Adds `label`; enrolling a label again replaces its template (a re-enroll).
    public mutating func enroll(_ modality: BiometricModality, label: String, template: String? = nil) {
        enrollments.removeAll { $0.modality == modality && $0.label == label }
        enrollments.append(Enrollment(modality: modality, label: label, template: template))
        enrollmentGeneration += 1
    }

    public mutating func unenroll(_ modality: BiometricModality, labels: Set<String>) {
        enrollments.removeAll { $0.modality == modality && labels.contains($0.label) }
        enrollmentGeneration += 1
    }

    public mutating func removeAllEnrollments() {
        enrollments = []
        enrollmentGeneration += 1
    }
}
