// SPDX-License-Identifier: Apache-2.0
/// Computes `evaluatedPolicyDomainState`: 32 bytes that change whenever a user's biometric
/// enrollments change, keyed with a per-installation secret so the value reveals nothing. A pure
/// function of the user and the profile: the engine keeps the result until the profile changes.
public protocol DomainStateHasher: Sendable {
    func domainState(user: UInt32, profile: UserProfile) -> [UInt8]
}

extension DomainStateHasher {
    /// The canonical bytes the hash covers: the user, the enrollment generation and every
    /// enrollment's modality and label in a fixed order, length-prefixed so no two states collide.
    public static func canonicalInput(user: UInt32, profile: UserProfile) -> [UInt8] {
        var bytes = withUnsafeBytes(of: user.littleEndian, Array.init)
        bytes += withUnsafeBytes(of: profile.enrollmentGeneration.littleEndian, Array.init)
        let ordered = profile.enrollments.sorted { ($0.modality, $0.label) < ($1.modality, $1.label) }
        for enrollment in ordered {
            for field in [enrollment.modality.rawValue, enrollment.label] {
                bytes += withUnsafeBytes(of: UInt32(field.utf8.count).littleEndian, Array.init)
                bytes += field.utf8
            }
        }
        return bytes
    }
}
