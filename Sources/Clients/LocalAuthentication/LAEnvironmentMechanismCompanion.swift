// SPDX-License-Identifier: Apache-2.0
import Foundation

/// Apple's `LAEnvironment.MechanismCompanion`: a paired companion device. localauthd pairs none,
/// so no state lists one; declared so code written for Apple platforms builds.
open class LAEnvironmentMechanismCompanion: LAEnvironmentMechanism, @unchecked Sendable {
    private let companionType: LACompanionType

    init(type: LACompanionType) {
        companionType = type
        super.init(isUsable: false, localizedName: "Companion", iconSystemName: "applewatch")
    }

    /// The companion's kind.
    open var type: LACompanionType { companionType }

    /// nil: no companion is paired.
    open var stateHash: Data? { nil }
}
