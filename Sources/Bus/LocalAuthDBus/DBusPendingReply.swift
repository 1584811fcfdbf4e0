// SPDX-License-Identifier: Apache-2.0
import CDBus
import Dispatch
import Synchronization

/// The reply owed to one method call. Completing it more than once does nothing after the first.
///
/// May be completed from any thread; the reply is sent on the connection's queue. If the last
/// reference goes away without a reply, the caller gets `Failed` rather than waiting for its
/// timeout. Keeps the call's reply address and its method return's header, not the call itself
/// (see `DBusReplyAddress`).
public final class DBusPendingReply: Sendable {
    private let address: DBusReplyAddress
    /// The method return, headed when the call arrives: `dbus_message_new_method_return` writes the
    /// destination with the rest of the header, where setting it afterwards re-marshals the header
    /// (~4 000 instructions a reply). Nil when no reply is expected; if libdbus was out of memory,
    /// the reply is built from `address`. Error replies are always built from `address`, so a call
    /// answered with an error has paid for this message in vain: a few hundred bytes, bounded like
    /// the calls themselves by the callers' request queue limits. Only touched on the connection's queue.
    private let methodReturn: DBusMessage?
    private let connection: DBusConnection
    private let member: String
    /// Whether the caller asked for a reply at all; if not, completing is a no-op.
    public let isReplyExpected: Bool
    private let completed = Atomic<Bool>(false)

    /// Only on the connection's queue. `sender` is the call's (``DBusMessage/sender``), read already.
    init(call: DBusMessage, sender: String?, member: String, connection: DBusConnection) {
        connection.queue.precondition()
        self.address = DBusReplyAddress(serial: dbus_message_get_serial(call.raw), sender: sender)
        self.connection = connection
        self.member = member.isEmpty ? "the call" : member
        self.isReplyExpected = !call.noReplyExpected
        self.methodReturn = isReplyExpected ? dbus_message_new_method_return(call.raw).map {
            DBusMessage(owning: $0, releasedOn: connection)
        } : nil
    }

    /// Replies with `values`. Values that are not valid D-Bus are not sent; the caller gets a
    /// `Failed` error naming the problem instead.
    public func send(_ values: [DBusValue]) {
        complete(.success(values))
    }

    /// Replies with `value`, written straight into the reply as `Output`, the reply type of the
    /// method's ``BusMethod`` declaration (``BusWire/Nothing`` for an empty reply).
    public func send<Output: DBusArgument>(_ value: Output.Value, as output: Output.Type) {
        guard completed.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged,
              isReplyExpected
        else { return }
        if connection.queue.isCurrent {
            Self.send(value, as: output, to: address, member: member, on: connection, prepared: methodReturn)
            return
        }
        let address = address, connection = connection, member = member, methodReturn = methodReturn
        connection.queue.async { Self.send(value, as: output, to: address, member: member, on: connection, prepared: methodReturn) }
    }

    /// Replies with `error`.
    public func fail(_ error: DBusError) {
        complete(.failure(error))
    }

    deinit {
        if !completed.load(ordering: .acquiring), isReplyExpected {
            let address = address, connection = connection
            let error = DBusError(.failed, "the service dropped \(member) without replying")
            connection.queue.async { Self.send(.failure(error), to: address, member: "", on: connection, prepared: nil) }
        }
    }

    private func complete(_ result: Result<[DBusValue], DBusError>) {
        guard completed.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged,
              isReplyExpected
        else { return }
        // Sent at once on the loop (the usual case) without allocating the closure that `async` takes.
        if connection.queue.isCurrent {
            Self.send(result, to: address, member: member, on: connection, prepared: methodReturn)
            return
        }
        let address = address, connection = connection, member = member, methodReturn = methodReturn
        connection.queue.async { Self.send(result, to: address, member: member, on: connection, prepared: methodReturn) }
    }

    private static func send<Output: DBusArgument>(
        _ value: Output.Value, as output: Output.Type, to address: DBusReplyAddress, member: String, on connection: DBusConnection,
        prepared methodReturn: DBusMessage?
    ) {
        connection.queue.precondition()
        let reply: DBusMessage?
        do {
            let message = try methodReturn ?? DBusMessage.methodReturn(to: address, arguments: [], on: connection)
            try DBusMessageWriter.write(message) { (writer: inout DBusMessageWriter) throws(DBusError) in try Output.append(value, to: &writer) }
            reply = message
        } catch {
            let invalid = DBusError.failed("the service's reply to \(member) is invalid: \((error as? DBusError)?.message ?? "\(error)")")
            reply = try? DBusMessage.errorReply(to: address, invalid, on: connection)
        }
        if let reply { try? connection.send(reply) }
    }

    private static func send(
        _ result: Result<[DBusValue], DBusError>, to address: DBusReplyAddress, member: String, on connection: DBusConnection,
        prepared methodReturn: DBusMessage?
    ) {
        connection.queue.precondition()
        let reply: DBusMessage?
        switch result {
        case .success(let values):
            do {
                if let methodReturn {
                    try methodReturn.append(values)
                    reply = methodReturn
                } else {
                    reply = try DBusMessage.methodReturn(to: address, arguments: values, on: connection)
                }
            } catch {
                let invalid = DBusError.failed("the service's reply to \(member) is invalid: \(error.message)")
                reply = try? DBusMessage.errorReply(to: address, invalid, on: connection)
            }
        case .failure(let error):
            reply = try? DBusMessage.errorReply(to: address, error, on: connection)
        }
        // A closed connection has nowhere to send; the caller sees the disconnection instead.
        if let reply { try? connection.send(reply) }
    }
}
