// SPDX-License-Identifier: Apache-2.0
/// A user's state as the engine caches it.
struct UserRecord: Sendable, Hashable {
    var profile: UserProfile
    var ledger: UserLedger
    /// The stored profile could not be read: every check fails closed until an administrator reset.
    var profileDamaged = false
    /// The last save of the ledger failed: the in-memory counts are in force, and the user's
    /// attempts are refused until a save succeeds (see ``PolicyEngine/requireSavedLedger(of:)``).
    var ledgerUnsaved = false
}

/// A user's state as `GetUserState` reports it.
public struct UserState: Sendable, Hashable {
    public var passcodeSet: Bool
    public var enrollments: [Enrollment]
    public var biometryFailures: Int
    public var biometryLockedOut: Bool
    public var passcodeFailures: Int
    /// nil when a passcode may be tried now.
    public var passcodeRetryAfter: UnixTime?
    public var passcodeLockedOut: Bool
    public var requireAttention: Bool
    /// A login password is stored for the login keyring (GetUserState's LoginPasswordStored).
    public var loginPasswordStored: Bool
}

/// One backend as `Backends` reports it.
public struct BackendStatus: Sendable, Hashable {
    public var id: String
    /// `fingerprint`, `face` or `passcode`.
    public var modality: String
    public var available: Bool
    /// nil for the passcode backend.
    public var detail: BackendDetail?

    public init(id: String, modality: String, available: Bool, detail: BackendDetail? = nil) {
        self.id = id
        self.modality = modality
        self.available = available
        self.detail = detail
    }
}

/// Where a biometric backend runs and how it is doing, for `Backends`.
public struct BackendDetail: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable {
        /// Compiled into the daemon and real (the passcode).
        case builtIn = "built-in"
        /// Compiled into the daemon and simulated: no sensor behind it, inputs come from
        /// `localauth sim`. Offered only when `backends` names it.
        case simulator
        /// A separate process behind the provider protocol.
        case provider
    }

    public var kind: Kind
    /// The provider software's version; empty for built-ins and simulators.
    public var version: String
    /// A word or two: `available`, `disconnected`, `starting`, `unavailable`, `failed: …`.
    public var state: String
    public var description: String

    public init(kind: Kind, version: String, state: String, description: String) {
        self.kind = kind
        self.version = version
        self.state = state
        self.description = description
    }
}

/// A settable context property.
public enum ContextOptionChange: Sendable, Hashable {
    case localizedFallbackTitle(String)
    case localizedCancelTitle(String)
    case interactionNotAllowed(Bool)
    case allowableReuseDuration(Double)
}
