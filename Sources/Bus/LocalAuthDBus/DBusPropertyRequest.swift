// SPDX-License-Identifier: Apache-2.0
/// A call to `org.freedesktop.DBus.Properties`, decoded for a service that serves properties.
public enum DBusPropertyRequest: Sendable, Hashable {
    case get(interface: String, name: String)
    case getAll(interface: String)
    case set(interface: String, name: String, value: DBusValue)

    public static let interface = "org.freedesktop.DBus.Properties"

    /// nil if `call` is not to the Properties interface. Throws `InvalidArgs` for wrong arguments
    /// and `UnknownMethod` for another member of that interface.
    public init?(_ call: DBusMethodCall) throws(DBusError) {
        guard call.interface == Self.interface else { return nil }
        var reader = call.reader
        switch call.member {
        case "Get":
            self = .get(interface: try reader.string(), name: try reader.string())
        case "GetAll":
            self = .getAll(interface: try reader.string())
        case "Set":
            self = .set(interface: try reader.string(), name: try reader.string(), value: try reader.variant())
        default:
            throw DBusError(.unknownMethod, "\(Self.interface) has no method \(DBusSyntax.quoted(call.member))")
        }
        try reader.finish()
    }
}
