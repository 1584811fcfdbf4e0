// SPDX-License-Identifier: Apache-2.0
import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// SIGTERM and SIGINT stop the daemon, SIGHUP reloads it: turned into ``DaemonEvent``s. Started
/// first, so a signal during start-up waits in the event stream instead of killing the daemon.
final class SignalUnit: DaemonUnit {
    /// Where signals are delivered: a serial queue, never `.global()` (docs/architecture.md, "Threads").
    private static let queue = DispatchQueue(label: "localauthd.signals")
    let name = "signals"
    private let emit: @Sendable (DaemonEvent) -> Void
    /// Made by `start`, read by `shutdown`; the daemon calls them in order, never at once.
    private nonisolated(unsafe) var sources: [any DispatchSourceSignal] = []

    init(emit: @escaping @Sendable (DaemonEvent) -> Void) {
        self.emit = emit
    }

    func start() {
        // Ignore the default actions so DispatchSource can deliver the signals as events.
        for signalNumber in [SIGTERM, SIGINT, SIGHUP, SIGPIPE] { signal(signalNumber, SIG_IGN) }
        let emit = self.emit
        sources = [(SIGTERM, DaemonEvent.stop(reason: "SIGTERM")), (SIGINT, .stop(reason: "SIGINT")), (SIGHUP, .reload)].map { signalNumber, event in
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: Self.queue)
            source.setEventHandler { emit(event) }
            source.resume()
            return source
        }
    }

    func shutdown() {
        sources.forEach { $0.cancel() }
    }
}
