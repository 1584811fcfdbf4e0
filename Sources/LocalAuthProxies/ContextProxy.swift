// SPDX-License-Identifier: Apache-2.0
import LocalAuthDBus

/// `…Context` at one context's path, typed; checked against ``LocalAuthInterface/context``.
public struct ContextProxy: Sendable {
    public let proxy: DBusProxy

    public init(_ connection: DBusConnection, path: String, destination: String = LocalAuthBusNames.busName, timeout: Duration = .seconds(25)) {
        proxy = DBusProxy(LocalAuthInterface.context, on: connection, destination: destination, path: path, timeout: timeout)
    }

    public var path: String { proxy.path }

    public func canEvaluatePolicy(_ policy: UInt32) async throws {
        _ = try await proxy.call("CanEvaluatePolicy", [.uint32(policy)])
    }

    /// Returns when the evaluation succeeded; an evaluation may wait for the user as long as
    /// `timeout` allows.
    public func evaluatePolicy(_ policy: UInt32, reason: String, timeout: Duration? = nil) async throws {
        _ = try await proxy.call("EvaluatePolicy", [.uint32(policy), .string(reason)], timeout: timeout)
    }

    public func submitPasscode(_ passcode: DBusValue) async throws {
        _ = try await proxy.call("SubmitPasscode", [passcode])
    }

    public func fallback() async throws { _ = try await proxy.call("Fallback") }
    public func cancel() async throws { _ = try await proxy.call("Cancel") }
    public func invalidate() async throws { _ = try await proxy.call("Invalidate") }

    public func property(_ name: String) async throws -> DBusValue { try await proxy.property(name) }
    public func setProperty(_ name: String, to value: DBusValue) async throws { try await proxy.setProperty(name, to: value) }
}
