// SPDX-License-Identifier: Apache-2.0
import Foundation

/// Apple's `LAEnvironment.State`: a snapshot of how the user can authenticate, from localauthd's
/// `GetUserState` and `Backends`.
open class LAEnvironmentState: NSObject, @unchecked Sendable {
    let snapshot: EnvironmentSnapshot
    private let biometryMechanism: LAEnvironmentMechanismBiometry?
    private let passwordMechanism: LAEnvironmentMechanismUserPassword?

    init(_ snapshot: EnvironmentSnapshot) {
        self.snapshot = snapshot
        biometryMechanism = snapshot.biometry.map(LAEnvironmentMechanismBiometry.init)
        passwordMechanism = snapshot.passcodeSet.map(LAEnvironmentMechanismUserPassword.init(isSet:))
    }

    /// The biometry, nil when localauthd has no fingerprint or face sensor.
    open var biometry: LAEnvironmentMechanismBiometry? { biometryMechanism }

    /// The passcode, nil when localauthd could not be asked.
    open var userPassword: LAEnvironmentMechanismUserPassword? { passwordMechanism }

    /// Always empty: localauthd pairs no companions.
    open var companions: [LAEnvironmentMechanismCompanion] { [] }

    /// The biometry and the passcode, those that exist.
    open var allMechanisms: [LAEnvironmentMechanism] {
        [biometryMechanism, passwordMechanism].compactMap { $0 }
    }

    open override func isEqual(_ object: Any?) -> Bool {
        (object as? LAEnvironmentState)?.snapshot == snapshot
    }

    open override var hash: Int { snapshot.hashValue }
}
