// SPDX-License-Identifier: Apache-2.0
/// The keys of a right as `Rights.SaveRight` and `Rights.GetRight` return it (`a{sv}`), each with
/// its value's signature: the daemon encodes them, clients decode them, the contract test checks
/// the Rights contract file documents them.
public enum LocalAuthRightKey: String, CaseIterable, Sendable {
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

    public var signature: String {
        switch self {
        case .identifier, .application, .requirement: "s"
        case .hasSecret, .invalidated: "b"
        case .publicKey: "ay"
        case .created: "t"
        }
    }
}

/// The keys of `Context.ExchangeKeys`'s parameters (`a{sv}`), each with its value's signature;
/// both only for the X9.63 KDF algorithms.
public enum LocalAuthExchangeKeysParameter: String, CaseIterable, Sendable {
    /// The number of bytes the KDF derives (1…1024); required with a KDF algorithm.
    case requestedSize = "RequestedSize"
    /// The KDF's shared info; empty when absent.
    case sharedInfo = "SharedInfo"

    public var signature: String {
        switch self {
        case .requestedSize: "u"
        case .sharedInfo: "ay"
        }
    }
}

/// The keys of the options of `Context.EvaluateRequirement` and `Context.CanEvaluateRequirement` (`a{sv}`).
public enum LocalAuthRequirementOption: String, CaseIterable, Sendable {
    /// The biometric domain state the requirement's `biometry-current-set` term was made with
    /// (`EvaluatedPolicyDomainState` of an earlier evaluation): it fails with `RightInvalidated`
    /// when the user's enrollments differ now.
    case domainState = "DomainState"

    public var signature: String {
        switch self {
        case .domainState: "ay"
        }
    }
}
