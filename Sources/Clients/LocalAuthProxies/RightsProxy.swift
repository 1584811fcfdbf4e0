// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI
import LocalAuthDBus

/// `…Rights` at ``LocalAuthBusNames/rightsPath``, typed; each call is checked against
/// ``LocalAuthInterface/rights`` (see ``DBusProxy``). Errors are the daemon's `DBusError`s
/// (`…Error.RightNotFound`, …). A right's `a{sv}` is keyed by ``LocalAuthRightKey``.
public struct RightsProxy: Sendable {
    /// The untyped proxy the typed calls go through.
    public let proxy: DBusProxy

    /// The daemon's rights object on `connection`; `timeout` bounds each call.
    public init(_ connection: DBusConnection, destination: String = LocalAuthBusNames.busName, timeout: Duration = .seconds(25)) {
        proxy = DBusProxy(LocalAuthInterface.rights, on: connection, destination: destination, path: LocalAuthBusNames.rightsPath, timeout: timeout)
    }

    /// Saves (or replaces) the caller's right; `secret` empty for none. Returns the saved right.
    /// The secret is sent as a ``DBusValue/secretBytes(_:)`` (the message's copy is wiped once
    /// sent); the caller wipes its own.
    public func saveRight(_ identifier: String, requirement: String, secret: [UInt8] = [], options: [String: DBusValue] = [:]) async throws -> [String: DBusValue] {
        try await proxy.call(RightsMethod.saveRight, identifier, requirement, DBusSecret(copying: secret), options)
    }

    /// The caller's right saved under `identifier` (`RightNotFound` when its application has none).
    public func right(_ identifier: String) async throws -> [String: DBusValue] {
        try await proxy.call(RightsMethod.getRight, identifier)
    }

    /// `(application, identifier)` pairs, sorted; `allApplications` needs an unconfined caller.
    public func rights(allApplications: Bool = false) async throws -> [(application: String, identifier: String)] {
        try await proxy.call(RightsMethod.listRights, allApplications)
    }

    /// Removes the caller's right saved under `identifier` (`RightNotFound` when none).
    public func removeRight(_ identifier: String) async throws {
        try await proxy.call(RightsMethod.removeRight, identifier)
    }

    /// Removes every right of the caller's application.
    public func removeAllRights() async throws {
        try await proxy.call(RightsMethod.removeAllRights)
    }

    /// Removes another application's right of the caller's user; unconfined callers only, the
    /// passcode checked and counted. The passcode is an `s` argument: a ``DBusSecret`` (wiped
    /// when released) or a plain string in tests.
    public func removeApplicationRight(application: String, identifier: String, passcode: DBusValue) async throws {
        try await proxy.call(RightsMethod.removeApplicationRight, application, identifier, try DBusProxy.secret(passcode))
    }

    /// Encrypts `plaintext` to `publicKey` (X9.63) with an ECIES `algorithm`; no authorization
    /// needed. The plaintext is sent as a ``DBusValue/secretBytes(_:)``, as SaveRight's secret.
    public func encrypt(publicKey: [UInt8], algorithm: String, plaintext: [UInt8]) async throws -> [UInt8] {
        try await proxy.call(RightsMethod.encrypt, publicKey, algorithm, DBusSecret(copying: plaintext))
    }

    /// Whether `signature` is `publicKey`'s (X9.63) signature of `signedData` with `algorithm`.
    public func verify(publicKey: [UInt8], algorithm: String, signedData: [UInt8], signature: [UInt8]) async throws -> Bool {
        try await proxy.call(RightsMethod.verify, publicKey, algorithm, signedData, signature)
    }

    /// Stores (or replaces) the caller's login password for the login keyring; unconfined callers
    /// only. The password is an `s` argument: a ``DBusSecret`` (wiped when released) or a plain string in tests.
    public func storeLoginPassword(_ password: DBusValue) async throws {
        try await proxy.call(RightsMethod.storeLoginPassword, try DBusProxy.secret(password))
    }

    /// Removes the caller's stored login password (`RightNotFound` when none).
    public func removeLoginPassword() async throws {
        try await proxy.call(RightsMethod.removeLoginPassword)
    }

    /// `tpm2` or `wrapping-key`; empty when the daemon could not open its vault.
    public func keyProtection() async throws -> String {
        try await proxy.property("KeyProtection", as: \.string)
    }
}
