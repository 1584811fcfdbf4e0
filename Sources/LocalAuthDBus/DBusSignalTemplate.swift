// SPDX-License-Identifier: Apache-2.0
import CDBus

/// A signal whose arguments are always the same, marshalled once; each emission
/// (``DBusConnection/emit(_:path:destination:)``) copies it and adds only its path and destination.
///
/// Worth it for a frequent signal: libdbus rewrites the message's signature header field after
/// every top-level argument appended, which made most of the cost of a small signal such as a
/// `PropertiesChanged` of one property (about 70 000 instructions, against a few thousand for the
/// copy).
public final class DBusSignalTemplate: @unchecked Sendable {
    /// Never sent, never changed after `init`: copying reads it only, from any thread.
    private let body: DBusMessage

    /// Throws `InvalidArgs` for an invalid interface, member or argument.
    public init(interface: String, member: String, arguments: [DBusValue]) throws(DBusError) {
        try DBusSyntax.requireInterface(interface)
        try DBusSyntax.requireMember(member)
        guard !arguments.contains(where: { $0.anySecret != nil }) else { throw .invalidArgs("a signal carries no secrets") }
        guard let raw = dbus_message_new(DBusMessage.Kind.signal.rawValue) else {
            throw DBusError(.noMemory, "out of memory creating a message")
        }
        body = DBusMessage(owning: raw, releasedOn: nil)
        guard dbus_message_set_interface(raw, interface) != 0, dbus_message_set_member(raw, member) != 0 else {
            throw DBusError(.noMemory, "out of memory naming a signal")
        }
        try body.append(arguments)
    }

    /// A copy of the template with the rest of its header: path and `destination`.
    func message(path: String, destination: String?, on connection: DBusConnection) throws(DBusError) -> DBusMessage {
        try DBusSyntax.requireObjectPath(path)
        if let destination { try DBusSyntax.requireBusName(destination) }
        guard let raw = dbus_message_copy(body.raw) else { throw DBusError(.noMemory, "out of memory copying a signal") }
        let message = DBusMessage(owning: raw, releasedOn: connection)
        guard dbus_message_set_path(raw, path) != 0, destination.map({ dbus_message_set_destination(raw, $0) != 0 }) ?? true
        else { throw DBusError(.noMemory, "out of memory addressing a signal") }
        return message
    }
}

extension DBusConnection {
    /// Emits `template` from `path`; with a `destination` it is unicast to that connection only.
    /// Throws `InvalidArgs` for an invalid path or destination, `Disconnected` if closed.
    public func emit(_ template: DBusSignalTemplate, path: String, destination: String? = nil) throws {
        try onQueue { () throws(DBusError) in
            try send(template.message(path: path, destination: destination, on: self))
        }
    }
}
