// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthAPI

/// What an ``LAEnvironmentState`` shows, compared to tell observers of changes.
struct EnvironmentSnapshot: Hashable, Sendable {
    struct Biometry: Hashable, Sendable {
        var type: LABiometryType
        var isEnrolled: Bool
        var isLockedOut: Bool
        var sensorInaccessible: Bool
        var stateHash: Data?
        var isUsable: Bool { isEnrolled && !isLockedOut && !sensorInaccessible }
    }

    var biometry: Biometry?
    /// nil when localauthd could not be asked.
    var passcodeSet: Bool?

    static let unknown = EnvironmentSnapshot(biometry: nil, passcodeSet: nil)
}
