// SPDX-License-Identifier: Apache-2.0
import Dispatch
import LocalAuthCore
import Synchronization

/// Bus activation: stops the daemon when no client has held a context and no agent has been
/// registered for `idleExit` seconds (state is on disk; see ``PolicyEngine/isIdle``).
final class IdleExitUnit: DaemonUnit {
    let name = "idle exit"
    private let idleExit: Double
    private let engine: PolicyEngine
    private let emit: @Sendable (DaemonEvent) -> Void
    /// The timer, and since when (uptime nanoseconds) the engine has been idle; the mutex guards both.
    private let state = Mutex<TimerState>(TimerState())
    private let queue = DispatchQueue(label: "localauthd.idle-exit")

    struct TimerState: @unchecked Sendable {
        // DispatchSource is thread-safe; the mutex guards the slot.
        var source: (any DispatchSourceTimer)?
        var idleSince: UInt64?
    }

    init(idleExit: Double, engine: PolicyEngine, emit: @escaping @Sendable (DaemonEvent) -> Void) {
        self.idleExit = idleExit
        self.engine = engine
        self.emit = emit
    }

    func start() {
        let source = DispatchSource.makeTimerSource(queue: queue)
        source.schedule(deadline: .now() + .seconds(1), repeating: .milliseconds(Int(min(idleExit, 5) * 1000)))
        source.setEventHandler { [weak self] in
            guard let self else { return }
            Task { await self.check() }
        }
        source.resume()
        state.withLock { $0.source = source }
    }

    private func check() async {
        let now = DispatchTime.now().uptimeNanoseconds
        let idle = await engine.isIdle
        let since = state.withLock { state -> UInt64? in
            guard idle else { state.idleSince = nil; return nil }
            let since = state.idleSince ?? now
            state.idleSince = since
            return since
        }
        if let since, Double(now - since) / 1e9 >= idleExit { emit(.stop(reason: "idle for \(Int(idleExit)) s")) }
    }

    func shutdown() {
        state.withLock { $0.source?.cancel() }
    }
}
