// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI
import LocalAuthBackends
import LocalAuthCore
import LocalAuthDBus

/// `/org/localauth/LocalAuthentication1/simulator`, interface `…Simulator`: drives the simulated
/// sensors and the sheet's buttons. Every row needs ``BusAccess/simulator`` (root, the daemon's own
/// user, members of `simulator_group`, and whoever polkit grants `org.localauth.LocalAuthentication1.simulator`).
struct SimulatorObject: Sendable {
    let queue: SimulatorEventQueue
    /// The simulated sensors the backend registry made, by modality.
    let sensors: [BiometricModality: any SimulatorControl]
    /// Told when a sensor is connected or disconnected (`Backends` changes).
    let observer: BusObserver

    /// The Simulator's table: one row per member of ``LocalAuthInterface/simulator``.
    func table(_ rows: BusTable) -> DBusVTable {
        let (queue, sensors, observer) = (self.queue, self.sensors, self.observer)
        /// An input row: queued for the next evaluation when no evaluation listens, delivered to
        /// the listening one otherwise.
        func input<each Input: DBusArgument>(
            _ method: BusMethod<repeat each Input, BusWire.Nothing>,
            _ decode: @escaping @Sendable (repeat (each Input).Value) throws(DBusError) -> (any SimulatorControl, SimulatedInput)
        ) -> DBusVTable.Method {
            rows.method(method, needs: .simulator, steps: { (_: isolated PolicyEngine, _: BusRequest, arguments: repeat (each Input).Value) in
                let (sensor, input) = try decode(repeat each arguments)
                if try sensor.queueUnlessArmed(input) { return .reply(()) }
                return .wait { _ in
                    try await sensor.simulate(input)
                    return ()
                }
            })
        }
        return DBusVTable(LocalAuthInterface.simulator, methods: [
            input(SimulatorMethod.touch) { finger throws(DBusError) in
                return (try Self.require(.fingerprint, in: sensors), .touch(finger: finger))
            },
            input(SimulatorMethod.fingerprintRetry) { reason throws(DBusError) in
                return (try Self.require(.fingerprint, in: sensors), .fingerprintRetry(reason: reason))
            },
            input(SimulatorMethod.presentFace) { appearance, attentive throws(DBusError) in
                return (try Self.require(.face, in: sensors), .face(appearance: appearance, attentive: attentive))
            },
            rows.method(SimulatorMethod.setConnected, needs: .simulator) { (engine: isolated PolicyEngine, _: BusRequest, name: String, connected: Bool) in
                try await Self.require(try ManagerObject.modality(name), in: sensors).setConnected(connected)
                observer.backendsChanged(ManagerObject.backends(engine))
                return ()
            },
            rows.method(SimulatorMethod.pressCancel, needs: .simulator) { (engine: isolated PolicyEngine, _: BusRequest) in
                try engine.press(.cancel)
                return ()
            },
            rows.method(SimulatorMethod.pressFallback, needs: .simulator) { (engine: isolated PolicyEngine, _: BusRequest) in
                try engine.press(.fallback)
                return ()
            },
            rows.method(SimulatorMethod.reset, needs: .simulator) { (engine: isolated PolicyEngine, _: BusRequest) in
                queue.clear()
                for modality in BiometricModality.allCases { await sensors[modality]?.setConnected(true) }
                observer.backendsChanged(ManagerObject.backends(engine))
                return ()
            },
        ], properties: rows.properties(needs: .simulator) { _, _, _ in ["Pending": .uint32(UInt32(queue.pending))] })
    }

    private static func require(_ modality: BiometricModality, in sensors: [BiometricModality: any SimulatorControl]) throws(DBusError) -> any SimulatorControl {
        guard let sensor = sensors[modality] else {
            throw .notSupported("The \(modality.rawValue) backend is not enabled; add it to `backends` in localauthd.conf.")
        }
        return sensor
    }
}
