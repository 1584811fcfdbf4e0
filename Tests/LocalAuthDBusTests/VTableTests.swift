// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI
import LocalAuthDBus
import LocalAuthTestSupport
import Synchronization
import Testing

/// ``DBusVTable``: the table checks interface, member, signature and property access before any
/// row runs, so a handler only ever sees what the declaration promises.
@Suite(.timeLimit(.minutes(1))) struct VTableTests {
    static let interface = DBusInterfaceDescription(
        name: "org.example.Table1",
        methods: [.init("Add", in: [.init("a", "u"), .init("b", "u")], out: [.init("sum", "u")]), .init("Ping")],
        properties: [.init("Title", "s", .readwrite, changes: .emits), .init("Subtitle", "s", .readwrite, changes: .emits),
                     .init("Count", "u", changes: .const)])

    /// What the served object saw: `ran` counts the handler runs, `titles` holds the writable properties.
    final class Seen: Sendable {
        let ran = Mutex(0)
        let titles = Mutex(["Title": "t", "Subtitle": "s"])
    }

    static func serve(on bus: PrivateBus) async throws -> (server: DBusConnection, proxy: DBusProxy, seen: Seen) {
        let seen = Seen()
        let server = try await bus.connect()
        func writer(_ name: String) -> DBusVTable.PropertyWriter {
            { _, value in
                seen.titles.withLock { $0[name] = value.string! }
                return .empty
            }
        }
        let table = DBusVTable(interface, methods: [
            .init("Add") { call throws(DBusError) in
                seen.ran.withLock { $0 += 1 }
                var arguments = call.reader
                return .values([.uint32(try arguments.uint32() + arguments.uint32())])
            },
            .init("Ping") { _ in
                seen.ran.withLock { $0 += 1 }
                return .empty
            },
        ], properties: { _, read throws(DBusError) in
            .values(try read.reply(seen.titles.withLock { ["Title": .string($0["Title"]!), "Subtitle": .string($0["Subtitle"]!), "Count": .uint32(7)] }))
        }, writers: ["Title": writer("Title"), "Subtitle": writer("Subtitle")])
        try server.register(path: "/org/example/Table1", table: table)
        let client = try await bus.connect()
        return (server, DBusProxy(interface, on: client, destination: server.uniqueName, path: "/org/example/Table1"), seen)
    }

    @Test func aWrongSignatureIsRefusedByTheTableBeforeTheHandlerRuns() async throws {
        try await withPrivateBus { bus in
            let (server, proxy, seen) = try await Self.serve(on: bus)
            defer { server.close(); proxy.connection.close() }
            #expect(try await proxy.call("Add", [.uint32(2), .uint32(3)]) == [.uint32(5)])
            for arguments: [DBusValue] in [[], [.uint32(2)], [.string("2"), .uint32(3)], [.uint32(2), .uint32(3), .uint32(4)]] {
                let error = await #expect(throws: DBusError.self) {
                    try await proxy.connection.call(destination: server.uniqueName, path: proxy.path, interface: Self.interface.name,
                                                    member: "Add", arguments: arguments)
                }
                #expect(error?.name == .invalidArgs, "Add(\(DBusValue.signature(of: arguments)))")
            }
            let unknown = await #expect(throws: DBusError.self) {
                try await proxy.connection.call(destination: server.uniqueName, path: proxy.path, interface: Self.interface.name, member: "Sub")
            }
            #expect(unknown?.name == .unknownMethod)
            let otherInterface = await #expect(throws: DBusError.self) {
                try await proxy.connection.call(destination: server.uniqueName, path: proxy.path, interface: "org.example.Other", member: "Ping")
            }
            #expect(otherInterface?.name == .unknownInterface)
            // The object does implement Introspectable: a member it lacks is an unknown method.
            let introspectable = await #expect(throws: DBusError.self) {
                try await proxy.connection.call(destination: server.uniqueName, path: proxy.path,
                                                interface: "org.freedesktop.DBus.Introspectable", member: "Ping")
            }
            #expect(introspectable?.name == .unknownMethod)
            #expect(introspectable?.message == "org.freedesktop.DBus.Introspectable has one method, Introspect, not \"Ping\".")
            #expect(seen.ran.withLock { $0 } == 1, "only the well-formed call reached a handler")
        }
    }

    @Test func propertiesAreServedFromTheDeclarationAndEachSetReachesItsOwnProperty() async throws {
        try await withPrivateBus { bus in
            let (server, proxy, seen) = try await Self.serve(on: bus)
            defer { server.close(); proxy.connection.close() }
            #expect(try await proxy.property("Count") == .uint32(7))
            #expect(try await proxy.allProperties() == ["Title": .string("t"), "Subtitle": .string("s"), "Count": .uint32(7)])
            try await proxy.setProperty("Subtitle", to: .string("new subtitle"))
            #expect(seen.titles.withLock { $0 } == ["Title": "t", "Subtitle": "new subtitle"], "a string Set reaches the property it names")
            try await proxy.setProperty("Title", to: .string("new title"))
            #expect(seen.titles.withLock { $0 } == ["Title": "new title", "Subtitle": "new subtitle"])
            func setError(_ name: String, _ value: DBusValue) async -> DBusError.Name? {
                await #expect(throws: DBusError.self) {
                    try await proxy.connection.setProperty(name, to: value, interface: Self.interface.name, path: proxy.path, destination: server.uniqueName)
                }?.name
            }
            #expect(await setError("Count", .uint32(8)) == .propertyReadOnly)
            #expect(await setError("Title", .uint32(8)) == .invalidArgs)
            #expect(await setError("Missing", .string("x")) == .unknownProperty)
            #expect(seen.titles.withLock { $0 } == ["Title": "new title", "Subtitle": "new subtitle"], "refused Sets change nothing")
        }
    }

    @Test func theProxyRefusesWhatTheDeclarationDoesNotSayBeforeSending() async throws {
        try await withPrivateBus { bus in
            let (server, proxy, seen) = try await Self.serve(on: bus)
            defer { server.close(); proxy.connection.close() }
            await #expect(throws: DBusError.self) { try await proxy.call("Add", [.uint32(2)]) }
            await #expect(throws: DBusError.self) { try await proxy.call("Sub") }
            await #expect(throws: DBusError.self) { try await proxy.setProperty("Count", to: .uint32(1)) }
            #expect(seen.ran.withLock { $0 } == 0)
        }
    }
}
