// SPDX-License-Identifier: Apache-2.0
import CDBus
import LocalAuthAPI

/// Server side: exporting objects.
extension DBusConnection {
    /// Sends every method call to `path` (and with `subtree`, to any path below it) to `handler`,
    /// on `queue`.
    ///
    /// If `introspectionXML` is given, `org.freedesktop.DBus.Introspectable.Introspect` is answered
    /// with it without reaching the handler. `org.freedesktop.DBus.Peer` never reaches the handler
    /// (libdbus answers it, or the connection while it holds replies back).
    /// Arguments that `secretsOf`'s methods mark secret reach the handler as `.secret` values, and
    /// their bytes in the received message are zeroed.
    /// Throws `InvalidArgs` for an invalid path or XML, libdbus's `ObjectPathInUse` if taken.
    public func register(
        path: String, subtree: Bool = false, introspectionXML: String? = nil,
        secretsOf interfaces: [DBusInterfaceDescription] = [], handler: @escaping DBusMethodHandler
    ) throws {
        var introspection: (@Sendable () -> String)?
        if let introspectionXML {
            try DBusSyntax.requireString(introspectionXML)
            introspection = { introspectionXML }
        }
        try register(path: path, subtree: subtree, introspection: introspection, secretsOf: interfaces, table: nil, handler: handler)
    }

    private func register(
        path: String, subtree: Bool, introspection: (@Sendable () -> String)?, secretsOf interfaces: [DBusInterfaceDescription],
        table: DBusVTable?, handler: @escaping DBusMethodHandler
    ) throws {
        try DBusSyntax.requireObjectPath(path)
        try onQueue { () throws(DBusError) in
            let raw = try openConnection()
            let registration = ObjectRegistration(
                connection: self, path: path, introspection: introspection, interfaces: interfaces, table: table, handler: handler)
            let context = Unmanaged.passRetained(registration).toOpaque()
            var vtable = ObjectRegistration.vtable
            var error = CDBus.DBusError()
            dbus_error_init(&error)
            defer { dbus_error_free(&error) }
            let registered = subtree
                ? dbus_connection_try_register_fallback(raw, path, &vtable, context, &error)
                : dbus_connection_try_register_object_path(raw, path, &vtable, context, &error)
            guard registered != 0 else {
                Unmanaged<ObjectRegistration>.fromOpaque(context).release()
                throw DBusError(error, default: "cannot register an object at \(path)")
            }
        }
    }

    /// Serves `table` at `path` (and with `subtree`, below it): introspection is rendered from the
    /// table's interface (listing `children`) when first asked for, its secret arguments are read as secrets and
    /// scrubbed, and every call goes through ``DBusVTable/dispatch(_:)``. `admit` runs first, for
    /// checks on the path itself (a subtree's object that does not exist).
    public func register(
        path: String, subtree: Bool = false, table: DBusVTable, children: [String] = [],
        admit: (@Sendable (DBusMethodCall) throws(DBusError) -> Void)? = nil
    ) throws {
        try register(path: path, subtree: subtree, introspection: { DBusInterfaceDescription.document([table.interface], children: children) },
                     secretsOf: [table.interface], table: table) { call throws(DBusError) in
            try admit?(call)
            return try table.dispatch(call)
        }
    }

    /// Stops handling calls to `path`. Calls already deferred can still be answered.
    public func unregister(path: String) {
        guard DBusSyntax.isValidObjectPath(path) else { return }
        onQueue {
            guard let raw else { return }
            _ = dbus_connection_unregister_object_path(raw, path)
        }
    }
}
