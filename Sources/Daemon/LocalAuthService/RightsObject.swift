// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import LocalAuthAPI
import LocalAuthCore
import LocalAuthDBus

/// `/org/localauth/LocalAuthentication1/rights`, interface `…Rights`: the caller's saved rights
/// (Apple's `LARightStore`), public-key operations and the login keyring's stored password.
/// Translates only: the caller's application identity comes from the bus (``BusCaller/app``);
/// access is the table's ``AccessStage``; every other rule is the engine's.
struct RightsObject: Sendable {
    /// The Rights table: one row per member of ``LocalAuthInterface/rights``, each its declaration
    /// and its handler below.
    func table(_ rows: BusTable) -> DBusVTable {
        DBusVTable(LocalAuthInterface.rights, methods: [
            rows.method(RightsMethod.saveRight, needs: .identifiedApp, Self.saveRight),
            rows.method(RightsMethod.getRight, needs: .identifiedApp, Self.getRight),
            // Every application's rights: only for a caller outside any sandbox.
            rows.method(RightsMethod.listRights, needs: { allApplications in allApplications ? .unconfinedApp : .identifiedApp }, Self.listRights),
            rows.method(RightsMethod.removeRight, needs: .identifiedApp, Self.removeRight),
            rows.method(RightsMethod.removeAllRights, needs: .identifiedApp, Self.removeAllRights),
            rows.method(RightsMethod.removeApplicationRight, needs: .unconfinedApp, Self.removeApplicationRight),
            rows.method(RightsMethod.encrypt, needs: .anyone, Self.encrypt),
            rows.method(RightsMethod.verify, needs: .anyone, Self.verify),
            rows.method(RightsMethod.storeLoginPassword, needs: .unconfinedApp, Self.storeLoginPassword),
            // Not from a sandbox: an app there could lock the user's keyring out of every touch login.
            rows.method(RightsMethod.removeLoginPassword, needs: .unconfinedApp, Self.removeLoginPassword),
        ], properties: rows.properties(needs: .anyone) { engine, _, _ in
            ["KeyProtection": .string(engine.keyProtection?.rawValue ?? "")]
        })
    }

    // MARK: Handlers, one per method

    static func saveRight(_ engine: isolated PolicyEngine, _ request: BusRequest, _ identifier: String, _ requirement: String,
                          _ secret: DBusSecret, _ options: [String: DBusValue]) async throws -> [String: DBusValue]? {
        try noOptions(options, of: RightsMethod.saveRight.member)
        let info = try await engine.saveRight(identifier, requirement: requirement, secret: Self.secret(secret), app: app(request.bus),
                                              caller: request.caller)
        return encode(info)
    }

    static func getRight(_ engine: isolated PolicyEngine, _ request: BusRequest, _ identifier: String) throws -> [String: DBusValue]? {
        encode(try engine.right(identifier, app: app(request.bus), caller: request.caller))
    }

    static func listRights(_ engine: isolated PolicyEngine, _ request: BusRequest, _ allApplications: Bool) throws -> [(application: String, identifier: String)]? {
        try engine.rights(app: app(request.bus), allApplications: allApplications, caller: request.caller).map { ($0.application, $0.identifier) }
    }

    static func removeRight(_ engine: isolated PolicyEngine, _ request: BusRequest, _ identifier: String) async throws -> Void? {
        try await engine.removeRight(identifier, app: app(request.bus), caller: request.caller)
        return ()
    }

    static func removeAllRights(_ engine: isolated PolicyEngine, _ request: BusRequest) async throws -> Void? {
        try await engine.removeAllRights(app: app(request.bus), caller: request.caller)
        return ()
    }

    static func removeApplicationRight(_ engine: isolated PolicyEngine, _ request: BusRequest, _ application: String, _ identifier: String,
                                       _ secret: DBusSecret) async throws -> Void? {
        try await engine.removeApplicationRight(identifier, application: application, passcode: Passcode(secret), caller: request.caller)
        return ()
    }

    static func encrypt(_ engine: isolated PolicyEngine, _ request: BusRequest, _ publicKey: [UInt8], _ algorithm: String,
                        _ plaintext: DBusSecret) throws -> [UInt8]? {
        var bytes = plaintext.withBytes { Array($0) }
        defer { bytes.withUnsafeMutableBytes { if let base = $0.baseAddress { explicit_bzero(base, $0.count) } } }
        return try engine.encrypt(bytes, algorithm: algorithm, publicKey: publicKey, caller: request.caller)
    }

    static func verify(_ engine: isolated PolicyEngine, _ request: BusRequest, _ publicKey: [UInt8], _ algorithm: String, _ data: [UInt8],
                       _ signature: [UInt8]) throws -> Bool? {
        try engine.verify(data, signature: signature, algorithm: algorithm, publicKey: publicKey, caller: request.caller)
    }

    static func storeLoginPassword(_ engine: isolated PolicyEngine, _ request: BusRequest, _ secret: DBusSecret) async throws -> Void? {
        try await engine.storeLoginPassword(Passcode(secret), caller: request.caller)
        return ()
    }

    static func removeLoginPassword(_ engine: isolated PolicyEngine, _ request: BusRequest) async throws -> Void? {
        try await engine.removeLoginPassword(caller: request.caller)
        return ()
    }

    /// The caller's application identity, or nil when the bus could not tell (the engine refuses it).
    static func app(_ bus: BusCaller) -> String? {
        try? bus.app.get().id
    }

    /// SaveRight's `ay` secret, read from the message as a secret (its copy there zeroed); empty is none.
    static func secret(_ secret: DBusSecret) -> SecretBytes? {
        guard secret.count > 0 else { return nil }
        return SecretBytes(count: secret.count) { buffer in secret.withBytes { _ = buffer.initialize(from: $0) } }
    }

    /// An `a{sv}` that defines no key yet: any key is InvalidArgs.
    static func noOptions(_ options: [String: DBusValue], of method: String) throws(DBusError) {
        guard let key = options.keys.sorted().first else { return }
        throw .invalidArgs("Unknown option \"\(key)\": \(method) defines no options yet; pass an empty dictionary.")
    }

    /// A right's `a{sv}`: exactly the keys of ``LocalAuthRightKey``.
    static func encode(_ info: RightInfo) -> [String: DBusValue] {
        var values: [String: DBusValue] = [:]
        for key in LocalAuthRightKey.allCases {
            values[key.rawValue] = switch key {
            case .identifier: .string(info.identifier)
            case .application: .string(info.application)
            case .requirement: .string(info.requirement)
            case .hasSecret: .bool(info.hasSecret)
            case .publicKey: .bytes(info.publicKey)
            case .created: .uint64(info.created)
            case .invalidated: .bool(info.invalidated)
            }
        }
        return values
    }
}
