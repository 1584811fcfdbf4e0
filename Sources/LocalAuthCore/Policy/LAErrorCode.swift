// SPDX-License-Identifier: Apache-2.0
/// LocalAuthentication's error codes, with Apple's raw values, plus one extension of ours.
public enum LAErrorCode: Int, Sendable, CaseIterable, Hashable {
    case authenticationFailed = -1
    case userCancel = -2
    case userFallback = -3
    case systemCancel = -4
    case passcodeNotSet = -5
    case biometryNotAvailable = -6
    case biometryNotEnrolled = -7
    case biometryLockout = -8
    case appCancel = -9
    case invalidContext = -10
    case companionNotAvailable = -11
    case notInteractive = -1004
    /// Our extension: too many wrong passcodes. Apple's codes lie in -1…-11 and -1000…-1099;
    /// ours start at -9000 so they can never collide.
    case passcodeLockout = -9001

    /// The error's name in logs, as on D-Bus (`BiometryLockout`): the case name, capitalized.
    public var name: String {
        let caseName = "\(self)"
        return caseName.prefix(1).uppercased() + caseName.dropFirst()
    }

    /// A sentence a user can act on.
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
        case .notInteractive: "Authentication needs interaction, which this context does not allow."
        case .passcodeLockout: "Too many wrong passcodes; wait before trying again."
        }
    }
}
