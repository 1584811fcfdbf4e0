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

    public func touch(_ finger: String) async throws { _ = try await proxy.call("Touch", [.string(finger)]) }
    public func fingerprintRetry(_ reason: String) async throws { _ = try await proxy.call("FingerprintRetry", [.string(reason)]) }
    public func presentFace(_ appearance: String, attentive: Bool) async throws {
        _ = try await proxy.call("PresentFace", [.string(appearance), .bool(attentive)])
    }
    public func setConnected(_ modality: String, _ connected: Bool) async throws {
        _ = try await proxy.call("SetConnected", [.string(modality), .bool(connected)])
    }
    public func pressCancel() async throws { _ = try await proxy.call("PressCancel") }
    public func pressFallback() async throws { _ = try await proxy.call("PressFallback") }
    public func reset() async throws { _ = try await proxy.call("Reset") }
    public func pending() async throws -> UInt32 { try await proxy.property("Pending").uint32! }
}
