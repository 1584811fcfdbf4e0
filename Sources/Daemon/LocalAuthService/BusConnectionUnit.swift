// SPDX-License-Identifier: Apache-2.0
import LocalAuthDBus

/// The bus connection: connected when the daemon is composed (every other unit talks through
/// it); started, it reports a lost bus as a stop; shut down last, after the replies of the
/// cancelled evaluations are queued, it flushes them and leaves the bus.
struct BusConnectionUnit: DaemonUnit {
    let name = "bus connection"
    let connection: DBusConnection
    let emit: @Sendable (DaemonEvent) -> Void

    func start() {
        let emit = self.emit
        connection.onDisconnect { emit(.stop(reason: "the bus went away")) }
    }

    func shutdown() {
        connection.flush()
        connection.close()
    }
}
