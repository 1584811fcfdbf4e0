// SPDX-License-Identifier: Apache-2.0
import LocalAuthCore
import LocalAuthDBus
import LocalAuthProviders
import LocalAuthSystem

/// The exported objects and the bus name: started, it registers the manager, context, simulator
/// and provider-host objects, follows clients leaving the bus, and takes the bus name, after
/// which clients can call. Nothing to shut down: closing the connection releases the name.
struct BusObjectsUnit: DaemonUnit {
    let name = "bus objects"
    let connection: DBusConnection
    /// For the error message.
    let bus: DBusBus
    let engine: PolicyEngine
    let directory: CallerDirectory
    let observer: BusObserver
    let enrollments: EnrollmentRegistry
    let manager: ManagerObject
    let context: ContextObject
    let simulator: SimulatorObject
    let providerHost: ProviderHostObject

    func start() async throws(Daemon.StartError) {
        do {
            try connection.register(path: BusContract.managerPath,
                                    introspectionXML: DBusInterfaceDescription.document([BusContract.manager], children: ["context", "providers", "simulator"]),
                                    secretsOf: [BusContract.manager], handler: manager.handle)
            try connection.register(path: BusContract.contextRoot, subtree: true,
                                    introspectionXML: DBusInterfaceDescription.document([BusContract.context]),
                                    secretsOf: [BusContract.context], handler: context.handle)
            try connection.register(path: BusContract.simulatorPath,
                                    introspectionXML: DBusInterfaceDescription.document([BusContract.simulator]),
                                    handler: simulator.handle)
            try connection.register(path: ProviderProtocol.hostPath,
                                    introspectionXML: DBusInterfaceDescription.document([ProviderProtocol.host]),
                                    handler: providerHost.handle)
            let (engine, directory, observer, enrollments) = (self.engine, self.directory, self.observer, self.enrollments)
            let trimmer = HeapTrimmer()
            _ = try await connection.watchNameOwners { change in
                guard change.newOwner == nil, change.name.hasPrefix(":") else { return }
                let client = ClientID(change.name)
                enrollments.cancel(client)
                directory.senderLeft(change.name) {
                    // Again after its queued requests: an Enroll among them may have started since.
                    enrollments.cancel(client)
                    let dropped = await engine.clientDisconnected(client)
                    observer.forget(client)
                    trimmer.released(contexts: dropped)
                }
            }
            try await connection.requestName(BusContract.busName)
        } catch {
            throw Daemon.StartError(exitStatus: 69, description: "cannot serve \(BusContract.busName) on \(bus): \(error)")
        }
    }

    func shutdown() {}
}
