// SPDX-License-Identifier: Apache-2.0
/// The keys of a right as `Rights.SaveRight` and `Rights.GetRight` return it (`a{sv}`), each with
/// its value's signature: the daemon encodes them, clients decode them, the contract test checks
/// the Rights contract file documents them.
public enum LocalAuthRightKey: String, CaseIterable, Sendable {
    /// The identifier the application saved the right under.
    case identifier = "Identifier"
    /// The application identity that owns the right (`flatpak:…`, `snap:…` or an executable path).
    case application = "Application"
    /// The requirement expression (`default`, `biometry or passcode`, …).
    case requirement = "Requirement"
    /// Whether the right was saved with a secret (`Context.LoadSecret`).
    case hasSecret = "HasSecret"
    /// The right's P-256 public key, X9.63 (65 bytes, 04‖X‖Y).
    case publicKey = "PublicKey"
    /// When it was saved, in Unix seconds.
    case created = "Created"
    /// A `biometry-current-set` right whose enrollments changed: it can no longer be authorized.
    case invalidated = "Invalidated"

    /// The D-Bus signature of the value under this key.
    public var signature: String {
        switch self {
        case .identifier, .application, .requirement: "s"
        case .hasSecret, .invalidated: "b"
        case .publicKey: "ay"
        case .created: "t"
        }
    }
}
