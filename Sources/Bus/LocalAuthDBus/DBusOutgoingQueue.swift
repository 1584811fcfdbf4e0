// SPDX-License-Identifier: Apache-2.0

/// The messages a connection holds back from libdbus while the bus is slow to read its socket:
/// one queue per destination, handed out round-robin.
///
/// libdbus writes a connection's messages in the order they were sent. A client that pipelines
/// calls and never waits for the replies keeps the bus busy, so the bus reads the daemon's socket
/// more slowly than it delivers that client's calls. The replies then pile up in the socket and in
/// libdbus's queue, and every other client's reply waits behind all of them: seconds, measured
/// with eight such connections. Held here instead, a reply to a quiet client waits for at most
/// one message per other destination. Each destination's messages keep their order.
///
/// Holds what libdbus would otherwise hold, so it is bounded the same way: by the bus's limit on
/// a caller's calls awaiting replies, and by the calls and events that produce the signals.
/// Confined to its connection's loop. Generic over the message so that its order is unit-tested.
struct DBusOutgoingQueue<Message> {
    /// One destination's held messages, oldest first from `head`.
    private struct Backlog {
        var messages: [Message]
        var head = 0
    }

    /// Keyed by destination (a broadcast is never held: it goes after everything held before it).
    private var backlogs: [String: Backlog] = [:]
    /// The destinations with held messages, the next to send first.
    private var rotation: [String] = []

    var isEmpty: Bool { rotation.isEmpty }

    /// Holds `message` after those already held for `destination`.
    mutating func hold(_ message: Message, for destination: String) {
        if backlogs[destination]?.messages.append(message) == nil {
            backlogs[destination] = Backlog(messages: [message])
            rotation.append(destination)
        }
    }

    /// The oldest message of the destination whose turn it is; that destination's turn then
    /// passes to the next one.
    mutating func next() -> Message? {
        guard !rotation.isEmpty else { return nil }
        let key = rotation.removeFirst()
        guard var backlog = backlogs.removeValue(forKey: key) else { return nil }
        let message = backlog.messages[backlog.head]
        backlog.head += 1
        if backlog.head < backlog.messages.count {
            // Give back the space of sent messages once they are most of the array.
            if backlog.head > 32, backlog.head * 2 > backlog.messages.count {
                backlog.messages.removeFirst(backlog.head)
                backlog.head = 0
            }
            backlogs[key] = backlog
            rotation.append(key)
        }
        return message
    }

    /// Takes every message held for `destination`, oldest first: a method call to it must not
    /// overtake them.
    mutating func takeAll(for destination: String) -> [Message] {
        guard let backlog = backlogs.removeValue(forKey: destination) else { return [] }
        rotation.removeAll { $0 == destination }
        return Array(backlog.messages[backlog.head...])
    }

    mutating func removeAll() {
        backlogs = [:]
        rotation = []
    }
}
