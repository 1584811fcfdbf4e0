// SPDX-License-Identifier: Apache-2.0
import Dispatch
import LocalAuthCore
import LocalAuthSystem
import Synchronization

/// Pings the service manager's watchdog every `interval`, from the queue that serves the bus
/// and through the engine, so a stuck bus loop or a stuck engine stops the pings.
final class WatchdogUnit: DaemonUnit {
    let name = "watchdog"
    private let interval: Duration
    private let queue: DispatchQueue
    private let status: @Sendable () async -> String
    private let timer = Mutex<TimerSlot>(TimerSlot())

    struct TimerSlot: @unchecked Sendable {
        // DispatchSource is thread-safe; the mutex guards the slot.
        var source: (any DispatchSourceTimer)?
    }

    init(interval: Duration, queue: DispatchQueue, status: @escaping @Sendable () async -> String) {
        self.interval = interval
        self.queue = queue
        self.status = status
    }

    func start() {
        let source = DispatchSource.makeTimerSource(queue: queue)
        let nanoseconds = Int(interval.components.seconds) * 1_000_000_000 + Int(interval.components.attoseconds / 1_000_000_000)
        source.schedule(deadline: .now(), repeating: .nanoseconds(nanoseconds), leeway: .milliseconds(10))
        let status = self.status
        source.setEventHandler {
            Task { ServiceManager.notify("WATCHDOG=1\nSTATUS=\(await status())") }
        }
        source.resume()
        timer.withLock { $0.source = source }
    }

    func shutdown() {
        timer.withLock { $0.source?.cancel() }
    }
}
