// SPDX-License-Identifier: Apache-2.0
/// A kind of biometric sensor. One sensor of each kind exists at most.
public enum BiometricModality: String, Sendable, Codable, CaseIterable, Hashable, Comparable {
    case fingerprint
    case face

    /// The biometry type a context reports for this hardware.
    public var biometryType: LABiometryType {
        switch self {
        case .fingerprint: .touchID
        case .face: .faceID
        }
    }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}
