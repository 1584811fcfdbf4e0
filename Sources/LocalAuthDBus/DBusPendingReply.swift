// SPDX-License-Identifier: Apache-2.0
import Dispatch
import Synchronization

/// The reply owed to one method call. Completing it more than once does nothing after the first.
///
/// May be completed from any thread; the reply is sent on the connection's queue. If the last
/// reference goes away without a reply, the caller gets `Failed` rather than waiting for its
/// timeout. Keeps only the call's reply address, not the call itself (see `DBusReplyAddress`).
public final class DBusPendingReply: Sendable {
    private let address: DBusReplyAddress
    private let connection: DBusConnection
    private let member: String
    /// Whether the caller asked for a reply at all; if not, completing is a no-op.
    public let isReplyExpected: Bool
    private let completed = Atomic<Bool>(false)

    /// Only on the connection's queue.
    init(call: DBusMessage, member: String, connection: DBusConnection) {
        connection.queue.precondition()
        self.address = call.replyAddress
        self.connection = connection
        self.member = member.isEmpty ? "the call" : member
        self.isReplyExpected = !call.noReplyExpected
    }

    /// Replies with `values`. Values that are not valid D-Bus are not sent; the caller gets a
    /// `Failed` error naming the problem instead.
    public func send(_ values: [DBusValue]) {
        complete(.success(values))
    }

    /// Replies with `error`.
    public func fail(_ error: DBusError) {
        complete(.failure(error))
    }

    deinit {
        if !completed.load(ordering: .acquiring), isReplyExpected {
            let address = address, connection = connection
            let error = DBusError(.failed, "the service dropped \(member) without replying")
            connection.queue.async { Self.send(.failure(error), to: address, member: "", on: connection) }
        }
    }

    private func complete(_ result: Result<[DBusValue], DBusError>) {
        guard completed.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged,
              isReplyExpected
        else { return }
        let address = address, connection = connection, member = member
        connection.onQueueAsync { Self.send(result, to: address, member: member, on: connection) }
    }

    private static func send(
        _ result: Result<[DBusValue], DBusError>, to address: DBusReplyAddress, member: String, on connection: DBusConnection
    ) {
        connection.queue.precondition()
        let reply: DBusMessage?
        switch result {
        case .success(let values):
            do {
                reply = try DBusMessage.methodReturn(to: address, arguments: values, on: connection)
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
