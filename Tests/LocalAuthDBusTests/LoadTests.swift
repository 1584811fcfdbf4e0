// SPDX-License-Identifier: Apache-2.0
import Dispatch
import LocalAuthDBus
import LocalAuthTestSupport
import Testing

@Suite struct LoadTests {
    @Test func manyConcurrentCallsAllGetTheirOwnReply() async throws {
        try await withPrivateBus { bus in
            let peers = try await ServerAndClient.start(on: bus)
            defer { peers.close() }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for n in 0..<300 {
                    group.addTask {
                        let reply = try await peers.call("Echo", [.uint32(UInt32(n)), .string("call \(n)")])
                        #expect(reply == [.uint32(UInt32(n)), .string("call \(n)")])
                    }
                }
                try await group.waitForAll()
            }
        }
    }

    @Test func largeMessagesAreWrittenAndReadInPieces() async throws {
        try await withPrivateBus { bus in
            let peers = try await ServerAndClient.start(on: bus)
            defer { peers.close() }
            // Bigger than a socket buffer, so libdbus needs its write watch.
            let payload = (0..<1_000_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
            let reply = try await peers.call("Echo", [.bytes(payload)])
            #expect(reply == [.bytes(payload)])
        }
    }

    @Test func aClosedConnectionIsReleased() async throws {
        try await withPrivateBus { bus in
            weak var released: DBusConnection?
            do {
                let connection = try await bus.connect()
                released = connection
                try connection.register(path: "/test") { _ in .empty }
                _ = try await connection.subscribe(DBusMatchRule(member: "Anything")) { _ in }
                _ = try await connection.call(
                    destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                    member: "GetId")
                connection.close()
                connection.queue.sync {}
            }
            #expect(released == nil)
        }
    }
}
