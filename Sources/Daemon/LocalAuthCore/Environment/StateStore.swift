// SPDX-License-Identifier: Apache-2.0
/// Where per-user state lives between runs. Saves are durable when they return (the engine
/// reports an outcome only after the save that records it).
public protocol StateStore: Sendable {
    /// nil when the user has no ledger yet (a fresh user).
    func loadLedger(user: UInt32) throws(StateStoreError) -> UserLedger?
    /// Writes the ledger at once on the calling thread. The engine does not call it: it goes
    /// through ``submitLedger(_:user:)``, whose writes are ordered with each other.
    func saveLedger(_ ledger: UserLedger, user: UInt32) throws(StateStoreError)
    /// Hands the user's newest ledger to the store's writer and returns at once (the engine
    /// submits in the order it changes ledgers); the commit completes when a durable write
    /// that includes it ended. Submissions while a write runs may share the next one (a
    /// ``LedgerWriter``).
    func submitLedger(_ ledger: UserLedger, user: UInt32) -> LedgerCommit
    /// nil when the user has no profile yet.
    func loadProfile(user: UInt32) throws(StateStoreError) -> UserProfile?
    func saveProfile(_ profile: UserProfile, user: UInt32) throws(StateStoreError)
    /// Moves an unreadable profile out of the way (kept for inspection) so the user can start afresh.
    func quarantineProfile(user: UInt32) throws(StateStoreError)
}

public struct StateStoreError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        /// The file exists but its content is not valid state.
        case corrupt
        /// The file could not be read or written (permissions, disk full, I/O error).
        case io
    }

    public let kind: Kind
    public let message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}
