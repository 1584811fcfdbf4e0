// SPDX-License-Identifier: Apache-2.0
import LocalAuthCore
import Synchronization

/// Per-user state in memory, with switches to make reads corrupt or writes fail.
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

    private let contents = Mutex(Contents())

    public init() {}

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

    public func loadProfile(user: UInt32) throws(StateStoreError) -> UserProfile? {
        try contents.withLock { (contents) throws(StateStoreError) in
            if contents.corruptProfiles.contains(user) { throw StateStoreError(.corrupt, "profile of \(user) is corrupt (test)") }
            return contents.profiles[user]
        }
    }

    public func saveProfile(_ profile: UserProfile, user: UInt32) throws(StateStoreError) {
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
