// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI

extension LAErrorCode {
    /// A sentence a user can act on: the daemon's message when nothing more specific is known.
    public var defaultMessage: String {
        switch self {
        case .authenticationFailed: "Authentication failed: the credentials were not recognized."
        case .userCancel: "The user cancelled the authentication."
        case .userFallback: "The user chose the fallback option."
        case .systemCancel: "The system cancelled the authentication (timeout or service shutdown); try again."
        case .passcodeNotSet: "No passcode is set for this user; set one first (localauth passcode set)."
        case .biometryNotAvailable: "No biometric sensor is available."
        case .biometryNotEnrolled: "No fingerprint or face is enrolled; enroll one first (localauth enroll fingerprint right-index-finger)."
        case .biometryLockout: "Biometry is locked after too many failed attempts; enter your passcode to unlock it."
        case .appCancel: "The application cancelled the authentication."
        case .invalidContext: "This context has been invalidated; create a new one."
        case .companionNotAvailable: "No companion device is available on this system."
        case .biometryNotPaired: "No biometric accessory is paired."
        case .biometryDisconnected: "The biometric accessory is disconnected."
        case .invalidDimensions: "Invalid dimensions."
        case .notInteractive: "Authentication needs interaction, which this context does not allow."
        case .passcodeLockout: "Too many wrong passcodes; wait before trying again."
        }
    }
}
