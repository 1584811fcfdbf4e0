// SPDX-License-Identifier: Apache-2.0
/// One saved right as it is persisted in its user's file: who owns it, what it asks, and its
/// sealed key and secret (sealed for ``label(user:)``, so a blob moved to another right does not open).
public struct RightRecord: Sendable, Hashable, Codable {
    /// The identifier the application saved it under (``UserRights/validateIdentifier(_:)``).
    public var identifier: String
    /// The owning application's identity (``AppIdentity``), or ``RightRecord/loginKeyringApplication``.
    public var application: String
    /// The requirement's wire form (``AuthenticationRequirement``).
    public var requirement: String
    /// Random, new at every save: authorizations are bound to it, so a replaced right is not authorized.
    public var generation: UInt64
    /// Unix seconds of the save.
    public var created: UInt64
    /// X9.63 uncompressed P-256 public key (65 bytes).
    public var publicKey: [UInt8]
    /// The P-256 private key's 32-byte scalar, sealed for ``label(user:)``.
    public var sealedPrivateKey: [UInt8]
    /// The secret, sealed for ``label(user:)``; nil when saved without a secret.
    public var sealedSecret: [UInt8]?
    /// The user's biometric domain state at the save; only for requirements with `biometry-current-set`.
    public var domainState: [UInt8]?

    /// A record with these fields, as the engine makes it at a save or the store reads it.
    public init(identifier: String, application: String, requirement: String, generation: UInt64, created: UInt64,
                publicKey: [UInt8], sealedPrivateKey: [UInt8], sealedSecret: [UInt8]?, domainState: [UInt8]?) {
        self.identifier = identifier
        self.application = application
        self.requirement = requirement
        self.generation = generation
        self.created = created
        self.publicKey = publicKey
        self.sealedPrivateKey = sealedPrivateKey
        self.sealedSecret = sealedSecret
        self.domainState = domainState
    }

    /// The reserved application of the stored login password: no process identity has this form.
    public static let loginKeyringApplication = "localauthd:login-keyring"
    /// The identifier of the stored login password under ``loginKeyringApplication``.
    public static let loginPasswordIdentifier = "login-password"

    /// The authenticated data every blob of this right is sealed with:
    /// "localauthd-right-v1\0<uid>\0<application>\0<identifier>\0<generation>".
    public func label(user: UInt32) -> [UInt8] {
        Self.label(user: user, application: application, identifier: identifier, generation: generation)
    }

    /// The label of ``label(user:)`` for a right given by its parts.
    public static func label(user: UInt32, application: String, identifier: String, generation: UInt64) -> [UInt8] {
        Array("localauthd-right-v1\0\(user)\0\(application)\0\(identifier)\0\(generation)".utf8)
    }

    /// The parsed requirement; a record whose text no longer parses (edited by hand) asks for `default`.
    var parsedRequirement: AuthenticationRequirement {
        (try? AuthenticationRequirement(parsing: requirement)) ?? AuthenticationRequirement([.default])
    }

    /// Whether the right is bound to enrollments that have changed since its save.
    func isInvalidated(domainStateNow: [UInt8]) -> Bool {
        guard let domainState else { return false }
        return domainState != domainStateNow
    }
}
