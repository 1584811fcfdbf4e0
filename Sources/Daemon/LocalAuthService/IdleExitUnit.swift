// SPDX-License-Identifier: Apache-2.0
import Dispatch
import LocalAuthCore
import Synchronization

/// Bus activation: stops the daemon when no client has held a context and no agent has been
/// registered for `idleExit` seconds (state is on disk; see ``PolicyEngine/isIdle``).
///
/// One timer, re-armed by each check rather than repeating, so an idle daemon is not woken in
/// between: it first looks a second after the start; while the engine is busy it looks again
/// every ``busyRecheck`` (at most), once idle it looks once more when `idleExit` seconds of
/// idleness are up and stops if still idle. The
/// engine is sampled, not followed: a client that came and went between two checks is not seen.
final class IdleExitUnit: DaemonUnit {
    let name = "idle exit"
    /// How often a busy daemon looks whether it became idle.
    static let busyRecheck = 5.0
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
        source.schedule(deadline: .now() + .seconds(1))
        source.setEventHandler { [weak self] in
            guard let self else { return }
            Task { await self.check() }
        }
        state.withLock { $0.source = source }
        source.resume()
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
        let idleFor = since.map { Double(now - $0) / 1e9 } ?? 0
        if since != nil, idleFor >= idleExit {
            emit(.stop(reason: "idle for \(Int(idleExit)) s"))
            return
        }
        let next = since == nil ? min(idleExit, Self.busyRecheck) : idleExit - idleFor
        state.withLock { $0.source?.schedule(deadline: .now() + .milliseconds(Int((next * 1000).rounded(.up)))) }
    }

    func shutdown() {
        state.withLock { $0.source?.cancel() }
    }
}
