// SPDX-License-Identifier: Apache-2.0
import Foundation

/// Apple's `LAEnvironment.MechanismUserPassword`: the user's localauthd passcode.
open class LAEnvironmentMechanismUserPassword: LAEnvironmentMechanism, @unchecked Sendable {
    private let passcodeSet: Bool

    init(isSet: Bool) {
        passcodeSet = isSet
        super.init(isUsable: isSet, localizedName: "Passcode", iconSystemName: "lock")
    }

    /// Whether the user has set a passcode.
    open var isSet: Bool { passcodeSet }
}
