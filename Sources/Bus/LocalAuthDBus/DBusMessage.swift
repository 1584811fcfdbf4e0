// SPDX-License-Identifier: Apache-2.0
import CDBus
import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// An owned reference to a libdbus message.
///
/// Internal: the public API speaks in `DBusMethodCall`, `DBusSignal` and `[DBusValue]`. A message is
/// created, filled and read on its connection's queue. It may be handed to other threads, but its
/// reference is always released on that queue: freeing a received message gives its bytes back
/// to libdbus's received-size counter, and crossing the limit there (63 MiB by default) makes
/// libdbus re-enable reading through the connection's watch functions, which must run on the
/// queue. Hence `@unchecked Sendable`.
final class DBusMessage: @unchecked Sendable {
    let raw: OpaquePointer
    /// Whose queue releases `raw`; nil only for a message that never meets a connection (tests of
    /// the value encoding).
    private let connection: DBusConnection?

    /// Takes over one reference (from a `dbus_message_new*` or `steal_reply`).
    init(owning raw: OpaquePointer, releasedOn connection: DBusConnection?) {
        self.raw = raw
        self.connection = connection
    }

    /// Adds a reference (for messages libdbus lends to a callback). Only on `connection.queue`.
    init(retaining raw: OpaquePointer, releasedOn connection: DBusConnection) {
        connection.queue.precondition()
        self.raw = dbus_message_ref(raw)
        self.connection = connection
    }

    deinit {
        // Released at once on the queue (the usual case) without allocating the closure that `async` takes.
        if let connection, !connection.queue.isCurrent {
            let reference = Reference(raw: raw)
            connection.queue.async { dbus_message_unref(reference.raw) }
        } else {
            dbus_message_unref(raw)
        }
    }

    /// A message reference in transit to the queue that releases it.
    private struct Reference: @unchecked Sendable {
        let raw: OpaquePointer
    }

    enum Kind: Int32 {
        case methodCall = 1, methodReturn = 2, error = 3, signal = 4
    }

    var kind: Kind? { Kind(rawValue: dbus_message_get_type(raw)) }
    var path: String? { dbus_message_get_path(raw).map { String(cString: $0) } }
    /// ``path``, as `known` itself when it is that path: no new string for calls to an object
    /// registered at exactly that path.
    func path(preferring known: String) -> String? { Self.string(dbus_message_get_path(raw), preferring: known) }
    var interface: String? { dbus_message_get_interface(raw).map { String(cString: $0) } }
    /// ``interface``, as `known` itself when it names that one: no new string for the interface
    /// an object serves, which nearly every call to it names.
    func interface(preferring known: String?) -> String? { Self.string(dbus_message_get_interface(raw), preferring: known) }

    /// A header field as a string: `known` itself when the field holds the same bytes.
    private static func string(_ field: UnsafePointer<CChar>?, preferring known: String?) -> String? {
        guard let field else { return nil }
        if let known, known.isSpelled(field) { return known }
        return String(cString: field)
    }
    var member: String? { dbus_message_get_member(raw).map { String(cString: $0) } }
    var sender: String? { dbus_message_get_sender(raw).map { String(cString: $0) } }
    var destination: String? { dbus_message_get_destination(raw).map { String(cString: $0) } }
    var errorName: String? { dbus_message_get_error_name(raw).map { String(cString: $0) } }
    var signature: String { dbus_message_get_signature(raw).map { String(cString: $0) } ?? "" }
    var noReplyExpected: Bool { dbus_message_get_no_reply(raw) != 0 }

    // MARK: Creating

    static func methodCall(
        destination: String?, path: String, interface: String?, member: String, arguments: [DBusValue],
        on connection: DBusConnection?
    ) throws(DBusError) -> DBusMessage {
        if let destination { try DBusSyntax.requireBusName(destination) }
        try DBusSyntax.requireObjectPath(path)
        if let interface { try DBusSyntax.requireInterface(interface) }
        try DBusSyntax.requireMember(member)
        let raw = withOptionalCString(destination) { destination in
            withOptionalCString(interface) { interface in
                dbus_message_new_method_call(destination, path, interface, member)
            }
        }
        return try created(raw, appending: arguments, on: connection)
    }

    /// A method call whose arguments `write` appends, straight from typed values.
    static func methodCall(
        destination: String?, path: String, interface: String?, member: String, on connection: DBusConnection?,
        write: (inout DBusMessageWriter) throws(DBusError) -> Void
    ) throws(DBusError) -> DBusMessage {
        let message = try methodCall(destination: destination, path: path, interface: interface, member: member, arguments: [],
                                     on: connection)
        try DBusMessageWriter.write(message, write)
        return message
    }

    static func signal(
        path: String, interface: String, member: String, destination: String?, arguments: [DBusValue],
        on connection: DBusConnection?
    ) throws(DBusError) -> DBusMessage {
        try DBusSyntax.requireObjectPath(path)
        try DBusSyntax.requireInterface(interface)
        try DBusSyntax.requireMember(member)
        if let destination { try DBusSyntax.requireBusName(destination) }
        let message = try created(dbus_message_new_signal(path, interface, member), appending: arguments, on: connection)
        if let destination, dbus_message_set_destination(message.raw, destination) == 0 {
            throw DBusError(.noMemory, "out of memory setting a signal's destination")
        }
        return message
    }

    /// A method return to the call `address` describes.
    static func methodReturn(
        to address: DBusReplyAddress, arguments: [DBusValue], on connection: DBusConnection
    ) throws(DBusError) -> DBusMessage {
        let message = try created(dbus_message_new(Kind.methodReturn.rawValue), appending: [], on: connection)
        try message.address(to: address)
        try message.append(arguments)
        return message
    }

    /// An error reply to the call `address` describes. An invalid error name or message becomes
    /// a valid `Failed` error that says so, so the caller still gets an answer.
    static func errorReply(
        to address: DBusReplyAddress, _ error: DBusError, on connection: DBusConnection
    ) throws(DBusError) -> DBusMessage {
        var name = error.name.rawValue
        var text = error.message
        if !DBusSyntax.isValidErrorName(name) {
            text = "service tried to reply with an invalid error name \(DBusSyntax.quoted(name))"
            name = DBusError.Name.failed.rawValue
        }
        if !DBusSyntax.isValidString(text) {
            text = String(decoding: text.utf8.filter { $0 != 0 }, as: UTF8.self)
        }
        let message = try created(dbus_message_new(Kind.error.rawValue), appending: [], on: connection)
        guard dbus_message_set_error_name(message.raw, name) != 0 else {
            throw DBusError(.noMemory, "out of memory naming an error reply")
        }
        try message.address(to: address)
        try message.append([.string(text)] + error.details)
        return message
    }

    /// Makes this message a reply to `address`, as `dbus_message_new_method_return` does.
    private func address(to address: DBusReplyAddress) throws(DBusError) {
        dbus_message_set_no_reply(raw, 1)
        guard dbus_message_set_reply_serial(raw, address.serial) != 0,
              address.sender.map({ dbus_message_set_destination(raw, $0) != 0 }) ?? true
        else { throw DBusError(.noMemory, "out of memory addressing a reply") }
    }

    private static func created(
        _ raw: OpaquePointer?, appending arguments: [DBusValue], on connection: DBusConnection?
    ) throws(DBusError) -> DBusMessage {
        guard let raw else { throw DBusError(.noMemory, "out of memory creating a message") }
        let message = DBusMessage(owning: raw, releasedOn: connection)
        try message.append(arguments)
        return message
    }

    // MARK: Reading

    /// The `DBusError` an error reply carries: its first argument, if a string, is the message;
    /// the arguments after it are the details.
    func asError() -> DBusError {
        let values = (try? arguments()) ?? []
        let text = values.first?.string
        return DBusError(.init(errorName ?? DBusError.Name.failed.rawValue), text ?? "",
                         details: text == nil ? [] : Array(values.dropFirst()))
    }
}

extension String {
    /// Whether `field` (a C string, such as a received message's header field) holds exactly this
    /// string's bytes: compared without making a Swift string of it.
    func isSpelled(_ field: UnsafePointer<CChar>) -> Bool {
        withCString { strcmp($0, field) == 0 }
    }
}

func withOptionalCString<R>(_ string: String?, _ body: (UnsafePointer<CChar>?) -> R) -> R {
    guard let string else { return body(nil) }
    return string.withCString { body($0) }
}
