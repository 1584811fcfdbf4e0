// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI
import LocalAuthCore
import LocalAuthDBus
import LocalAuthProviders
import LocalAuthSystem

/// The exported objects and the bus name: started, it registers the manager, context, rights,
/// simulator and provider-host objects, follows clients leaving the bus, and takes the bus name, after
/// which clients can call. Nothing to shut down: closing the connection releases the name.
struct BusObjectsUnit: DaemonUnit {
    let name = "bus objects"
    let connection: DBusConnection
    /// For the error message.
    let bus: DBusBus
    let observer: BusObserver
    let enrollments: EnrollmentRegistry
    /// Builds each object's table rows behind the access stage and the callers' request queues.
    let rows: BusTable
    let manager: ManagerObject
    let context: ContextObject
    let rights: RightsObject
    let simulator: SimulatorObject
    let providerHost: ProviderHostObject

    func start() async throws(Daemon.StartError) {
        do {
            try connection.register(path: LocalAuthBusNames.managerPath, table: manager.table(rows),
                                    children: ["context", "providers", "rights", "simulator"])
            try connection.register(path: LocalAuthBusNames.contextRoot, subtree: true,
                                    table: context.table(rows)) { call throws(DBusError) in _ = try ContextObject.id(call) }
            try connection.register(path: LocalAuthBusNames.rightsPath, table: rights.table(rows))
            try connection.register(path: LocalAuthBusNames.simulatorPath, table: simulator.table(rows))
            try connection.register(path: LocalAuthBusNames.providerHostPath, table: providerHost.table, admit: providerHost.admit)
            let (rows, observer, enrollments) = (self.rows, self.observer, self.enrollments)
            let trimmer = HeapTrimmer()
            _ = try await connection.watchNameOwners { change in
                guard change.newOwner == nil, change.name.hasPrefix(":") else { return }
                let client = ClientID(change.name)
                enrollments.cancel(client)
                rows.senderLeft(change.name) { engine in
                    // Again after its queued requests: an Enroll among them may have started since.
                    enrollments.cancel(client)
                    let dropped = engine.clientDisconnected(client)
                    observer.forget(client, contexts: dropped)
                    trimmer.released(contexts: dropped.count)
                }
            }
            try await connection.requestName(LocalAuthBusNames.busName)
        } catch {
            throw Daemon.StartError(exitStatus: 69, description: "cannot serve \(LocalAuthBusNames.busName) on \(bus): \(error)")
        }
    }

    func shutdown() {}
}
