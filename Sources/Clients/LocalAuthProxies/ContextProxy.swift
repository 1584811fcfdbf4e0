// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI
import LocalAuthDBus

/// `…Context` at one context's path, typed; checked against ``LocalAuthInterface/context``.
public struct ContextProxy: Sendable {
    /// The untyped proxy the typed calls go through.
    public let proxy: DBusProxy

    /// The context at `path` on `connection`; `timeout` bounds each call (an evaluation's own may be longer).
    public init(_ connection: DBusConnection, path: String, destination: String = LocalAuthBusNames.busName, timeout: Duration = .seconds(25)) {
        proxy = DBusProxy(LocalAuthInterface.context, on: connection, destination: destination, path: path, timeout: timeout)
    }

    /// The context's object path.
    public var path: String { proxy.path }

    /// Returns when `policy` (an LAPolicy raw value) could be evaluated now; the LAError otherwise.
    public func canEvaluatePolicy(_ policy: LAPolicy) async throws {
        try await proxy.call(ContextMethod.canEvaluatePolicy, policy)
    }

    /// Returns when the evaluation succeeded; an evaluation may wait for the user as long as
    /// `timeout` allows.
    public func evaluatePolicy(_ policy: LAPolicy, reason: String, timeout: Duration? = nil) async throws {
        try await proxy.call(ContextMethod.evaluatePolicy, policy, reason, timeout: timeout)
    }

    /// Answers a passcode prompt of the running evaluation (a ``DBusSecret`` or, in tests, a string).
    public func submitPasscode(_ passcode: DBusValue) async throws {
        try await proxy.call(ContextMethod.submitPasscode, try DBusProxy.secret(passcode))
    }

    /// Takes the fallback of the running evaluation (the user chose the fallback button).
    public func fallback() async throws { try await proxy.call(ContextMethod.fallback) }
    /// Cancels the running evaluation.
    public func cancel() async throws { try await proxy.call(ContextMethod.cancel) }
    /// Ends the context: a running evaluation fails, later calls fail, authorized rights end.
    public func invalidate() async throws { try await proxy.call(ContextMethod.invalidate) }

    /// Returns when the right's requirement was met; the evaluation may wait for the user as
    /// long as `timeout` allows.
    public func authorizeRight(_ identifier: String, reason: String, timeout: Duration? = nil) async throws {
        try await proxy.call(ContextMethod.authorizeRight, identifier, reason, timeout: timeout)
    }

    /// Returns when the right saved under `identifier` could be authorized now; the error otherwise.
    public func checkCanAuthorizeRight(_ identifier: String) async throws {
        try await proxy.call(ContextMethod.checkCanAuthorizeRight, identifier)
    }

    /// Ends this context's authorization of the right (nothing when it is not authorized).
    public func deauthorizeRight(_ identifier: String) async throws {
        try await proxy.call(ContextMethod.deauthorizeRight, identifier)
    }

    /// Returns when `requirement` (an expression, no stored right) was met; the evaluation may
    /// wait for the user as long as `timeout` allows. Options keyed by ``LocalAuthRequirementOption``.
    public func evaluateRequirement(_ requirement: String, reason: String, options: [String: DBusValue] = [:], timeout: Duration? = nil) async throws {
        try await proxy.call(ContextMethod.evaluateRequirement, requirement, reason, options, timeout: timeout)
    }

    /// Returns when `requirement` could be evaluated now. Options keyed by ``LocalAuthRequirementOption``.
    public func canEvaluateRequirement(_ requirement: String, options: [String: DBusValue] = [:]) async throws {
        try await proxy.call(ContextMethod.canEvaluateRequirement, requirement, options)
    }

    /// The secret of a right this context holds authorized.
    public func loadSecret(_ identifier: String) async throws -> [UInt8] {
        try await proxy.call(ContextMethod.loadSecret, identifier).withBytes { Array($0) }
    }

    /// `data` signed with the authorized right's private key and `algorithm`.
    public func sign(_ identifier: String, algorithm: String, data: [UInt8]) async throws -> [UInt8] {
        try await proxy.call(ContextMethod.sign, identifier, algorithm, data)
    }

    /// `ciphertext` decrypted with the authorized right's private key and an ECIES `algorithm`.
    public func decrypt(_ identifier: String, algorithm: String, ciphertext: [UInt8]) async throws -> [UInt8] {
        try await proxy.call(ContextMethod.decrypt, identifier, algorithm, ciphertext).withBytes { Array($0) }
    }

    /// The shared secret of the authorized right's private key and `publicKey` (X9.63) with
    /// `algorithm`. Parameters keyed by ``LocalAuthExchangeKeysParameter``.
    public func exchangeKeys(_ identifier: String, publicKey: [UInt8], algorithm: String, parameters: [String: DBusValue] = [:]) async throws -> [UInt8] {
        try await proxy.call(ContextMethod.exchangeKeys, identifier, publicKey, algorithm, parameters).withBytes { Array($0) }
    }

    /// Root only: the stored login password after a fresh biometric match of this context.
    /// The reply's copy is wiped as it is read; the returned secret wipes itself when released.
    public func releaseLoginPassword() async throws -> DBusSecret {
        try await proxy.call(ContextMethod.releaseLoginPassword)
    }

    /// Root only: removes the login password this context released (the keyring service refused it).
    public func discardLoginPassword() async throws {
        try await proxy.call(ContextMethod.discardLoginPassword)
    }

    /// The context's property `name`.
    public func property(_ name: String) async throws -> DBusValue { try await proxy.property(name) }
    /// Sets the context's property `name` (a read-write one of the contract).
    public func setProperty(_ name: String, to value: DBusValue) async throws { try await proxy.setProperty(name, to: value) }
}
