// SPDX-License-Identifier: Apache-2.0
import Foundation
@testable import LocalAuthDBus
import LocalAuthTestSupport
import Synchronization
import Testing

@Suite struct OutgoingQueueTests {
    @Test func destinationsTakeTurnsAndEachKeepsItsOrder() {
        var queue = DBusOutgoingQueue<String>()
        for n in 1...3 { queue.hold("flood \(n)", for: ":1.7") }
        queue.hold("quiet", for: ":1.9")
        queue.hold("other", for: ":1.12")
        queue.hold("flood 4", for: ":1.7")
        var sent: [String] = []
        while let message = queue.next() { sent.append(message) }
        #expect(sent == ["flood 1", "quiet", "other", "flood 2", "flood 3", "flood 4"])
        #expect(queue.isEmpty)
    }

    @Test func aLongBacklogKeepsItsOrderWhileItsSpaceIsGivenBack() {
        var queue = DBusOutgoingQueue<Int>()
        for n in 0..<100 { queue.hold(n, for: ":1.7") }
        var sent: [Int] = []
        for n in 100..<150 {
            sent.append(queue.next()!)
            queue.hold(n, for: ":1.7")
        }
        while let n = queue.next() { sent.append(n) }
        #expect(sent == Array(0..<150))
    }

    @Test func takingADestinationsMessagesLeavesTheOthersTurns() {
        var queue = DBusOutgoingQueue<String>()
        queue.hold("a1", for: ":1.1")
        queue.hold("b1", for: ":1.2")
        queue.hold("a2", for: ":1.1")
        #expect(queue.takeAll(for: ":1.1") == ["a1", "a2"])
        #expect(queue.takeAll(for: ":1.3").isEmpty)
        #expect(queue.next() == "b1")
        #expect(queue.next() == nil)
        #expect(queue.isEmpty)
    }
}

/// Values appended from several tasks, in the order they came.
private final class Arrivals<Element: Sendable>: Sendable {
    private let items = Mutex<[Element]>([])
    func append(_ item: Element) { items.withLock { $0.append(item) } }
    var all: [Element] { items.withLock { $0 } }
}

/// `dbus-monitor --profile` on a bus: the method returns and signals the bus routes, in the order
/// it routes them (the order it read them from their senders' sockets).
private final class RoutedMessages: Sendable {
    private let process: Process
    private let lines = Arrivals<String>()

    init(on bus: PrivateBus) async throws {
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-monitor")
        process.arguments = ["--address", bus.address, "--profile", "type='method_return'", "type='signal'"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let (reader, lines) = (output.fileHandleForReading, lines)
        Thread.detachNewThread {
            var pending = ""
            while case let chunk = reader.availableData, !chunk.isEmpty {
                pending += String(decoding: chunk, as: UTF8.self)
                while let end = pending.firstIndex(of: "\n") {
                    lines.append(String(pending[..<end]))
                    pending = String(pending[pending.index(after: end)...])
                }
            }
        }
        // It prints NameLost once it has become a monitor.
        guard await eventually({ lines.all.contains { $0.contains("NameLost") } }) else {
            throw MonitorError()
        }
    }

    /// What `sender` sent, in the bus's order: each method return's destination, and `signal
    /// MEMBER` for a signal.
    func routed(from sender: String) -> [String] {
        lines.all.compactMap { line in
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard fields.count > 4, fields[3] == sender else { return nil }
            switch fields[0] {
            case "mr": return String(fields[4])
            case "sig" where fields.count > 7: return "signal \(fields[7])"
            default: return nil
            }
        }
    }

    func stop() { ChildProcess.kill(process) }

    struct MonitorError: Error, CustomStringConvertible {
        var description: String { "dbus-monitor did not become a monitor within 5 s" }
    }
}

@Suite struct OutgoingFairnessTests {
    /// The bus stops reading the server's socket while the server answers forty calls of one
    /// client with 32 KiB each, then one call of another client, then broadcasts a signal. The
    /// flooder's replies wait in their own queue, so the bus takes the other client's reply, sent
    /// last, among the first; the broadcast goes after every reply. Peer calls read meanwhile are
    /// answered by the server itself, as libdbus would.
    @Test func aReplyToAQuietClientDoesNotWaitBehindAnotherClientsBacklog() async throws {
        try await withPrivateBus { bus in
            let monitor = try await RoutedMessages(on: bus)
            defer { monitor.stop() }
            let held = Arrivals<DBusPendingReply>()
            let server = try await DBusConnection.connect(to: .address(bus.address), sendBuffer: 8 * 1024)
            try server.register(path: "/test") { call in
                held.append(call.reply)
                return .deferred
            }
            let flooder = try await bus.connect(), quiet = try await bus.connect()
            defer { [server, flooder, quiet].forEach { $0.close() } }
            let destination = server.uniqueName
            let hold: @Sendable (DBusConnection) async throws -> Void = { client in
                _ = try await client.call(
                    destination: destination, path: "/test", interface: testInterface, member: "Hold", timeout: .seconds(60))
            }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<40 { group.addTask { try await hold(flooder) } }
                #expect(await eventually { held.all.count == 40 })
                group.addTask { try await hold(quiet) }
                #expect(await eventually { held.all.count == 41 })
                bus.suspend()
                defer { bus.resume() }
                let payload = DBusValue.string(String(repeating: "x", count: 32 * 1024))
                server.queue.sync {
                    for reply in held.all { reply.send([payload]) }
                }
                try server.emitSignal(path: "/test", interface: testInterface, member: "Changed")
                // Read while the flooder's replies are still held: the daemon answers Peer itself.
                let peer: @Sendable (String) async throws -> [DBusValue] = { member in
                    try await quiet.call(destination: destination, path: "/", interface: "org.freedesktop.DBus.Peer", member: member)
                }
                async let ping = peer("Ping")
                async let machineID = peer("GetMachineId")
                async let unknown: DBusError? = {
                    do { _ = try await peer("GetSomethingElse") } catch let error as DBusError { return error } catch {}
                    return nil
                }()
                bus.resume()
                try await group.waitForAll()
                #expect(try await ping == [])
                let busMachineID = try await quiet.call(
                    destination: "org.freedesktop.DBus", path: "/", interface: "org.freedesktop.DBus.Peer", member: "GetMachineId")
                #expect(try await machineID == busMachineID)
                #expect(await unknown?.name == .unknownMethod)
            }
            #expect(await eventually { monitor.routed(from: server.uniqueName).contains("signal Changed") })
            let routed = monitor.routed(from: server.uniqueName)
            let position = try #require(routed.firstIndex(of: quiet.uniqueName))
            #expect(position < 8, "the bus took the quiet client's reply after \(position) of the flooder's 40")
            #expect(routed.firstIndex(of: "signal Changed") == 41, "\(routed)")
        }
    }
}
