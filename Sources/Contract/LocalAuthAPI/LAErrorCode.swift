// SPDX-License-Identifier: Apache-2.0
/// LocalAuthentication's error codes with Apple's names and raw values, plus `passcodeLockout`,
/// this project's extension. The client's `LAError.Code` is this type; the daemon's replies carry
/// them as ``LocalAuthErrorName``s.
public enum LAErrorCode: Int, Sendable, Hashable, CaseIterable {
    /// The user gave wrong credentials (attempts of this evaluation used up, or a wrong passcode).
    case authenticationFailed = -1
    /// The user cancelled.
    case userCancel = -2
    /// The user chose the fallback button of a biometrics-only evaluation.
    case userFallback = -3
    /// The system stopped the evaluation (timeout, daemon shutdown, a refused request).
    case systemCancel = -4
    /// No passcode is set.
    case passcodeNotSet = -5
    /// No biometric sensor is available (or localauthd is unreachable, for biometric policies).
    case biometryNotAvailable = -6
    /// No fingerprint or face is enrolled.
    case biometryNotEnrolled = -7
    /// Too many failed biometric attempts; the passcode unlocks biometry again.
    case biometryLockout = -8
    /// The app invalidated the context during the evaluation.
    case appCancel = -9
    /// The context was invalidated.
    case invalidContext = -10
    /// No companion device (watch) is available; always so on Linux.
    case companionNotAvailable = -11
    /// macOS only: no paired biometric accessory. Never produced here.
    case biometryNotPaired = -12
    /// macOS only: the biometric accessory is disconnected. Never produced here.
    case biometryDisconnected = -13
    /// macOS only: invalid UI dimensions. Never produced here.
    case invalidDimensions = -14
    /// `interactionNotAllowed` is set and the evaluation would need the user.
    case notInteractive = -1004
    /// localauthd's extension, not Apple's: the passcode is delayed after wrong attempts, or
    /// locked until an administrator resets it. Apple's codes lie in -1…-14 and -1000…-1099;
    /// ours start at -9000 so they can never collide.
    case passcodeLockout = -9001

    @available(*, deprecated, renamed: "biometryNotAvailable")
    public static var touchIDNotAvailable: LAErrorCode { .biometryNotAvailable }
    @available(*, deprecated, renamed: "biometryNotEnrolled")
    public static var touchIDNotEnrolled: LAErrorCode { .biometryNotEnrolled }
    @available(*, deprecated, renamed: "biometryLockout")
    public static var touchIDLockout: LAErrorCode { .biometryLockout }
    @available(*, deprecated, renamed: "companionNotAvailable")
    public static var watchNotAvailable: LAErrorCode { .companionNotAvailable }

    /// The error's name in logs, as on D-Bus (`BiometryLockout`): the case name, capitalized.
    public var name: String {
        let caseName = "\(self)"
        return caseName.prefix(1).uppercased() + caseName.dropFirst()
    }
}
