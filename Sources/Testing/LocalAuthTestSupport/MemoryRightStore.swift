// SPDX-License-Identifier: Apache-2.0
import Dispatch
import Synchronization
import LocalAuthCore

/// Rights kept in memory, shared between engines to simulate a restart; saves can be made to fail
/// and a user's file made unreadable, to test the engine's failure paths.
public final class MemoryRightStore: RightStore {
    private struct State {
        var rights: [UInt32: [RightRecord]] = [:]
        var failSaves = false
        var unreadable: Set<UInt32> = []
        var saves = 0
        var held = false
        var waiting = 0
    }
    private let state = Mutex(State())
    private let gate = DispatchSemaphore(value: 0)

    public init() {}

    public func loadRights(user: UInt32) throws(StateStoreError) -> [RightRecord] {
        let (unreadable, rights) = state.withLock { ($0.unreadable.contains(user), $0.rights[user] ?? []) }
        if unreadable { throw StateStoreError(.corrupt, "rights of uid \(user) made unreadable by the test") }
        return rights
    }

    public func saveRights(_ rights: [RightRecord], user: UInt32) throws(StateStoreError) {
        let held = state.withLock { state in
            if state.held { state.waiting += 1 }
            return state.held
        }
        if held { gate.wait() }
        let failed = state.withLock { state in
            guard !state.failSaves else { return true }
            state.rights[user] = rights
            state.unreadable.remove(user)
            state.saves += 1
            return false
        }
        if failed { throw StateStoreError(.io, "saves made to fail by the test") }
    }

    /// What is stored for `user` now.
    public func stored(user: UInt32) -> [RightRecord] {
        state.withLock { $0.rights[user] ?? [] }
    }

    /// Successful saves so far.
    public var saves: Int { state.withLock { $0.saves } }

    /// While true, every save fails with an I/O error.
    public func setFailSaves(_ fail: Bool) {
        state.withLock { $0.failSaves = fail }
    }

    /// Saves from now on block (on the thread that saves) until ``releaseSaves()``.
    public func holdSaves() {
        state.withLock { $0.held = true }
    }

    /// Saves blocked by ``holdSaves()`` so far.
    public var heldSaves: Int { state.withLock { $0.waiting } }

    /// Lets the held saves go on, and later ones run at once.
    public func releaseSaves() {
        let waiting = state.withLock { state in
            state.held = false
            defer { state.waiting = 0 }
            return state.waiting
        }
        for _ in 0..<waiting { gate.signal() }
    }

    /// Makes loading `user`'s rights fail, as an unreadable file does.
    public func makeUnreadable(user: UInt32) {
        state.withLock { _ = $0.unreadable.insert(user) }
    }
}
