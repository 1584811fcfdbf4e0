// SPDX-License-Identifier: Apache-2.0
import CDBus
import Dispatch
@testable import LocalAuthDBus
import LocalAuthTestSupport
import Synchronization
import Testing

/// A message dropped on another thread is freed on its connection's queue: freeing a received
/// message can make libdbus call the connection's watch functions, which must run on that queue.
@Suite("Message release", .timeLimit(.minutes(1)))
struct MessageReleaseTests {
    /// Attached to a message with `dbus_message_set_data`; libdbus calls `freed` on the thread
    /// that frees the message, and the probe notes whether that was the connection's queue.
    final class Probe: Sendable {
        let connection: DBusConnection
        let released = Inbox<Bool>()
        init(connection: DBusConnection) { self.connection = connection }

        static let freed: DBusFreeFunction = { data in
            let probe = Unmanaged<Probe>.fromOpaque(data!).takeRetainedValue()
            probe.released.put(probe.connection.queue.isCurrent)
        }
    }

    @Test func aMessageDroppedOffTheQueueIsFreedOnIt() async throws {
        try await withPrivateBus { bus in
            let connection = try await bus.connect()
            defer { connection.close() }
            var slot: Int32 = -1
            #expect(dbus_message_allocate_data_slot(&slot) != 0)
            defer { dbus_message_free_data_slot(&slot) }
            let probe = Probe(connection: connection)
            let message = try connection.queue.sync {
                let message = try DBusMessage.methodCall(
                    destination: nil, path: "/probe", interface: nil, member: "Probe", arguments: [], on: connection)
                #expect(dbus_message_set_data(message.raw, slot, Unmanaged.passRetained(probe).toOpaque(), Probe.freed) != 0)
                return message
            }
            // The only reference goes away here, on a test thread.
            #expect(!connection.queue.isCurrent)
            _ = consume message
            #expect(try await probe.released.next(within: .seconds(10)), "libdbus freed the message off the connection's queue")
        }
    }
}
