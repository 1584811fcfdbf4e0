// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI
import LocalAuthDBus

/// `…Simulator` at ``LocalAuthBusNames/simulatorPath``, typed; checked against
/// ``LocalAuthInterface/simulator``.
public struct SimulatorProxy: Sendable {
    public let proxy: DBusProxy

    public init(_ connection: DBusConnection, destination: String = LocalAuthBusNames.busName, timeout: Duration = .seconds(25)) {
        proxy = DBusProxy(LocalAuthInterface.simulator, on: connection, destination: destination, path: LocalAuthBusNames.simulatorPath, timeout: timeout)
    }

    public func touch(_ finger: String) async throws { try await proxy.call(SimulatorMethod.touch, finger) }
    public func fingerprintRetry(_ reason: String) async throws { try await proxy.call(SimulatorMethod.fingerprintRetry, reason) }
    public func presentFace(_ appearance: String, attentive: Bool) async throws {
        try await proxy.call(SimulatorMethod.presentFace, appearance, attentive)
    }
    public func setConnected(_ modality: String, _ connected: Bool) async throws {
        try await proxy.call(SimulatorMethod.setConnected, modality, connected)
    }
    public func pressCancel() async throws { try await proxy.call(SimulatorMethod.pressCancel) }
    public func pressFallback() async throws { try await proxy.call(SimulatorMethod.pressFallback) }
    public func reset() async throws { try await proxy.call(SimulatorMethod.reset) }
    public func pending() async throws -> UInt32 { try await proxy.property("Pending").uint32! }
}
