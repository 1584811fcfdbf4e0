// SPDX-License-Identifier: Apache-2.0
import LocalAuthDBus
import LocalAuthTestSupport
import Synchronization
import Testing

let testInterface = "org.localauth.Test1"

/// A server connection with an object at `/test` that answers `Echo` with its arguments, plus a
/// client connection.
struct ServerAndClient {
    let server: DBusConnection
    let client: DBusConnection

    static func start(on bus: PrivateBus, path: String = "/test", subtree: Bool = false, handler: DBusMethodHandler? = nil) async throws -> Self {
        let server = try await bus.connect()
        try server.register(path: path, subtree: subtree, handler: handler ?? { call in
            guard call.member == "Echo" else { throw DBusError(.unknownMethod, "no method \(call.member)") }
            return .values(call.arguments)
        })
        return Self(server: server, client: try await bus.connect())
    }

    func call(_ member: String, _ arguments: [DBusValue] = [], path: String = "/test", timeout: Duration = .seconds(5)) async throws -> [DBusValue] {
        try await client.call(
            destination: server.uniqueName, path: path, interface: testInterface, member: member,
            arguments: arguments, timeout: timeout)
    }

    func close() {
        client.close()
        server.close()
    }
}

@Suite struct ServerClientTests {
    @Test func everyValueRoundTripsOverTheBus() async throws {
        try await withPrivateBus { bus in
            let peers = try await ServerAndClient.start(on: bus)
            defer { peers.close() }
            let reply = try await peers.call("Echo", everyKindOfValue)
            #expect(reply == everyKindOfValue)
        }
    }

    @Test func handlerSeesPathInterfaceMemberSenderAndSignature() async throws {
        try await withPrivateBus { bus in
            let seen = Inbox<DBusMethodCall>()
            let peers = try await ServerAndClient.start(on: bus, path: "/org/localauth/LocalAuthentication1/context", subtree: true) { call in
                seen.put(call)
                return .values([.objectPath(call.path)])
            }
            defer { peers.close() }
            let reply = try await peers.call(
                "Evaluate", [.uint32(2), .string("reason")], path: "/org/localauth/LocalAuthentication1/context/3")
            #expect(reply == [.objectPath("/org/localauth/LocalAuthentication1/context/3")])
            let call = try await seen.next()
            #expect(call.interface == testInterface)
            #expect(call.member == "Evaluate")
            #expect(call.sender == peers.client.uniqueName)
            #expect(call.signature == "us")
        }
    }

    @Test func deferredReplyIsSentLater() async throws {
        try await withPrivateBus { bus in
            let kept = Inbox<DBusPendingReply>()
            let peers = try await ServerAndClient.start(on: bus) { call in
                kept.put(call.reply)
                return .deferred
            }
            defer { peers.close() }
            let reply = Task { try await peers.call("Evaluate", [.uint32(1)]) }
            // The handler has returned; the reply is still owed until we complete it here.
            let pending = try await kept.next()
            pending.send([.bool(true), .vardict(["n": .uint32(1)])])
            pending.fail(DBusError(.failed, "second completion is ignored"))
            #expect(try await reply.value == [.bool(true), .vardict(["n": .uint32(1)])])
        }
    }

    @Test func errorRepliesBecomeDBusErrorsWithNameAndMessage() async throws {
        try await withPrivateBus { bus in
            let peers = try await ServerAndClient.start(on: bus) { call in
                if call.member == "Details" {
                    throw DBusError("org.localauth.LocalAuthentication1.Error.PasscodeLockout", "wait", details: [.uint64(1_800_000_000)])
                }
                if call.member == "Defer" {
                    call.reply.fail(DBusError("org.localauth.LocalAuthentication1.Error.UserCancel", "later"))
                    return .deferred
                }
                throw DBusError("org.localauth.LocalAuthentication1.Error.BiometryLockout", "too many failed attempts")
            }
            defer { peers.close() }
            await #expect(throws: DBusError("org.localauth.LocalAuthentication1.Error.BiometryLockout", "too many failed attempts")) {
                try await peers.call("Evaluate")
            }
            await #expect(throws: DBusError("org.localauth.LocalAuthentication1.Error.UserCancel", "later")) {
                try await peers.call("Defer")
            }
            await #expect(throws: DBusError("org.localauth.LocalAuthentication1.Error.PasscodeLockout", "wait", details: [.uint64(1_800_000_000)])) {
                try await peers.call("Details")
            }
        }
    }

    @Test func wrongSignatureIsAnsweredWithInvalidArgs() async throws {
        try await withPrivateBus { bus in
            let peers = try await ServerAndClient.start(on: bus) { call in
                var reader = call.reader
                let options = try reader.vardict()
                try reader.finish()
                return .values([.uint32(UInt32(options.count))])
            }
            defer { peers.close() }
            #expect(try await peers.call("Create", [.vardict(["a": .bool(true)])]) == [.uint32(1)])
            let error = await #expect(throws: DBusError.self) { try await peers.call("Create", [.string("not a{sv}")]) }
            #expect(error?.name == .invalidArgs)
            #expect(error?.message == "argument 1 should be of type a{sv}, got s")
            let extra = await #expect(throws: DBusError.self) { try await peers.call("Create", [.vardict([:]), .uint32(1)]) }
            #expect(extra?.name == .invalidArgs)
        }
    }

    @Test func invalidStringsAreRejectedWithoutAborting() async throws {
        try await withPrivateBus { bus in
            let peers = try await ServerAndClient.start(on: bus) { call in
                // A reply a careless service might build from untrusted input.
                .values([.objectPath("/context/" + call.member + "-1")])
            }
            defer { peers.close() }
            let client = peers.client
            for attempt in [
                { try await client.call(destination: peers.server.uniqueName, path: "no-slash", interface: nil, member: "M") },
                { try await client.call(destination: "bad..name", path: "/test", interface: nil, member: "M") },
                { try await client.call(destination: nil, path: "/test", interface: "x", member: "M") },
                { try await client.call(destination: nil, path: "/test", interface: nil, member: "a-b") },
                { try await client.call(destination: nil, path: "/test", interface: nil, member: "M", arguments: [.string("\u{0}")]) },
            ] as [@Sendable () async throws -> [DBusValue]] {
                let error = await #expect(throws: DBusError.self) { try await attempt() }
                #expect(error?.name == .invalidArgs)
            }
            #expect(throws: DBusError.self) { try client.emitSignal(path: "/t", interface: "a.b", member: "S", arguments: [.string("a\u{0}b")]) }
            #expect(throws: DBusError.self) { try client.register(path: "/bad/", handler: { _ in .empty }) }
            // The server's invalid reply turns into an error the caller can see.
            let error = await #expect(throws: DBusError.self) { try await peers.call("Evaluate") }
            #expect(error?.name == .failed)
            #expect(error?.message.contains("invalid object path") == true)
            // Both connections still work.
            #expect(client.isOpen && peers.server.isOpen)
        }
    }

    @Test func unansweredCallTimesOutWithNoReply() async throws {
        try await withPrivateBus { bus in
            let kept = Mutex<[DBusPendingReply]>([])
            let peers = try await ServerAndClient.start(on: bus) { call in
                kept.withLock { $0.append(call.reply) }
                return .deferred
            }
            defer { peers.close() }
            let clock = ContinuousClock()
            let started = clock.now
            let error = await #expect(throws: DBusError.self) { try await peers.call("Evaluate", timeout: .milliseconds(200)) }
            #expect(error?.name == .noReply)
            // The call's 200 ms applied, not libdbus's 25 s default (the slack is for a loaded machine).
            #expect(clock.now - started < .seconds(20))
        }
    }

    @Test func droppedPendingReplyAnswersWithFailed() async throws {
        try await withPrivateBus { bus in
            let peers = try await ServerAndClient.start(on: bus) { _ in .deferred }
            defer { peers.close() }
            let error = await #expect(throws: DBusError.self) { try await peers.call("Evaluate") }
            #expect(error?.name == .failed)
        }
    }

    @Test func introspectionIsAnsweredWithTheGivenXML() async throws {
        try await withPrivateBus { bus in
            let xml = "<node><interface name=\"org.localauth.Test1\"/></node>"
            let server = try await bus.connect()
            try server.register(path: "/test", introspectionXML: xml) { _ in .empty }
            let client = try await bus.connect()
            defer { client.close(); server.close() }
            let reply = try await client.call(
                destination: server.uniqueName, path: "/test", interface: "org.freedesktop.DBus.Introspectable",
                member: "Introspect")
            #expect(reply == [.string(xml)])
            // Peer is answered below the handler.
            #expect(try await client.call(
                destination: server.uniqueName, path: "/test", interface: "org.freedesktop.DBus.Peer", member: "Ping") == [])
        }
    }

    /// A call is decoded only up to 4096 values: a dictionary of 20 000 entries is refused with
    /// LimitsExceeded before the handler runs (decoding 200 000 took the queue for seconds).
    @Test func aCallWithTooManyValuesIsRefusedWhileDecoding() async throws {
        try await withPrivateBus { bus in
            let handled = Inbox<Int>()
            let peers = try await ServerAndClient.start(on: bus) { call in
                handled.put(call.arguments.count)
                return .empty
            }
            defer { peers.close() }
            func options(_ count: Int) -> DBusValue {
                .vardict(Dictionary(uniqueKeysWithValues: (0..<count).map { ("key\($0)", DBusValue.variant(.uint32(UInt32($0)))) }))
            }
            _ = try await peers.call("Small", [options(500)])
            #expect(try await handled.next() == 1)
            do {
                _ = try await peers.call("Huge", [options(20_000)])
                Issue.record("a call with 20 000 dictionary entries was accepted")
            } catch let error as DBusError {
                #expect(error.name == .limitsExceeded, "\(error)")
                #expect(error.message.contains("4096"))
            }
            _ = try await peers.call("AfterIt", [])
            #expect(try await handled.next() == 0, "the handler saw the refused call")
        }
    }

    @Test func callsToUnregisteredPathsFail() async throws {
        try await withPrivateBus { bus in
            let peers = try await ServerAndClient.start(on: bus)
            defer { peers.close() }
            let error = await #expect(throws: DBusError.self) { try await peers.call("Echo", path: "/elsewhere") }
            #expect(error?.name == .unknownObject || error?.name == .unknownMethod)
            peers.server.unregister(path: "/test")
            await #expect(throws: DBusError.self) { try await peers.call("Echo") }
            #expect(throws: DBusError.self) { try peers.server.register(path: "/dup") { _ in .empty }; try peers.server.register(path: "/dup") { _ in .empty } }
        }
    }

    @Test func cancellingACallThrowsCancellationError() async throws {
        try await withPrivateBus { bus in
            let arrived = Inbox<DBusPendingReply>()
            let peers = try await ServerAndClient.start(on: bus) { call in arrived.put(call.reply); return .deferred }
            defer { peers.close() }
            // Cancelled while the server holds the call.
            let inFlight = Task { try await peers.call("Evaluate") }
            let kept = try await arrived.next()
            inFlight.cancel()
            await #expect(throws: CancellationError.self) { try await inFlight.value }
            kept.send([])
            // Cancelled before it starts.
            let early = Task {
                withUnsafeCurrentTask { $0?.cancel() }
                return try await peers.call("Evaluate")
            }
            await #expect(throws: CancellationError.self) { try await early.value }
            // The connection still works.
            #expect(try await peers.client.call(
                destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                member: "NameHasOwner", arguments: [.string(peers.server.uniqueName)]) == [.bool(true)])
        }
    }

    @Test func closingFailsOutstandingCalls() async throws {
        try await withPrivateBus { bus in
            let arrived = Inbox<DBusPendingReply>()
            let peers = try await ServerAndClient.start(on: bus) { call in arrived.put(call.reply); return .deferred }
            defer { peers.close() }
            let reply = Task { try await peers.call("Evaluate") }
            let kept = try await arrived.next()
            peers.client.close()
            let error = await #expect(throws: DBusError.self) { try await reply.value }
            #expect(error?.name == .disconnected)
            await #expect(throws: DBusError.self) { try await peers.call("Evaluate") }
            kept.send([])
        }
    }
}
