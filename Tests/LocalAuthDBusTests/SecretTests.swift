// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI
import LocalAuthDBus
import LocalAuthTestSupport
import Testing

/// `DBusValue.secret`: an `s` on the wire, a `DBusSecret` (never a `String`) on both ends.
@Suite struct SecretTests {
    static let interface = DBusInterfaceDescription(
        name: testInterface,
        methods: [.init("Check", in: [.init("label", "s"), .init("passcode", "s", secret: true)], out: [.init("passcode", "s")])])

    @Test func aSecretArgumentArrivesAsASecretAndPlainStringsStayStrings() async throws {
        try await withPrivateBus { bus in
            let server = try await bus.connect()
            let client = try await bus.connect()
            defer { client.close(); server.close() }
            let seen = Inbox<[DBusValue]>()
            try server.register(path: "/test", secretsOf: [Self.interface]) { call in
                seen.put(call.arguments)
                var reader = call.reader
                _ = try reader.string()
                let secret = try reader.secret()
                // Echoed as a plain string, to check the bytes.
                return .values([.string(secret.withBytes { String(decoding: $0, as: UTF8.self) })])
            }
            let reply = try await client.call(
                destination: server.uniqueName, path: "/test", interface: testInterface, member: "Check",
                arguments: [.string("label"), .secret(DBusSecret(copying: Array("4711-secret".utf8)))])
            #expect(reply == [.string("4711-secret")])
            let arguments = try await seen.next()
            #expect(arguments.first == .string("label"))
            #expect(arguments.last?.secret?.count == 11)
            #expect(arguments.last?.string == nil)
        }
    }

    @Test func aSecretMustBeValidTopLevelString() throws {
        let nul = DBusSecret(copying: [0x61, 0, 0x62])
        let notUTF8 = DBusSecret(copying: [0xff, 0xfe])
        #expect(!nul.isValidString && !notUTF8.isValidString)
        #expect(throws: DBusError.self) { try DBusValue.secret(nul).validate() }
        #expect(throws: DBusError.self) { try DBusValue.structure([.secret(DBusSecret(copying: [0x61]))]).validate() }
        #expect(DBusSecret(copying: [0x61]).description == "DBusSecret(1 bytes, redacted)")
    }
}
