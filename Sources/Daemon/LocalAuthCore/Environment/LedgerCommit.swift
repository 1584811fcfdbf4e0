// SPDX-License-Identifier: Apache-2.0
import Dispatch
import Synchronization

/// The outcome of one ``LedgerWriter`` submission: success once a durable write included it, the
/// write's error when that write failed. Completed once; the mutex owns the state.
public final class LedgerCommit: Sendable {
    public typealias Outcome = Result<Void, StateStoreError>

    private enum State {
        case pending([@Sendable (Outcome) -> Void])
        case done(Outcome)
    }

    private let state: Mutex<State>

    init() {
        state = Mutex(.pending([]))
    }

    /// A commit that is already complete (a store that writes synchronously).
    public init(completed outcome: Outcome) {
        state = Mutex(.done(outcome))
    }

    func complete(_ outcome: Outcome) {
        let waiters = state.withLock { state -> [@Sendable (Outcome) -> Void] in
            guard case .pending(let waiters) = state else { return [] }
            state = .done(outcome)
            return waiters
        }
        for waiter in waiters { waiter(outcome) }
    }

    /// Suspends (holding no thread) until the write that includes this submission ended.
    public func outcome() async -> Outcome {
        await withCheckedContinuation { (continuation: CheckedContinuation<Outcome, Never>) in
            whenDone { continuation.resume(returning: $0) }
        }
    }

    /// Blocks the calling thread until the write ended: only for rare paths that cannot suspend
    /// (the writer runs on its own thread, so this cannot wait for itself).
    public func outcomeBlocking() -> Outcome {
        let done = DispatchSemaphore(value: 0)
        whenDone { _ in done.signal() }
        done.wait()
        return state.withLock { state in
            guard case .done(let outcome) = state else { preconditionFailure("a waiter ran before its commit completed") }
            return outcome
        }
    }

    private func whenDone(_ waiter: @escaping @Sendable (Outcome) -> Void) {
        let finished = state.withLock { state -> Outcome? in
            switch state {
            case .done(let outcome): return outcome
            case .pending(var waiters):
                waiters.append(waiter)
                state = .pending(waiters)
                return nil
            }
        }
        if let finished { waiter(finished) }
    }
}
