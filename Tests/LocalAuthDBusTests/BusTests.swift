// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthDBus
import LocalAuthTestSupport
import Testing

@Suite struct BusTests {
    @Test func credentialsGiveTheCallersUidAndPid() async throws {
        try await withPrivateBus { bus in
            let daemon = try await bus.connect()
            let client = try await bus.connect()
            defer { daemon.close(); client.close() }
            let credentials = try await daemon.credentials(of: client.uniqueName)
            #expect(credentials.uid == getuid())
            #expect(credentials.pid == UInt32(getpid()))
        }
    }

    @Test func credentialsOfAGoneNameFail() async throws {
        try await withPrivateBus { bus in
            let daemon = try await bus.connect()
            let client = try await bus.connect()
            defer { daemon.close() }
            let gone = client.uniqueName
            let left = Inbox<DBusNameOwnerChange>()
            _ = try await daemon.watchNameOwners(gone) { left.put($0) }
            client.close()
            _ = try await left.next()
            let error = await #expect(throws: DBusError.self) { try await daemon.credentials(of: gone) }
            #expect(error?.name == .nameHasNoOwner)
            await #expect(throws: DBusError.self) { try await daemon.credentials(of: "not a name") }
        }
    }

    @Test func requestNameSucceedsOnceAndFailsClearlyWhenTaken() async throws {
        try await withPrivateBus { bus in
            let name = "org.localauth.LocalAuthentication1"
            let first = try await bus.connect()
            let second = try await bus.connect()
            defer { first.close(); second.close() }
            try await first.requestName(name)
            try await first.requestName(name)
            let error = await #expect(throws: DBusError.self) { try await second.requestName(name) }
            #expect(error?.message.contains(name) == true)
            // The name routes to the owner.
            try first.register(path: "/org/localauth/LocalAuthentication1") { _ in .values([.string("1.0")]) }
            let reply = try await second.call(
                destination: name, path: "/org/localauth/LocalAuthentication1", interface: "org.localauth.LocalAuthentication1.Manager",
                member: "Version")
            #expect(reply == [.string("1.0")])
            try await first.releaseName(name)
            try await second.requestName(name)
        }
    }

    @Test func losingTheBusCallsTheDisconnectHandlerInsteadOfExiting() async throws {
        let bus = try PrivateBus()
        let connection = try await bus.connect()
        let disconnected = Inbox<Void>()
        connection.onDisconnect { disconnected.put(()) }
        bus.stop()
        try await disconnected.next()
        #expect(!connection.isOpen)
        let error = await #expect(throws: DBusError.self) {
            try await connection.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus", member: "GetId")
        }
        #expect(error?.name == .disconnected)
    }

    @Test func unreachableAddressesThrow() async throws {
        let error = await #expect(throws: DBusError.self) {
            try await DBusConnection.connect(to: .address("unix:path=/nonexistent/localauth-test-bus"))
        }
        #expect(error?.message.isEmpty == false)
        await #expect(throws: DBusError.self) { try await DBusConnection.connect(to: .address("nonsense")) }
    }
}
