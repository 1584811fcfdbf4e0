// SPDX-License-Identifier: Apache-2.0
import LocalAuthBackends
import LocalAuthCore
import LocalAuthDBus

/// `/org/localauth/LocalAuthentication1/simulator`, interface `…Simulator`: drives the simulated
/// sensors and the sheet's buttons. Allowed for root, the daemon's own user, members of
/// `simulator_group`, and whoever polkit grants `org.localauth.LocalAuthentication1.simulator`.
struct SimulatorObject: Sendable {
    let engine: PolicyEngine
    let directory: CallerDirectory
    let queue: SimulatorEventQueue
    /// The simulated sensors the backend registry made, by modality.
    let sensors: [BiometricModality: any SimulatorControl]
    /// Told when a sensor is connected or disconnected (`Backends` changes).
    let observer: BusObserver
    /// Allowed without asking polkit: the daemon's own uid (it could drive the daemon anyway).
    let daemonUser: UInt32
    /// The gid of `simulator_group`, if one is configured: its members are allowed without asking polkit.
    let simulatorGroup: UInt32?

    func handle(_ call: DBusMethodCall) throws(DBusError) -> DBusMethodReply {
        if let request = try DBusPropertyRequest(call) { return try properties(request, call) }
        _ = try CallCheck.method(of: call, in: BusContract.simulator)
        var arguments = call.reader
        switch call.member {
        case "Touch":
            let finger = try arguments.string()
            let sensor = try require(.fingerprint)
            return allowed(call) { try await sensor.simulate(.touch(finger: finger)) }
        case "FingerprintRetry":
            let reason = try arguments.string()
            let sensor = try require(.fingerprint)
            return allowed(call) { try await sensor.simulate(.fingerprintRetry(reason: reason)) }
        case "PresentFace":
            let appearance = try arguments.string()
            let attentive = try arguments.bool()
            let sensor = try require(.face)
            return allowed(call) { try await sensor.simulate(.face(appearance: appearance, attentive: attentive)) }
        case "SetConnected":
            let modality = try ManagerObject.modality(try arguments.string())
            let connected = try arguments.bool()
            let sensor = try require(modality)
            let announce = announceBackends
            return allowed(call) {
                await sensor.setConnected(connected)
                await announce()
            }
        case "PressCancel":
            let engine = self.engine
            return allowed(call) { try await engine.press(.cancel) }
        case "PressFallback":
            let engine = self.engine
            return allowed(call) { try await engine.press(.fallback) }
        case "Reset":
            let (queue, sensors) = (self.queue, self.sensors)
            let announce = announceBackends
            return allowed(call) {
                queue.clear()
                for modality in BiometricModality.allCases { await sensors[modality]?.setConnected(true) }
                await announce()
            }
        default:
            throw .unknownMember(call.member, of: BusContract.simulator)
        }
    }

    private func properties(_ request: DBusPropertyRequest, _ call: DBusMethodCall) throws(DBusError) -> DBusMethodReply {
        let queue = self.queue
        let pending: @Sendable () -> [String: DBusValue] = { ["Pending": .uint32(UInt32(queue.pending))] }
        switch request {
        case .get(let interface, let name):
            try CallCheck.interface(interface, is: BusContract.simulator)
            guard name == "Pending" else { throw .unknownProperty(name, of: BusContract.simulator) }
            return allowedValues(call) { [.variant(pending()["Pending"]!)] }
        case .getAll(let interface):
            try CallCheck.interface(interface, is: BusContract.simulator)
            return allowedValues(call) { [.vardict(pending())] }
        case .set(let interface, let name, _):
            try CallCheck.interface(interface, is: BusContract.simulator)
            guard name == "Pending" else { throw .unknownProperty(name, of: BusContract.simulator) }
            throw DBusError(.propertyReadOnly, "Pending is read-only.")
        }
    }

    /// Sends `PropertiesChanged` for `Backends` if a sensor's availability changed.
    private var announceBackends: @Sendable () async -> Void {
        let (engine, observer) = (self.engine, self.observer)
        return { observer.backendsChanged(await ManagerObject.backends(engine)) }
    }

    private func require(_ modality: BiometricModality) throws(DBusError) -> any SimulatorControl {
        guard let sensor = sensors[modality] else {
            throw .notSupported("The \(modality.rawValue) backend is not enabled; add it to `backends` in localauthd.conf.")
        }
        return sensor
    }

    private func allowed(_ call: DBusMethodCall, _ body: @escaping @Sendable () async throws -> Void) -> DBusMethodReply {
        allowedValues(call) {
            try await body()
            return []
        }
    }

    private func allowedValues(_ call: DBusMethodCall, _ body: @escaping @Sendable () async throws -> [DBusValue]) -> DBusMethodReply {
        let (engine, daemonUser, group) = (self.engine, self.daemonUser, simulatorGroup)
        return directory.respond(to: call) { bus in
            let uid = bus.credentials.uid
            if uid != daemonUser && group.map(bus.credentials.groups.contains) != true {
                try await engine.authorize(.useSimulator, caller: bus.caller)
            }
            return try await body()
        }
    }
}
