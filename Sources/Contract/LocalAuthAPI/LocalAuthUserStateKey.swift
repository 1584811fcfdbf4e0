// SPDX-License-Identifier: Apache-2.0
/// The keys of `Manager.GetUserState` and `UserStateChanged` (`a{sv}`), each with its value's
/// D-Bus signature: the one list the daemon encodes, clients decode and the contract test checks.
public enum LocalAuthUserStateKey: String, CaseIterable, Sendable {
    case passcodeSet = "PasscodeSet"
    /// `(modality, label)` pairs.
    case enrollments = "Enrollments"
    case biometryFailures = "BiometryFailures"
    case biometryLockedOut = "BiometryLockedOut"
    case passcodeFailures = "PasscodeFailures"
    /// Unix seconds; 0 when no delay runs.
    case passcodeRetryAfter = "PasscodeRetryAfter"
    case passcodeLockedOut = "PasscodeLockedOut"
    case requireAttention = "RequireAttention"
    /// Whether a login password is stored for the login keyring (`Rights.StoreLoginPassword`).
    case loginPasswordStored = "LoginPasswordStored"

    /// The D-Bus signature of the key's value.
    public var signature: String {
        switch self {
        case .passcodeSet, .biometryLockedOut, .passcodeLockedOut, .requireAttention, .loginPasswordStored: "b"
        case .enrollments: "a(ss)"
        case .biometryFailures, .passcodeFailures: "u"
        case .passcodeRetryAfter: "t"
        }
    }
}
