// SPDX-License-Identifier: Apache-2.0
import CDBus
/// Client side: method calls.
extension DBusConnection {
    /// Calls a method and returns the reply's arguments.
    ///
    /// Throws a `DBusError`: the error reply's name and message, `NoReply` after `timeout`,
    /// `InvalidArgs` if a name, path or argument is not valid D-Bus (checked before anything is
    /// sent), `Disconnected` if the connection closes first. Cancelling the task abandons the call
    /// and throws `CancellationError`. Runs in the caller's isolation (no hop to the global executor).
    public nonisolated(nonsending) func call(
        destination: String?, path: String, interface: String?, member: String,
        arguments: [DBusValue] = [], timeout: Duration = .seconds(25)
    ) async throws -> [DBusValue] {
        try await call(destination: destination, member: member, timeout: timeout) { connection throws(DBusError) in
            try DBusMessage.methodCall(destination: destination, path: path, interface: interface, member: member,
                                       arguments: arguments, on: connection)
        } read: { reply throws(DBusError) in
            try reply.arguments()
        }
    }

    /// Sends the call `message` builds (on the connection's queue) and returns what `read` makes
    /// of the reply there; errors as ``call(destination:path:interface:member:arguments:timeout:)``.
    nonisolated(nonsending) func call<Reply: Sendable>(
        destination: String?, member: String, timeout: Duration,
        message: @escaping @Sendable (DBusConnection) throws(DBusError) -> DBusMessage,
        read: @escaping @Sendable (DBusMessage) throws(DBusError) -> Reply
    ) async throws -> Reply {
        let call = PendingCall(connection: self)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                queue.async {
                    call.start({ result in
                        continuation.resume(with: result.flatMap { reply in Result { () throws(DBusError) in try read(reply) }.mapError { $0 } })
                    }, destination: destination, member: member, timeout: timeout) { () throws(DBusError) in try message(self) }
                }
            }
        } onCancel: {
            queue.async { call.cancel() }
        }
    }
}

extension DBusConnection {
    /// Sends a method call flagged NO_REPLY_EXPECTED and returns at once. Calls sent from one
    /// thread in order reach the peer in that order. Throws `InvalidArgs` for an invalid name,
    /// path or argument (nothing is sent), `Disconnected` if closed.
    public func send(
        callTo destination: String, path: String, interface: String, member: String, arguments: [DBusValue] = []
    ) throws {
        try onQueue { () throws(DBusError) in
            let message = try DBusMessage.methodCall(
                destination: destination, path: path, interface: interface, member: member, arguments: arguments, on: self)
            dbus_message_set_no_reply(message.raw, 1)
            try send(message)
        }
    }

    /// Sends the call `message` builds flagged NO_REPLY_EXPECTED, as ``send(callTo:path:interface:member:arguments:)``.
    func send(_ message: () throws(DBusError) -> DBusMessage) throws {
        try onQueue { () throws(DBusError) in
            let message = try message()
            dbus_message_set_no_reply(message.raw, 1)
            try send(message)
        }
    }
}
