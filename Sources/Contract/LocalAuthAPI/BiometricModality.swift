// SPDX-License-Identifier: Apache-2.0
/// A kind of biometric sensor, by its wire name (the `modality` of `Manager.Enroll`, of
/// `GetUserState`'s enrollments and of `GetBackends`). One sensor of each kind exists at most.
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

    /// Ordered by name (the domain state hashes enrollments in this order); compared and hashed by
    /// case rather than by the raw-value string `RawRepresentable` would build: the engine looks
    /// modalities up ~60 times an evaluation.
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rank < rhs.rank }
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.rank == rhs.rank }
    public func hash(into hasher: inout Hasher) { hasher.combine(rank) }

    private var rank: UInt8 {
        switch self {
        case .face: 0
        case .fingerprint: 1
        }
    }
}
