// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI
import LocalAuthDBus
import LocalAuthTestSupport
import Testing

/// `DBusValue.secretBytes`: an `ay` on the wire, a `DBusSecret` (never a Swift array) on both
/// ends: a right's secret, a plaintext, a shared key.
@Suite struct SecretBytesTests {
    static let interface = DBusInterfaceDescription(
        name: testInterface,
        methods: [.init("Seal", in: [.init("label", "ay"), .init("secret", "ay", secret: true)], out: [.init("secret", "ay")])])

    /// Read as a secret where the description says so, plain bytes elsewhere; a reply carries
    /// one back, any length (empty too), with bytes that are not UTF-8 or hold NULs.
    @Test(arguments: [[UInt8](), [0, 0xff, 0xfe, 0x61, 0], [UInt8](repeating: 0x5a, count: 70_000)])
    func aSecretByteArrayArrivesAsASecretAndGoesBackAsOne(_ bytes: [UInt8]) async throws {
        try await withPrivateBus { bus in
            let server = try await bus.connect()
            let client = try await bus.connect()
            defer { client.close(); server.close() }
            let seen = Inbox<[DBusValue]>()
            try server.register(path: "/test", secretsOf: [Self.interface]) { call in
                seen.put(call.arguments)
                var reader = call.reader
                _ = try reader.bytes()
                let secret = try reader.secretBytes()
                return .values([.secretBytes(secret)])
            }
            let reply = try await client.call(
                destination: server.uniqueName, path: "/test", interface: testInterface, member: "Seal",
                arguments: [.bytes([1, 2]), .secretBytes(DBusSecret(copying: bytes))])
            #expect(reply.first?.bytes == bytes, "the reply holds the secret's bytes")
            let arguments = try await seen.next()
            #expect(arguments.first == .bytes([1, 2]))
            #expect(arguments.last?.secretBytes?.count == bytes.count)
            #expect(arguments.last?.bytes == nil)
        }
    }

    @Test func aSecretByteArrayIsOnlyATopLevelArgumentAndTypedAy() throws {
        let secret = DBusSecret(copying: [1, 2, 3])
        #expect(DBusValue.secretBytes(secret).signature == "ay")
        try DBusValue.secretBytes(secret).validate()
        #expect(throws: DBusError.self) { try DBusValue.structure([.secretBytes(secret)]).validate() }
        #expect(throws: DBusError.self) { try DBusValue.variant(.secretBytes(secret)).validate() }
        var reader = DBusArgumentReader([.bytes([1, 2, 3])])
        #expect(throws: DBusError.self) { _ = try reader.secretBytes() }
    }
}
