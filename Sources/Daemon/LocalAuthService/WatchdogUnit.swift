// SPDX-License-Identifier: Apache-2.0
import Dispatch
import LocalAuthCore
import LocalAuthDBus
import LocalAuthSystem
import Synchronization

/// Pings the service manager's watchdog every `interval`, through the loop that serves the bus
/// and then the engine, so a stuck bus loop or a stuck engine stops the pings.
final class WatchdogUnit: DaemonUnit {
    /// Where the timer fires: a serial queue, never `.global()` (docs/architecture.md, "Threads").
    private static let queue = DispatchQueue(label: "localauthd.watchdog")
    let name = "watchdog"
    private let interval: Duration
    private let loop: DBusEventLoop
    private let status: @Sendable () async -> String
    private let timer = Mutex<TimerSlot>(TimerSlot())

    struct TimerSlot: @unchecked Sendable {
        // DispatchSource is thread-safe; the mutex guards the slot.
        var source: (any DispatchSourceTimer)?
    }

    init(interval: Duration, loop: DBusEventLoop, status: @escaping @Sendable () async -> String) {
        self.interval = interval
        self.loop = loop
        self.status = status
    }

    func start() {
        let source = DispatchSource.makeTimerSource(queue: Self.queue)
        let nanoseconds = Int(interval.components.seconds) * 1_000_000_000 + Int(interval.components.attoseconds / 1_000_000_000)
        source.schedule(deadline: .now(), repeating: .nanoseconds(nanoseconds), leeway: .milliseconds(10))
        let (status, loop) = (self.status, self.loop)
        source.setEventHandler {
            loop.async { Task { ServiceManager.notify("WATCHDOG=1\nSTATUS=\(await status())") } }
        }
        source.resume()
        timer.withLock { $0.source = source }
    }

    func shutdown() {
        timer.withLock { $0.source?.cancel() }
    }
}
