// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI
import LocalAuthDBus

/// A right as the daemon describes it (`Rights.SaveRight`, `Rights.GetRight`; ``LocalAuthRightKey``).
struct RightDescription: Sendable {
    let identifier: String
    let requirement: String
    /// X9.63, 65 bytes.
    let publicKey: [UInt8]

    init(_ values: [String: DBusValue]) throws {
        func value(_ key: LocalAuthRightKey) -> DBusValue? { values[key.rawValue] }
        guard let identifier = value(.identifier)?.string, let requirement = value(.requirement)?.string,
              let publicKey = value(.publicKey)?.bytes
        else {
            throw LAError(.systemCancel, message: "localauthd described a right without its identifier, requirement or public key.")
        }
        self.identifier = identifier
        self.requirement = requirement
        self.publicKey = publicKey
    }
}
