// SPDX-License-Identifier: Apache-2.0
import LocalAuthDBus
import LocalAuthTestSupport
import Synchronization
import Testing

@Suite struct PropertiesTests {
    /// A context-like object with read/write properties of the daemon's types.
    static func serveContext(on bus: PrivateBus) async throws -> (DBusConnection, path: String) {
        let path = "/org/localauth/LocalAuthentication1/context/1"
        let interface = "org.localauth.LocalAuthentication1.Context"
        let properties = Mutex<[String: DBusValue]>([
            "Policy": .uint32(1), "LocalizedReason": .string("unlock"), "Interactive": .bool(true),
            "ReuseDuration": .double(0), "DomainState": .bytes([1, 2, 3]),
        ])
        let server = try await bus.connect()
        try server.register(path: "/org/localauth/LocalAuthentication1/context", subtree: true) { call in
            guard let request = try DBusPropertyRequest(call) else { throw DBusError(.unknownMethod, call.member) }
            switch request {
            case .get(interface, let name):
                guard let value = properties.withLock({ $0[name] }) else { throw DBusError(.unknownProperty, name) }
                return .values([.variant(value)])
            case .getAll(interface):
                return .values([.vardict(properties.withLock { $0 })])
            case .set(interface, let name, let value):
                try properties.withLock { (properties) throws(DBusError) in
                    guard let old = properties[name] else { throw DBusError(.unknownProperty, name) }
                    guard old.signature == value.signature else {
                        throw .invalidArgs("\(name) is of type \(old.signature), not \(value.signature)")
                    }
                    properties[name] = value
                }
                try server.emitPropertiesChanged(path: call.path, interface: interface, changed: [name: value])
                return .empty
            default:
                throw DBusError(.unknownInterface, "no interface")
            }
        }
        return (server, path)
    }

    @Test func clientReadsAndWritesProperties() async throws {
        try await withPrivateBus { bus in
            let (server, path) = try await Self.serveContext(on: bus)
            let client = try await bus.connect()
            defer { client.close(); server.close() }
            let interface = "org.localauth.LocalAuthentication1.Context"
            let changes = Inbox<DBusSignal>()
            _ = try await client.subscribe(DBusMatchRule(path: path, member: "PropertiesChanged")) { changes.put($0) }

            #expect(try await client.property("DomainState", interface: interface, path: path, destination: server.uniqueName) == .bytes([1, 2, 3]))
            try await client.setProperty("LocalizedReason", to: .string("sudo"), interface: interface, path: path, destination: server.uniqueName)
            #expect(try await changes.next().arguments == [.string(interface), .vardict(["LocalizedReason": .string("sudo")]), .strings([])])
            let all = try await client.allProperties(interface: interface, path: path, destination: server.uniqueName)
            #expect(all == [
                "Policy": .uint32(1), "LocalizedReason": .string("sudo"), "Interactive": .bool(true),
                "ReuseDuration": .double(0), "DomainState": .bytes([1, 2, 3]),
            ])

            let wrongType = await #expect(throws: DBusError.self) {
                try await client.setProperty("Policy", to: .string("x"), interface: interface, path: path, destination: server.uniqueName)
            }
            #expect(wrongType?.name == .invalidArgs)
            let malformed = await #expect(throws: DBusError.self) {
                try await client.call(
                    destination: server.uniqueName, path: path, interface: DBusPropertyRequest.interface, member: "Get",
                    arguments: [.string(interface)])
            }
            #expect(malformed?.name == .invalidArgs)
            let unknown = await #expect(throws: DBusError.self) {
                try await client.property("Nope", interface: interface, path: path, destination: server.uniqueName)
            }
            #expect(unknown?.name == .unknownProperty)
        }
    }
}
