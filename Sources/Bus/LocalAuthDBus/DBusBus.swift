// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Which bus to connect to. Its description names it for messages: "the system bus", "the bus at unix:path=…".
public enum DBusBus: Sendable, Hashable, CustomStringConvertible {
    /// `$DBUS_SYSTEM_BUS_ADDRESS`, else `unix:path=/run/dbus/system_bus_socket`.
    case system
    /// `$DBUS_SESSION_BUS_ADDRESS`; there is no autolaunch.
    case session
    /// A D-Bus server address such as `unix:path=/tmp/bus`.
    case address(String)

    public var description: String {
        switch self {
        case .system: "the system bus"
        case .session: "the session bus"
        case .address(let address): "the bus at \(address)"
        }
    }

    /// The address to connect to, from the environment for `.system` and `.session`.
    public func resolvedAddress() throws(DBusError) -> String {
        let address: String
        switch self {
        case .system:
            address = environment("DBUS_SYSTEM_BUS_ADDRESS") ?? "unix:path=/run/dbus/system_bus_socket"
        case .session:
            guard let session = environment("DBUS_SESSION_BUS_ADDRESS") else {
                throw DBusError(.failed, "DBUS_SESSION_BUS_ADDRESS is not set; cannot find the session bus")
            }
            address = session
        case .address(let explicit):
            address = explicit
        }
        guard !address.isEmpty, !address.utf8.contains(0) else {
            throw DBusError(.invalidArgs, "invalid D-Bus address \(DBusSyntax.quoted(address))")
        }
        return address
    }

    private func environment(_ name: String) -> String? {
        guard let value = getenv(name), value.pointee != 0 else { return nil }
        return String(cString: value)
    }
}
