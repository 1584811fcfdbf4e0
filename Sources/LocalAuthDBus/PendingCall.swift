// SPDX-License-Identifier: Apache-2.0
import Dispatch
import CDBus

/// One client call awaiting its reply: the bridge from a libdbus pending call to a continuation.
///
/// All state is confined to the connection's queue. libdbus holds a retained reference as the
/// notify user data and releases it when the pending call is freed.
final class PendingCall: @unchecked Sendable {
    private let connection: DBusConnection
    private var continuation: CheckedContinuation<[DBusValue], any Error>?
    private var pending: OpaquePointer?
    private var cancelled = false

    init(connection: DBusConnection) {
        self.connection = connection
    }

    func start(
        _ continuation: CheckedContinuation<[DBusValue], any Error>,
        destination: String?, path: String, interface: String?, member: String,
        arguments: [DBusValue], timeout: Duration
    ) {
        connection.queue.precondition()
        self.continuation = continuation
        guard !cancelled else { return finish(.failure(CancellationError())) }
        do throws(DBusError) {
            let message = try DBusMessage.methodCall(
                destination: destination, path: path, interface: interface, member: member, arguments: arguments,
                on: connection)
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
            finish(Result { () throws(DBusError) in try reply.arguments() })
        }
    }

    private func finish(_ result: Result<[DBusValue], some Error>) {
        // Unref'ing the pending call may release the last reference to self.
        withExtendedLifetime(self) {
            if let pending {
                self.pending = nil
                connection.outstandingCalls[ObjectIdentifier(self)] = nil
                dbus_pending_call_unref(pending)
            }
            continuation?.resume(with: result.mapError { $0 as any Error })
            continuation = nil
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
