// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthAPI
import LocalAuthDBus
import LocalAuthProxies

/// The daemon's Rights object (``LocalAuthInterface/rights``) for this process's user and
/// application, on the connection all contexts share. Each call's errors are mapped by ``RightError``.
struct RightsService: Sendable {
    let bus: Result<DBusBus, LAError>

    func saveRight(_ identifier: String, requirement: String, secret: Data?) async throws -> RightDescription {
        // The secret travels as `ay`: this copy is wiped once sent; the message's own copy is libdbus's.
        let bytes = secret.map(Array.init) ?? []
        defer { wipe(bytes) }
        return try RightDescription(try await call { try await $0.saveRight(identifier, requirement: requirement, secret: bytes) })
    }

    func right(_ identifier: String) async throws -> RightDescription {
        try RightDescription(try await call { try await $0.right(identifier) })
    }

    func removeRight(_ identifier: String) async throws {
        try await call { try await $0.removeRight(identifier) }
    }

    func removeAllRights() async throws {
        try await call { try await $0.removeAllRights() }
    }

    func encrypt(_ plaintext: Data, algorithm: String, publicKey: [UInt8]) async throws -> Data {
        Data(try await call { try await $0.encrypt(publicKey: publicKey, algorithm: algorithm, plaintext: Array(plaintext)) })
    }

    func verify(_ data: Data, signature: Data, algorithm: String, publicKey: [UInt8]) async throws -> Bool {
        try await call { try await $0.verify(publicKey: publicKey, algorithm: algorithm, signedData: Array(data), signature: Array(signature)) }
    }

    private func call<T>(_ body: (RightsProxy) async throws -> T) async throws -> T {
        let connection: DBusConnection
        do {
            connection = try await DaemonBus.connection(to: bus.get())
        } catch {
            throw LAError.unavailable(for: .deviceOwnerAuthentication, because: error)
        }
        do {
            return try await body(RightsProxy(connection))
        } catch {
            throw RightError.from(reply: error)
        }
    }
}
