import CDBus

/// An owned reference to a libdbus message.
///
/// Internal: the public API speaks in `DBusMethodCall`, `DBusSignal` and `[DBusValue]`. A message is
/// created, filled and read on its connection's queue; afterwards only the reference count is
/// touched elsewhere (atomic in libdbus), hence `@unchecked Sendable`.
final class DBusMessage: @unchecked Sendable {
    let raw: OpaquePointer

    /// Takes over one reference (from a `dbus_message_new*` or `steal_reply`).
    init(owning raw: OpaquePointer) {
        self.raw = raw
    }

    /// Adds a reference (for messages libdbus lends to a callback).
    init(retaining raw: OpaquePointer) {
        self.raw = dbus_message_ref(raw)
    }

    deinit { dbus_message_unref(raw) }

    enum Kind: Int32 {
        case methodCall = 1, methodReturn = 2, error = 3, signal = 4
    }

    var kind: Kind? { Kind(rawValue: dbus_message_get_type(raw)) }
    var path: String? { dbus_message_get_path(raw).map { String(cString: $0) } }
    var interface: String? { dbus_message_get_interface(raw).map { String(cString: $0) } }
    var member: String? { dbus_message_get_member(raw).map { String(cString: $0) } }
    var sender: String? { dbus_message_get_sender(raw).map { String(cString: $0) } }
    var destination: String? { dbus_message_get_destination(raw).map { String(cString: $0) } }
    var errorName: String? { dbus_message_get_error_name(raw).map { String(cString: $0) } }
    var signature: String { dbus_message_get_signature(raw).map { String(cString: $0) } ?? "" }
    var noReplyExpected: Bool { dbus_message_get_no_reply(raw) != 0 }

    // MARK: Creating

    static func methodCall(
        destination: String?, path: String, interface: String?, member: String, arguments: [DBusValue]
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
        return try created(raw, appending: arguments)
    }

    static func signal(
        path: String, interface: String, member: String, destination: String?, arguments: [DBusValue]
    ) throws(DBusError) -> DBusMessage {
        try DBusSyntax.requireObjectPath(path)
        try DBusSyntax.requireInterface(interface)
        try DBusSyntax.requireMember(member)
        if let destination { try DBusSyntax.requireBusName(destination) }
        let message = try created(dbus_message_new_signal(path, interface, member), appending: arguments)
        if let destination, dbus_message_set_destination(message.raw, destination) == 0 {
            throw DBusError(.noMemory, "out of memory setting a signal's destination")
        }
        return message
    }

    func methodReturn(_ arguments: [DBusValue]) throws(DBusError) -> DBusMessage {
        try Self.created(dbus_message_new_method_return(raw), appending: arguments)
    }

    /// An error reply. An invalid error name or message becomes a valid `Failed` error that says so,
    /// so the caller still gets an answer.
    func errorReply(_ error: DBusError) -> DBusMessage? {
        var name = error.name.rawValue
        var text = error.message
        if !DBusSyntax.isValidErrorName(name) {
            text = "service tried to reply with an invalid error name \(DBusSyntax.quoted(name))"
            name = DBusError.Name.failed.rawValue
        }
        if !DBusSyntax.isValidString(text) {
            text = String(decoding: text.utf8.filter { $0 != 0 }, as: UTF8.self)
        }
        return dbus_message_new_error(raw, name, text).map { DBusMessage(owning: $0) }
    }

    private static func created(_ raw: OpaquePointer?, appending arguments: [DBusValue]) throws(DBusError) -> DBusMessage {
        guard let raw else { throw DBusError(.noMemory, "out of memory creating a message") }
        let message = DBusMessage(owning: raw)
        try message.append(arguments)
        return message
    }

    // MARK: Reading

    /// The `DBusError` an error reply carries (its first argument, if a string, is the message).
    func asError() -> DBusError {
        let text = (try? arguments().first?.string) ?? nil
        return DBusError(.init(errorName ?? DBusError.Name.failed.rawValue), text ?? "")
    }
}

func withOptionalCString<R>(_ string: String?, _ body: (UnsafePointer<CChar>?) -> R) -> R {
    guard let string else { return body(nil) }
    return string.withCString { body($0) }
}
