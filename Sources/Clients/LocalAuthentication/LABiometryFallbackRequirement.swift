// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthAPI

/// Apple's fallback for `LAAuthenticationRequirement.biometry(fallback:)`.
public class LABiometryFallbackRequirement: NSObject, @unchecked Sendable {
    /// The requirement term it adds.
    let term: RequirementTerm

    required init(term: RequirementTerm) {
        self.term = term
    }

    /// The default fallback: the device passcode.
    public class var `default`: LABiometryFallbackRequirement { Self(term: .passcode) }

    /// The device passcode.
    public class var devicePasscode: LABiometryFallbackRequirement { Self(term: .passcode) }

    public override func isEqual(_ object: Any?) -> Bool {
        (object as? LABiometryFallbackRequirement)?.term == term
    }

    public override var hash: Int { term.hashValue }
}
