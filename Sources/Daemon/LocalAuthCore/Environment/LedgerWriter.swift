// SPDX-License-Identifier: Apache-2.0
import Synchronization

/// Group commit of users' ledgers: ``submit(_:user:)`` records a user's newest ledger and returns
/// at once; a write on the store's writer (`schedule`, never the caller's thread) saves the newest
/// ledger of that user and completes every commit submitted before it started. Submissions that
/// arrive while a user's write runs share the next write, so concurrent failures of one user cost
/// one fsync, and the engine (and, in the daemon, the thread that reads the bus) is not held by the disk.
///
/// One write per user at a time, so a user's writes land in submission order; users' writes
/// take turns. The mutex owns the pending ledgers; `write` runs outside it.
public final class LedgerWriter: Sendable {
    public typealias Write = @Sendable (UserLedger, UInt32) throws(StateStoreError) -> Void
    public typealias Schedule = @Sendable (@escaping @Sendable () -> Void) -> Void

    private struct Batch {
        var ledger: UserLedger
        var commits: [LedgerCommit]
    }

    private struct State {
        /// The newest ledger of each user not yet handed to a write, with the commits it includes.
        var pending: [UInt32: Batch] = [:]
        /// Users with a write scheduled or running.
        var writing: Set<UInt32> = []
    }

    private let state = Mutex(State())
    private let write: Write
    private let schedule: Schedule

    /// - Parameters:
    ///   - write: saves one ledger durably (returns after the fsync); called on `schedule`'s thread.
    ///   - schedule: runs a drain of one user's pending ledgers off the caller's thread.
    public init(write: @escaping Write, schedule: @escaping Schedule) {
        self.write = write
        self.schedule = schedule
    }

    /// Records `ledger` as the user's newest and returns the commit that completes when a write
    /// including it (this ledger or a newer one) ended.
    public func submit(_ ledger: UserLedger, user: UInt32) -> LedgerCommit {
        let commit = LedgerCommit()
        let startsDrain = state.withLock { state in
            var batch = state.pending[user] ?? Batch(ledger: ledger, commits: [])
            batch.ledger = ledger
            batch.commits.append(commit)
            state.pending[user] = batch
            return state.writing.insert(user).inserted
        }
        if startsDrain { schedule { self.drain(user) } }
        return commit
    }

    /// Writes the user's pending batch, then schedules the next one behind other users' writes
    /// (a user who keeps failing cannot hold the writer).
    private func drain(_ user: UInt32) {
        guard let batch = state.withLock({ $0.pending.removeValue(forKey: user) }) else { return }
        let result: Result<Void, StateStoreError>
        do throws(StateStoreError) {
            try write(batch.ledger, user)
            result = .success(())
        } catch {
            result = .failure(error)
        }
        for commit in batch.commits { commit.complete(result) }
        let more = state.withLock { state in
            if state.pending[user] == nil { state.writing.remove(user) }
            return state.writing.contains(user)
        }
        if more { schedule { self.drain(user) } }
    }
}
