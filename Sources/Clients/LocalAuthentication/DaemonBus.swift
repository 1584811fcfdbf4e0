// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthDBus
import Synchronization

/// Which bus localauthd is reached on, and the one shared connection per process and bus.
///
/// `LOCALAUTH_BUS_ADDRESS` (a D-Bus address) wins; otherwise `LOCALAUTH_BUS=session` or `system`;
/// otherwise the system bus. The environment is read when an `LAContext` is created.
enum DaemonBus {
    /// The bus from the environment, or why the environment names none.
    static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> Result<DBusBus, LAError> {
        if let address = environment["LOCALAUTH_BUS_ADDRESS"], !address.isEmpty {
            return .success(.address(address))
        }
        switch environment["LOCALAUTH_BUS"] {
        case nil, "", "system": return .success(.system)
        case "session": return .success(.session)
        case let other?:
            return .failure(LAError(.systemCancel, message: "LOCALAUTH_BUS is \"\(other)\"; set it to session or system, or set LOCALAUTH_BUS_ADDRESS."))
        }
    }

    private enum Slot {
        case connecting(Task<DBusConnection, any Error>)
        case connected(DBusConnection)
    }

    /// Connections by bus; a closed or failed one is replaced on the next use.
    private static let slots = Mutex<[DBusBus: Slot]>([:])

    /// The shared connection to `bus`, connecting (again) if there is none or it was lost.
    static func connection(to bus: DBusBus) async throws -> DBusConnection {
        for _ in 0..<2 {
            let slot = slots.withLock { slots in
                if let slot = slots[bus] { return slot }
                let slot = Slot.connecting(Task(executorPreference: ClientExecutor.shared) { try await DBusConnection.connect(to: bus) })
                slots[bus] = slot
                return slot
            }
            switch slot {
            case .connected(let connection):
                if connection.isOpen { return connection }
                forget(bus, unless: connection)
            case .connecting(let task):
                do {
                    let connection = try await task.value
                    slots.withLock { if case .connecting = $0[bus] { $0[bus] = .connected(connection) } }
                    return connection
                } catch {
                    slots.withLock { if case .connecting = $0[bus] { $0[bus] = nil } }
                    throw error
                }
            }
        }
        return try await DBusConnection.connect(to: bus)
    }

    private static func forget(_ bus: DBusBus, unless replacement: DBusConnection) {
        slots.withLock { slots in
            if case .connected(let current) = slots[bus], current === replacement { slots[bus] = nil }
        }
    }
}
