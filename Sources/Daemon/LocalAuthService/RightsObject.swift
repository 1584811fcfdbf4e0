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
    /// The Rights table: one row per member of ``LocalAuthInterface/rights``.
    func table(_ rows: BusTable) -> DBusVTable {
        return DBusVTable(LocalAuthInterface.rights, methods: [
            rows.method(RightsMethod.saveRight, needs: .identifiedApp) { _, identifier, requirement, rawSecret, options throws(DBusError) in
                let secret = Self.secret(rawSecret)
                try Self.noOptions(options, of: RightsMethod.saveRight.member)
                return { engine, bus in
                    let info = try await engine.saveRight(identifier, requirement: requirement, secret: secret, app: Self.app(bus), caller: bus.caller)
                    return [Self.encode(info)]
                }
            },
            rows.method(RightsMethod.getRight, needs: .identifiedApp) { _, identifier throws(DBusError) in
                return { engine, bus in [Self.encode(try engine.right(identifier, app: Self.app(bus), caller: bus.caller))] }
            },
            DBusVTable.Method(RightsMethod.listRights) { call, allApplications throws(DBusError) in
                // Every application's rights: only for a caller outside any sandbox.
                return rows.respond(call, needs: allApplications ? .unconfinedApp : .identifiedApp) { engine, bus in
                    let rights = try engine.rights(app: Self.app(bus), allApplications: allApplications, caller: bus.caller)
                    return [.array(elementSignature: "(ss)", rights.map { .structure([.string($0.application), .string($0.identifier)]) })]
                }
            },
            rows.method(RightsMethod.removeRight, needs: .identifiedApp) { _, identifier throws(DBusError) in
                return { engine, bus in
                    try await engine.removeRight(identifier, app: Self.app(bus), caller: bus.caller)
                    return []
                }
            },
            rows.method(RightsMethod.removeAllRights, needs: .identifiedApp) { _ in
                { engine, bus in
                    try await engine.removeAllRights(app: Self.app(bus), caller: bus.caller)
                    return []
                }
            },
            rows.method(RightsMethod.removeApplicationRight, needs: .unconfinedApp) { _, application, identifier, secret throws(DBusError) in
                let passcode = Passcode(secret)
                return { engine, bus in
                    try await engine.removeApplicationRight(identifier, application: application, passcode: passcode, caller: bus.caller)
                    return []
                }
            },
            rows.method(RightsMethod.encrypt, needs: .anyone) { _, publicKey, algorithm, plaintext throws(DBusError) in
                return { engine, bus in
                    var bytes = plaintext.withBytes { Array($0) }
                    defer { bytes.withUnsafeMutableBytes { if let base = $0.baseAddress { explicit_bzero(base, $0.count) } } }
                    return [.bytes(try engine.encrypt(bytes, algorithm: algorithm, publicKey: publicKey, caller: bus.caller))]
                }
            },
            rows.method(RightsMethod.verify, needs: .anyone) { _, publicKey, algorithm, data, signature throws(DBusError) in
                return { engine, bus in
                    [.bool(try engine.verify(data, signature: signature, algorithm: algorithm, publicKey: publicKey, caller: bus.caller))]
                }
            },
            rows.method(RightsMethod.storeLoginPassword, needs: .unconfinedApp) { _, secret throws(DBusError) in
                let password = Passcode(secret)
                return { engine, bus in
                    try await engine.storeLoginPassword(password, caller: bus.caller)
                    return []
                }
            },
            // Not from a sandbox: an app there could lock the user's keyring out of every touch login.
            rows.method(RightsMethod.removeLoginPassword, needs: .unconfinedApp) { _ in
                { engine, bus in
                    try await engine.removeLoginPassword(caller: bus.caller)
                    return []
                }
            },
        ], properties: rows.properties(needs: .anyone) { engine, _, _ in
            ["KeyProtection": .string(engine.keyProtection?.rawValue ?? "")]
        })
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
    static func encode(_ info: RightInfo) -> DBusValue {
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
        return .vardict(values)
    }
}
