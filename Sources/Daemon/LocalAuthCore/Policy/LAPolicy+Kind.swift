// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI

extension LAPolicy {
    /// Reads a policy from an untrusted number; any value but 1…5 is an invalid argument.
    public init(validating rawValue: Int) throws(LocalAuthError) {
        guard let policy = LAPolicy(rawValue: rawValue) else {
            throw LocalAuthError(.invalidArgument, LAPolicy.unknown(rawValue))
        }
        self = policy
    }

    /// What evaluating this policy means on this machine.
    public var kind: Kind {
        switch self {
        case .deviceOwnerAuthenticationWithBiometrics, .deviceOwnerAuthenticationWithBiometricsOrCompanion:
            return .biometricsOnly
        case .deviceOwnerAuthentication:
            return .biometricsOrPasscode
        case .deviceOwnerAuthenticationWithCompanion, .deviceOwnerAuthenticationWithWristDetection:
            return .companion
        }
    }

    public enum Kind: Sendable, Hashable {
        /// Policies 1 and 4: a biometric match, nothing else.
        case biometricsOnly
        /// Policy 2: a biometric match or the passcode.
        case biometricsOrPasscode
        /// Policies 3 and 5: need a companion device, which never exists here.
        case companion
    }
}
