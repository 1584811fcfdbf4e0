// SPDX-License-Identifier: Apache-2.0
/// The errors of API v1 that are this project's own (`org.localauth.LocalAuthentication1.Error.<Name>`),
/// each with the LAError code it carries. The one table of these names: the daemon replies with
/// them, the CLI, the client module and the PAM module's header read them from here; every other
/// refusal uses the standard `org.freedesktop.DBus.Error` names.
public enum LocalAuthErrorName: String, CaseIterable, Sendable {
    case authenticationFailed = "AuthenticationFailed"
    case userCancel = "UserCancel"
    case userFallback = "UserFallback"
    case systemCancel = "SystemCancel"
    case passcodeNotSet = "PasscodeNotSet"
    case biometryNotAvailable = "BiometryNotAvailable"
    case biometryNotEnrolled = "BiometryNotEnrolled"
    case biometryLockout = "BiometryLockout"
    case appCancel = "AppCancel"
    case invalidContext = "InvalidContext"
    case companionNotAvailable = "CompanionNotAvailable"
    case notInteractive = "NotInteractive"
    case passcodeLockout = "PasscodeLockout"
    /// The context already evaluates; not an LAError (try again when it ends).
    case busy = "Busy"
    /// A button or passcode for a context that is not asking for one; not an LAError.
    case notEvaluating = "NotEvaluating"
    /// No such right for the caller's user and application (also when another app or user has
    /// one by that identifier: nothing is revealed); not an LAError.
    case rightNotFound = "RightNotFound"
    /// The right exists but the context has not authorized it (or its authorization ended); not an LAError.
    case rightNotAuthorized = "RightNotAuthorized"
    /// A `biometry-current-set` right whose enrollments changed since it was saved; not an LAError.
    case rightInvalidated = "RightInvalidated"

    /// The full D-Bus error name, `org.localauth.LocalAuthentication1.Error.BiometryLockout`.
    public var dbusName: String { LocalAuthBusNames.errorPrefix + rawValue }

    /// The error a D-Bus error name stands for, or nil for a name that is not one of ours.
    public init?(dbusName: String) {
        guard dbusName.hasPrefix(LocalAuthBusNames.errorPrefix) else { return nil }
        self.init(rawValue: String(dbusName.dropFirst(LocalAuthBusNames.errorPrefix.count)))
    }

    /// The error that carries this LAError code; nil for the macOS-only codes (-12…-14), which
    /// localauthd never produces.
    public init?(laErrorCode: LAErrorCode) {
        guard let name = Self.allCases.first(where: { $0.laErrorCode == laErrorCode }) else { return nil }
        self = name
    }

    /// The LAError code this error carries (`passcodeLockout` is this project's extension), or nil
    /// for `Busy`, `NotEvaluating` and the rights' errors, which are not LAErrors.
    public var laErrorCode: LAErrorCode? {
        switch self {
        case .authenticationFailed: .authenticationFailed
        case .userCancel: .userCancel
        case .userFallback: .userFallback
        case .systemCancel: .systemCancel
        case .passcodeNotSet: .passcodeNotSet
        case .biometryNotAvailable: .biometryNotAvailable
        case .biometryNotEnrolled: .biometryNotEnrolled
        case .biometryLockout: .biometryLockout
        case .appCancel: .appCancel
        case .invalidContext: .invalidContext
        case .companionNotAvailable: .companionNotAvailable
        case .notInteractive: .notInteractive
        case .passcodeLockout: .passcodeLockout
        case .busy, .notEvaluating, .rightNotFound, .rightNotAuthorized, .rightInvalidated: nil
        }
    }

    /// The signature of the data the error reply carries after its message, "" for none.
    /// `PasscodeLockout` carries `t`: when the next passcode try is allowed, in Unix seconds, or 0
    /// when only an administrator's reset (`localauth reset-lockout`) ends the lockout.
    public var detailsSignature: String {
        switch self {
        case .passcodeLockout: "t"
        default: ""
        }
    }

    /// The Swift spelling, as in `LAError.Code.biometryLockout`.
    public var swiftName: String { rawValue.prefix(1).lowercased() + rawValue.dropFirst() }
}
