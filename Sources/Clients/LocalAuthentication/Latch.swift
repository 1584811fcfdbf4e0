// SPDX-License-Identifier: Apache-2.0
import Synchronization

/// A one-way gate: `wait` returns once `open` was called, or after its bound.
final class Latch: Sendable {
    private struct State {
        var isOpen = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }
    private let state = Mutex(State())

    func open() {
        let waiters = state.withLock { state in
            state.isOpen = true
            defer { state.waiters = [] }
            return state.waiters
        }
        waiters.forEach { $0.resume() }
    }

    /// Waits for `open`, at most `bound`; after the bound the latch stays open. For one waiter.
    func wait(atMost bound: Duration) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                await withCheckedContinuation { continuation in
                    let resumeNow = self.state.withLock { state in
                        if !state.isOpen { state.waiters.append(continuation) }
                        return state.isOpen
                    }
                    if resumeNow { continuation.resume() }
                }
            }
            group.addTask { try? await Task.sleep(for: bound) }
            await group.next()
            group.cancelAll()
            // The sleeping child ends on cancellation; a still-waiting one must be let out.
            self.open()
        }
    }
}
