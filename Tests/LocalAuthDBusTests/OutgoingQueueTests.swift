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
        queue.hold("broadcast", for: nil)
        queue.hold("flood 4", for: ":1.7")
        var sent: [String] = []
        while let message = queue.next() { sent.append(message) }
        #expect(sent == ["flood 1", "quiet", "broadcast", "flood 2", "flood 3", "flood 4"])
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

/// `dbus-monitor --profile` on a bus: the method returns the bus routes, in the order it routes
/// them (the order it read them from their senders' sockets).
private final class RoutedReplies: Sendable {
    private let process: Process
    private let lines = Arrivals<String>()

    init(on bus: PrivateBus) async throws {
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-monitor")
        process.arguments = ["--address", bus.address, "--profile", "type='method_return'"]
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

    /// The destinations of the method returns `sender` sent, in the bus's order.
    func destinations(from sender: String) -> [String] {
        lines.all.compactMap { line in
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            return fields.count > 4 && fields[0] == "mr" && fields[3] == sender ? String(fields[4]) : nil
        }
    }

    func stop() { ChildProcess.kill(process) }

    struct MonitorError: Error, CustomStringConvertible {
        var description: String { "dbus-monitor did not become a monitor within 5 s" }
    }
}

@Suite struct OutgoingFairnessTests {
    /// The bus stops reading the server's socket while the server answers forty calls of one
    /// client with 32 KiB each, then one call of another client. The flooder's replies wait in
    /// their own queue, so the bus takes the other client's reply, sent last, among the first.
    @Test func aReplyToAQuietClientDoesNotWaitBehindAnotherClientsBacklog() async throws {
        try await withPrivateBus { bus in
            let monitor = try await RoutedReplies(on: bus)
            defer { monitor.stop() }
            let held = Arrivals<DBusPendingReply>()
            let server = try await bus.connect()
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
                let payload = DBusValue.string(String(repeating: "x", count: 32 * 1024))
                server.queue.sync {
                    for reply in held.all { reply.send([payload]) }
                }
                bus.resume()
                try await group.waitForAll()
            }
            #expect(await eventually { monitor.destinations(from: server.uniqueName).count == 41 })
            let routed = monitor.destinations(from: server.uniqueName)
            let position = try #require(routed.firstIndex(of: quiet.uniqueName))
            #expect(position < 8, "the bus took the quiet client's reply after \(position) of the flooder's 40")
        }
    }
}
