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

    /// Returns when the right's requirement was met; the evaluation may wait for the user as
    /// long as `timeout` allows.
    public func authorizeRight(_ identifier: String, reason: String, timeout: Duration? = nil) async throws {
        _ = try await proxy.call("AuthorizeRight", [.string(identifier), .string(reason)], timeout: timeout)
    }

    public func checkCanAuthorizeRight(_ identifier: String) async throws {
        _ = try await proxy.call("CheckCanAuthorizeRight", [.string(identifier)])
    }

    public func deauthorizeRight(_ identifier: String) async throws {
        _ = try await proxy.call("DeauthorizeRight", [.string(identifier)])
    }

    /// Options keyed by ``LocalAuthRequirementOption``.
    public func evaluateRequirement(_ requirement: String, reason: String, options: [String: DBusValue] = [:], timeout: Duration? = nil) async throws {
        _ = try await proxy.call("EvaluateRequirement", [.string(requirement), .string(reason), .vardict(options)], timeout: timeout)
    }

    public func canEvaluateRequirement(_ requirement: String, options: [String: DBusValue] = [:]) async throws {
        _ = try await proxy.call("CanEvaluateRequirement", [.string(requirement), .vardict(options)])
    }

    public func loadSecret(_ identifier: String) async throws -> [UInt8] {
        try await proxy.call("LoadSecret", [.string(identifier)])[0].bytes!
    }

    public func sign(_ identifier: String, algorithm: String, data: [UInt8]) async throws -> [UInt8] {
        try await proxy.call("Sign", [.string(identifier), .string(algorithm), .bytes(data)])[0].bytes!
    }

    public func decrypt(_ identifier: String, algorithm: String, ciphertext: [UInt8]) async throws -> [UInt8] {
        try await proxy.call("Decrypt", [.string(identifier), .string(algorithm), .bytes(ciphertext)])[0].bytes!
    }

    /// Parameters keyed by ``LocalAuthExchangeKeysParameter``.
    public func exchangeKeys(_ identifier: String, publicKey: [UInt8], algorithm: String, parameters: [String: DBusValue] = [:]) async throws -> [UInt8] {
        try await proxy.call("ExchangeKeys", [.string(identifier), .bytes(publicKey), .string(algorithm), .vardict(parameters)])[0].bytes!
    }

    /// Root only: the stored login password after a fresh biometric match of this context.
    public func releaseLoginPassword() async throws -> DBusValue {
        try await proxy.call("ReleaseLoginPassword")[0]
    }

    public func discardLoginPassword() async throws {
        _ = try await proxy.call("DiscardLoginPassword")
    }

    public func property(_ name: String) async throws -> DBusValue { try await proxy.property(name) }
    public func setProperty(_ name: String, to value: DBusValue) async throws { try await proxy.setProperty(name, to: value) }
}
