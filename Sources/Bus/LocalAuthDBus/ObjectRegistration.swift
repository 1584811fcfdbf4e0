// SPDX-License-Identifier: Apache-2.0
import Dispatch
import CDBus
import LocalAuthAPI

/// A registered object path: the handler plus what libdbus needs to call it.
///
/// libdbus holds one retained reference as the path's user data and releases it in the
/// unregister callback (on `unregister(path:)` or when the connection is finalized). Used only on
/// the connection's queue.
final class ObjectRegistration: @unchecked Sendable {
    /// Unowned, not weak: libdbus calls the registration only from ``DBusConnection``'s dispatch,
    /// while the connection is alive. A weak reference gave the connection a side table, which
    /// made each of its retains and releases (a few dozen a call) take the runtime's slow path.
    unowned let connection: DBusConnection
    /// Renders the document `Introspect` answers with; nil when the handler answers it.
    private let introspection: (@Sendable () -> String)?
    /// The document, rendered at the first `Introspect` (rendering every object's at start cost
    /// ~10 % of the daemon's start-up).
    private var introspectionXML: String?
    /// The path the object is registered at (calls below it, to a subtree, have their own).
    let path: String
    /// Where the secret arguments are (see `DBusInterfaceDescription.Argument.isSecret`).
    let interfaces: [DBusInterfaceDescription]
    let handler: DBusMethodHandler
    /// The table whose typed rows read their own arguments, if the object was registered with one.
    let table: DBusVTable?
    /// A receive-buffer scrub is queued; it also covers every secret read before it is sent.
    private var scrubQueued = false

    init(connection: DBusConnection, path: String, introspection: (@Sendable () -> String)?, interfaces: [DBusInterfaceDescription],
         table: DBusVTable? = nil, handler: @escaping DBusMethodHandler) {
        self.connection = connection
        self.path = path
        self.table = table
        self.introspection = introspection
        self.interfaces = interfaces
        self.handler = handler
    }

    static var vtable: DBusObjectPathVTable {
        var vtable = DBusObjectPathVTable()
        vtable.unregister_function = { _, data in
            guard let data else { return }
            Unmanaged<ObjectRegistration>.fromOpaque(data).release()
        }
        vtable.message_function = { _, message, data in
            guard let message, let data else { return DBUS_HANDLER_RESULT_NOT_YET_HANDLED }
            let registration = Unmanaged<ObjectRegistration>.fromOpaque(data).takeUnretainedValue()
            let connection = registration.connection
            return registration.handle(DBusMessage(retaining: message, releasedOn: connection), on: connection)
        }
        return vtable
    }

    private static let introspectable = "org.freedesktop.DBus.Introspectable"

    private func handle(_ message: DBusMessage, on connection: DBusConnection) -> DBusHandlerResult {
        connection.queue.precondition()
        guard message.kind == .methodCall else { return DBUS_HANDLER_RESULT_NOT_YET_HANDLED }
        // A call to one of the table's rows (nearly every call) takes its member, interface and
        // signature strings from the row: no Swift string is made of those header fields.
        let namedInterface = dbus_message_get_interface(message.raw)
        let row = dbus_message_get_member(message.raw).flatMap { table?.row(interface: namedInterface, member: $0) }
        let member = row?.method.name ?? message.member ?? ""
        let interface = row != nil && namedInterface != nil ? table?.interface.name : message.interface(preferring: table?.interface.name)
        let sender = message.sender
        let reply = DBusPendingReply(call: message, sender: sender, member: member, connection: connection)
        // The row's own string when it is the declared one (the table's check of it is then a
        // comparison of a string with itself).
        let signature: String
        if let row, let field = dbus_message_get_signature(message.raw), row.accepts(signature: field) {
            signature = row.method.inputSignature
        } else {
            signature = message.signature
        }
        let secretIndexes = row?.method.secretArguments ?? DBusInterfaceDescription.secretArguments(of: member, interface: interface, in: interfaces)
        // A typed row reads its own arguments; a secret among them is in the receive buffer all the same.
        let readsArguments = row?.method.readsArguments == true
        let arguments: [DBusValue]
        do {
            arguments = readsArguments ? [] : try message.arguments(secretIndexes: secretIndexes)
        } catch {
            reply.fail(error)
            return DBUS_HANDLER_RESULT_HANDLED
        }
        let holdsSecret = readsArguments ? !secretIndexes.isEmpty : arguments.contains(where: { $0.anySecret != nil })
        if holdsSecret, !scrubQueued {
            scrubQueued = true
            connection.queue.async { [self, connection] in
                scrubQueued = false
                connection.scrubReceiveBuffer()
            }
        }
        // A row is one of the table's own methods, never Introspectable's.
        if row == nil, let introspection, interface == Self.introspectable {
            guard member == "Introspect" else {
                reply.fail(DBusError(.unknownMethod, "\(Self.introspectable) has one method, Introspect, not \(DBusSyntax.quoted(member))."))
                return DBUS_HANDLER_RESULT_HANDLED
            }
            let document = introspectionXML ?? introspection()
            introspectionXML = document
            reply.send([.string(document)])
            return DBUS_HANDLER_RESULT_HANDLED
        }
        let call = DBusMethodCall(
            path: message.path(preferring: path) ?? "/", interface: interface, member: member,
            sender: sender, signature: signature, arguments: arguments,
            byteCount: arguments.reduce(0) { $0 + $1.byteCount }, message: message, reply: reply, row: row)
        do {
            switch try handler(call) {
            case .values(let values): reply.send(values)
            case .deferred: break
            }
        } catch let error as DBusError {
            reply.fail(error)
        } catch {
            reply.fail(.failed(String(describing: error)))
        }
        return DBUS_HANDLER_RESULT_HANDLED
    }
}
