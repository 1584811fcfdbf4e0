// SPDX-License-Identifier: Apache-2.0
import LocalAuthDBus

/// `…Rights` at ``LocalAuthBusNames/rightsPath``, typed; each call is checked against
/// ``LocalAuthInterface/rights`` (see ``DBusProxy``). Errors are the daemon's `DBusError`s
/// (`…Error.RightNotFound`, …). A right's `a{sv}` is keyed by ``LocalAuthRightKey``.
public struct RightsProxy: Sendable {
    public let proxy: DBusProxy

    public init(_ connection: DBusConnection, destination: String = LocalAuthBusNames.busName, timeout: Duration = .seconds(25)) {
        proxy = DBusProxy(LocalAuthInterface.rights, on: connection, destination: destination, path: LocalAuthBusNames.rightsPath, timeout: timeout)
    }

    /// Saves (or replaces) the caller's right; `secret` empty for none. Returns the saved right.
    /// The secret is sent as a ``DBusValue/secretBytes(_:)`` (the message's copy is wiped once
    /// sent); the caller wipes its own.
    public func saveRight(_ identifier: String, requirement: String, secret: [UInt8] = [], options: [String: DBusValue] = [:]) async throws -> [String: DBusValue] {
        try await proxy.call("SaveRight", [.string(identifier), .string(requirement), .secretBytes(DBusSecret(copying: secret)), .vardict(options)])[0].vardict!
    }

    public func right(_ identifier: String) async throws -> [String: DBusValue] {
        try await proxy.call("GetRight", [.string(identifier)])[0].vardict!
    }

    /// `(application, identifier)` pairs, sorted; `allApplications` needs an unconfined caller.
    public func rights(allApplications: Bool = false) async throws -> [(application: String, identifier: String)] {
        (try await proxy.call("ListRights", [.bool(allApplications)])[0].arrayElements ?? []).compactMap { element in
            guard let fields = element.structure, let application = fields[0].string, let identifier = fields[1].string else { return nil }
            return (application, identifier)
        }
    }

    public func removeRight(_ identifier: String) async throws {
        _ = try await proxy.call("RemoveRight", [.string(identifier)])
    }

    public func removeAllRights() async throws {
        _ = try await proxy.call("RemoveAllRights")
    }

    /// The passcode is an `s` argument: a ``DBusSecret`` (wiped when released) or a plain string in tests.
    public func removeApplicationRight(application: String, identifier: String, passcode: DBusValue) async throws {
        _ = try await proxy.call("RemoveApplicationRight", [.string(application), .string(identifier), passcode])
    }

    /// The plaintext is sent as a ``DBusValue/secretBytes(_:)``, as SaveRight's secret.
    public func encrypt(publicKey: [UInt8], algorithm: String, plaintext: [UInt8]) async throws -> [UInt8] {
        try await proxy.call("Encrypt", [.bytes(publicKey), .string(algorithm), .secretBytes(DBusSecret(copying: plaintext))])[0].bytes!
    }

    public func verify(publicKey: [UInt8], algorithm: String, signedData: [UInt8], signature: [UInt8]) async throws -> Bool {
        try await proxy.call("Verify", [.bytes(publicKey), .string(algorithm), .bytes(signedData), .bytes(signature)])[0].bool!
    }

    /// The password is an `s` argument: a ``DBusSecret`` (wiped when released) or a plain string in tests.
    public func storeLoginPassword(_ password: DBusValue) async throws {
        _ = try await proxy.call("StoreLoginPassword", [password])
    }

    public func removeLoginPassword() async throws {
        _ = try await proxy.call("RemoveLoginPassword")
    }

    /// `tpm2` or `wrapping-key`; empty when the daemon could not open its vault.
    public func keyProtection() async throws -> String {
        try await proxy.property("KeyProtection").string!
    }
}
