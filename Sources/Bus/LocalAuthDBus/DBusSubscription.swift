// SPDX-License-Identifier: Apache-2.0
/// A signal subscription; pass it to `DBusConnection.unsubscribe(_:)` to end it.
public struct DBusSubscription: Sendable, Hashable {
    let id: UInt64
    let rule: String
}

/// A subscriber's rule and handler. Used only on the connection's queue.
struct SignalSubscriber {
    let rule: DBusMatchRule
    let handler: @Sendable (DBusSignal) -> Void
}
