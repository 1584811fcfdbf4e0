// SPDX-License-Identifier: Apache-2.0
import Dispatch
import LocalAuthCore
import Synchronization

/// Per-user state in memory, with switches to make reads corrupt or writes fail, and gates that
/// hold submitted ledger writes (``holdLedgerWrites()``) and profile saves (``holdProfileSaves()``)
/// as a slow disk would.
///
/// Submitted ledgers are written by a ``LedgerWriter`` on the store's own queue, as
/// `FileStateStore` does. The mutexes own every piece of state.
public final class MemoryStateStore: StateStore {
    private struct Contents {
        var ledgers: [UInt32: UserLedger] = [:]
        var profiles: [UInt32: UserProfile] = [:]
        var corruptLedgers: Set<UInt32> = []
        var corruptProfiles: Set<UInt32> = []
        var quarantined: Set<UInt32> = []
        var failWrites = false
        var ledgerWrites = 0
    }

    /// Work held while `holding`, oldest first, and let go in that order by ``release()``.
    private struct Gate {
        var holding = false
        var held: [@Sendable () -> Void] = []

        /// Holds `work` and returns false while holding; true otherwise (the caller runs it now).
        mutating func admit(_ work: @escaping @Sendable () -> Void) -> Bool {
            if holding { held.append(work) }
            return !holding
        }

        /// Stops holding; returns what was held.
        mutating func release() -> [@Sendable () -> Void] {
            holding = false
            defer { held = [] }
            return held
        }
    }

    private let contents = Mutex(Contents())
    /// Holds the ledger writer's drains (``holdLedgerWrites()``).
    private let gate = Mutex(Gate())
    /// Holds profile saves, each its thread's wake-up (``holdProfileSaves()``).
    private let profileGate = Mutex(Gate())
    private let queue = DispatchQueue(label: "MemoryStateStore.ledger-writer")
    private let writer = Mutex<LedgerWriter?>(nil)

    public init() {
        let writer = LedgerWriter(
            write: { [weak self] ledger, user throws(StateStoreError) in try self?.saveLedger(ledger, user: user) },
            schedule: { [weak self] drain in self?.scheduleDrain(drain) })
        self.writer.withLock { $0 = writer }
    }

    public func ledger(of user: UInt32) -> UserLedger? { contents.withLock { $0.ledgers[user] } }
    public func profile(of user: UInt32) -> UserProfile? { contents.withLock { $0.profiles[user] } }
    public var ledgerWrites: Int { contents.withLock { $0.ledgerWrites } }
    public func wasQuarantined(_ user: UInt32) -> Bool { contents.withLock { $0.quarantined.contains(user) } }

    public func markLedgerCorrupt(_ user: UInt32) { contents.withLock { _ = $0.corruptLedgers.insert(user) } }
    public func markProfileCorrupt(_ user: UInt32) { contents.withLock { _ = $0.corruptProfiles.insert(user) } }
    public func setFailWrites(_ fail: Bool) { contents.withLock { $0.failWrites = fail } }

    public func loadLedger(user: UInt32) throws(StateStoreError) -> UserLedger? {
        try contents.withLock { (contents) throws(StateStoreError) in
            if contents.corruptLedgers.contains(user) { throw StateStoreError(.corrupt, "ledger of \(user) is corrupt (test)") }
            return contents.ledgers[user]
        }
    }

    public func saveLedger(_ ledger: UserLedger, user: UInt32) throws(StateStoreError) {
        try contents.withLock { (contents) throws(StateStoreError) in
            if contents.failWrites { throw StateStoreError(.io, "disk full (test)") }
            contents.ledgers[user] = ledger
            contents.corruptLedgers.remove(user)
            contents.ledgerWrites += 1
        }
    }

    public func submitLedger(_ ledger: UserLedger, user: UInt32) -> LedgerCommit {
        // Set in init; the optional only breaks the store -> writer -> store cycle at init time.
        guard let writer = writer.withLock({ $0 }) else { preconditionFailure("MemoryStateStore has no writer") }
        return writer.submit(ledger, user: user)
    }

    /// From now on a write of submitted ledgers waits (not started) until ``releaseLedgerWrites()``.
    public func holdLedgerWrites() {
        gate.withLock { $0.holding = true }
    }

    /// Starts every held write, and later ones at once.
    public func releaseLedgerWrites() {
        for drain in gate.withLock({ $0.release() }) { queue.async(execute: drain) }
    }

    /// Writes waiting at the gate now.
    public var heldLedgerWrites: Int { gate.withLock { $0.held.count } }

    private func scheduleDrain(_ drain: @escaping @Sendable () -> Void) {
        if gate.withLock({ $0.admit(drain) }) { queue.async(execute: drain) }
    }

    public func loadProfile(user: UInt32) throws(StateStoreError) -> UserProfile? {
        try contents.withLock { (contents) throws(StateStoreError) in
            if contents.corruptProfiles.contains(user) { throw StateStoreError(.corrupt, "profile of \(user) is corrupt (test)") }
            return contents.profiles[user]
        }
    }

    /// From now on a profile save blocks its thread until ``releaseProfileSaves()``.
    public func holdProfileSaves() {
        profileGate.withLock { $0.holding = true }
    }

    /// Lets every held profile save go on, and later ones at once.
    public func releaseProfileSaves() {
        for wake in profileGate.withLock({ $0.release() }) { wake() }
    }

    /// Profile saves blocked at the gate now.
    public var heldProfileSaves: Int { profileGate.withLock { $0.held.count } }

    public func saveProfile(_ profile: UserProfile, user: UInt32) throws(StateStoreError) {
        let blocked = DispatchSemaphore(value: 0)
        if !profileGate.withLock({ $0.admit { blocked.signal() } }) { blocked.wait() }
        try contents.withLock { (contents) throws(StateStoreError) in
            if contents.failWrites { throw StateStoreError(.io, "disk full (test)") }
            contents.profiles[user] = profile
        }
    }

    public func quarantineProfile(user: UInt32) throws(StateStoreError) {
        contents.withLock { contents in
            contents.corruptProfiles.remove(user)
            contents.profiles[user] = nil
            contents.quarantined.insert(user)
        }
    }
}
