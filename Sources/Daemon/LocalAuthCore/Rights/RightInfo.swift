// SPDX-License-Identifier: Apache-2.0
/// A right as its owner is shown it (the `a{sv}` of SaveRight and GetRight); no sealed data.
public struct RightInfo: Sendable, Hashable {
    /// The identifier the application saved it under.
    public var identifier: String
    /// The owning application's identity (``AppIdentity``).
    public var application: String
    /// The requirement's wire form (``AuthenticationRequirement``).
    public var requirement: String
    /// Whether it was saved with a secret (`Context.LoadSecret`).
    public var hasSecret: Bool
    /// X9.63 uncompressed P-256 public key (65 bytes).
    public var publicKey: [UInt8]
    /// Unix seconds of the save.
    public var created: UInt64
    /// A `biometry-current-set` right whose enrollments changed: it no longer authorizes.
    public var invalidated: Bool

    /// A right with these fields, as ``RightInfo`` shows them.
    public init(identifier: String, application: String, requirement: String, hasSecret: Bool, publicKey: [UInt8],
                created: UInt64, invalidated: Bool) {
        self.identifier = identifier
        self.application = application
        self.requirement = requirement
        self.hasSecret = hasSecret
        self.publicKey = publicKey
        self.created = created
        self.invalidated = invalidated
    }

    init(_ record: RightRecord, domainStateNow: [UInt8]) {
        self.init(identifier: record.identifier, application: record.application, requirement: record.requirement,
                  hasSecret: record.sealedSecret != nil, publicKey: record.publicKey, created: record.created,
                  invalidated: record.isInvalidated(domainStateNow: domainStateNow))
    }
}
