// SPDX-License-Identifier: Apache-2.0
import Foundation

/// Apple's `LAEnvironment.Mechanism`: one way the user can authenticate, as of the state it is
/// part of (a snapshot).
open class LAEnvironmentMechanism: NSObject, @unchecked Sendable {
    private let usable: Bool
    private let name: String
    private let symbol: String

    init(isUsable: Bool, localizedName: String, iconSystemName: String) {
        usable = isUsable
        name = localizedName
        symbol = iconSystemName
    }

    /// Whether it can authenticate the user now.
    open var isUsable: Bool { usable }

    /// Its name for people ("Face ID", "Touch ID", "Passcode").
    open var localizedName: String { name }

    /// Apple's SF Symbol name for it (`faceid`, `touchid`, `lock`).
    open var iconSystemName: String { symbol }
}
