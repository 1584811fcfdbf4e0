// SPDX-License-Identifier: Apache-2.0
import Dispatch
import CDBus

/// One client call awaiting its reply: the bridge from a libdbus pending call to whoever decodes
/// the reply (a ``DBusValue`` list or a typed ``BusMethod`` reply), on the connection's queue.
///
/// All state is confined to the connection's queue. libdbus holds a retained reference as the
/// notify user data and releases it when the pending call is freed.
final class PendingCall: @unchecked Sendable {
    private let connection: DBusConnection
    /// Takes the reply message (not an error reply) or the failure, once.
    private var deliver: ((Result<DBusMessage, any Error>) -> Void)?
    private var pending: OpaquePointer?
    private var cancelled = false

    init(connection: DBusConnection) {
        self.connection = connection
    }

    /// Sends the call `message` builds and hands `deliver` its outcome.
    func start(
        _ deliver: @escaping (Result<DBusMessage, any Error>) -> Void, destination: String?, member: String,
        timeout: Duration, message: () throws(DBusError) -> DBusMessage
    ) {
        connection.queue.precondition()
        self.deliver = deliver
        guard !cancelled else { return finish(.failure(CancellationError())) }
        do throws(DBusError) {
            let message = try message()
            let raw = try connection.openConnection()
            connection.sendHeldBack(to: destination)
            var pending: OpaquePointer?
            guard dbus_connection_send_with_reply(raw, message.raw, &pending, Self.milliseconds(timeout)) != 0 else {
                throw DBusError(.noMemory, "out of memory sending \(member)")
            }
            guard let pending else { throw .disconnected() }
            self.pending = pending
            connection.outstandingCalls[ObjectIdentifier(self)] = self
            let context = Unmanaged.passRetained(self).toOpaque()
            let notifying = dbus_pending_call_set_notify(
                pending,
                { _, data in Unmanaged<PendingCall>.fromOpaque(data!).takeUnretainedValue().complete() },
                context,
                { data in Unmanaged<PendingCall>.fromOpaque(data!).release() })
            guard notifying != 0 else {
                Unmanaged<PendingCall>.fromOpaque(context).release()
                throw DBusError(.noMemory, "out of memory waiting for the reply to \(member)")
            }
            // The notify function never fires for a call that completed before it was set.
            if dbus_pending_call_get_completed(pending) != 0 { complete() }
        } catch {
            finish(.failure(error))
        }
    }

    func cancel() {
        connection.queue.precondition()
        cancelled = true
        fail(CancellationError())
    }

    func fail(_ error: any Error) {
        connection.queue.precondition()
        guard let pending else { return }
        dbus_pending_call_cancel(pending)
        finish(.failure(error))
    }

    private func complete() {
        connection.queue.precondition()
        guard let pending else { return }
        guard let stolen = dbus_pending_call_steal_reply(pending) else {
            return finish(.failure(DBusError(.noReply, "the call completed without a reply")))
        }
        let reply = DBusMessage(owning: stolen, releasedOn: connection)
        if reply.kind == .error {
            finish(.failure(reply.asError()))
        } else {
            finish(.success(reply))
        }
    }

    private func finish(_ result: Result<DBusMessage, any Error>) {
        // Unref'ing the pending call may release the last reference to self.
        withExtendedLifetime(self) {
            if let pending {
                self.pending = nil
                connection.outstandingCalls[ObjectIdentifier(self)] = nil
                dbus_pending_call_unref(pending)
            }
            deliver?(result)
            deliver = nil
        }
    }

    /// libdbus takes milliseconds as an `int`; clamp rather than overflow.
    private static func milliseconds(_ timeout: Duration) -> Int32 {
        let (seconds, attoseconds) = timeout.components
        guard seconds < Int64(Int32.max / 1000) else { return Int32.max }
        let ms = seconds * 1000 + attoseconds / 1_000_000_000_000_000
        return Int32(clamping: max(ms, 0))
    }
}
