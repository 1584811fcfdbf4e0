// SPDX-License-Identifier: Apache-2.0
import Dispatch
import CDBus

/// Signals: emitting and subscribing.
extension DBusConnection {
    /// Emits a signal; with a `destination` it is unicast to that connection only.
    /// Throws `InvalidArgs` for invalid names or arguments, `Disconnected` if closed.
    public func emitSignal(
        path: String, interface: String, member: String, arguments: [DBusValue] = [],
        destination: String? = nil
    ) throws {
        try onQueue { () throws(DBusError) in
            let message = try DBusMessage.signal(
                path: path, interface: interface, member: member, destination: destination, arguments: arguments,
                on: self)
            try send(message)
        }
    }

    /// Emits `org.freedesktop.DBus.Properties.PropertiesChanged` for `interface` at `path`.
    public func emitPropertiesChanged(
        path: String, interface: String, changed: [String: DBusValue], invalidated: [String] = []
    ) throws {
        try emitSignal(
            path: path, interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged",
            arguments: [.string(interface), .vardict(changed), .strings(invalidated)])
    }

    /// Adds `rule` to the bus and calls `handler` (on `queue`) for every matching signal,
    /// including unicast signals addressed to this connection. Returns once the bus accepted the
    /// rule.
    public func subscribe(
        _ rule: DBusMatchRule, handler: @escaping @Sendable (DBusSignal) -> Void
    ) async throws -> DBusSubscription {
        let ruleString = try rule.ruleString()
        let subscription = onQueue {
            let id = nextSubscriptionID
            nextSubscriptionID += 1
            subscriptions[id] = SignalSubscriber(rule: rule, handler: handler)
            return DBusSubscription(id: id, rule: ruleString)
        }
        do {
            _ = try await call(
                destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                interface: "org.freedesktop.DBus", member: "AddMatch", arguments: [.string(ruleString)])
        } catch {
            onQueue { _ = subscriptions.removeValue(forKey: subscription.id) }
            throw error
        }
        return subscription
    }

    /// Ends a subscription: its handler is not called again and its rule is removed from the bus.
    public func unsubscribe(_ subscription: DBusSubscription) {
        onQueue {
            guard subscriptions.removeValue(forKey: subscription.id) != nil, let raw else { return }
            // Without an error argument this only queues RemoveMatch; it does not block.
            dbus_bus_remove_match(raw, subscription.rule, nil)
        }
    }

    /// Hands a received signal to every matching subscriber. Only on `queue`.
    func deliverSignal(_ message: DBusMessage) {
        queue.precondition()
        guard !subscriptions.isEmpty,
              let path = message.path, let interface = message.interface, let member = message.member,
              let arguments = try? message.arguments()
        else { return }
        let signal = DBusSignal(
            path: path, interface: interface, member: member, sender: message.sender,
            destination: message.destination, arguments: arguments)
        for (id, subscriber) in subscriptions where subscriber.rule.matches(signal) {
            // An earlier handler may have unsubscribed this one.
            guard subscriptions[id] != nil else { continue }
            subscriber.handler(signal)
        }
    }
}
