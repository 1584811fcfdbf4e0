// SPDX-License-Identifier: Apache-2.0
/// An error in D-Bus terms: an error name and a human-readable message.
///
/// Every failure of this module is a `DBusError`, whether it came from the other side of the bus
/// (an error reply) or happened locally (an invalid string refused before it reached libdbus, a
/// connection that is closed, a reply that timed out). Local failures use the standard names
/// (`InvalidArgs`, `Disconnected`, `NoReply`, …), so a service handler can rethrow them to its
/// caller unchanged: a handler that throws a `DBusError` answers the call with that error.
public struct DBusError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The D-Bus error name, e.g. `org.freedesktop.DBus.Error.InvalidArgs`.
    public var name: Name
    /// The message carried as the error reply's first argument.
    public var message: String
    /// Arguments after the message: data an error carries for programs (a time to retry, say).
    public var details: [DBusValue]

    public init(_ name: Name, _ message: String, details: [DBusValue] = []) {
        self.name = name
        self.message = message
        self.details = details
    }

    public var description: String { "\(name.rawValue): \(message)" }

    /// A D-Bus error name. Any string converts; it is validated only when the error is sent.
    public struct Name: RawRepresentable, Sendable, Hashable, ExpressibleByStringLiteral, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public init(_ rawValue: String) { self.rawValue = rawValue }
        public init(stringLiteral value: String) { self.rawValue = value }
        public var description: String { rawValue }
    }
}

extension DBusError.Name {
    public static let failed: Self = "org.freedesktop.DBus.Error.Failed"
    public static let noMemory: Self = "org.freedesktop.DBus.Error.NoMemory"
    public static let serviceUnknown: Self = "org.freedesktop.DBus.Error.ServiceUnknown"
    public static let nameHasNoOwner: Self = "org.freedesktop.DBus.Error.NameHasNoOwner"
    public static let noReply: Self = "org.freedesktop.DBus.Error.NoReply"
    public static let timeout: Self = "org.freedesktop.DBus.Error.Timeout"
    public static let disconnected: Self = "org.freedesktop.DBus.Error.Disconnected"
    public static let invalidArgs: Self = "org.freedesktop.DBus.Error.InvalidArgs"
    public static let accessDenied: Self = "org.freedesktop.DBus.Error.AccessDenied"
    public static let limitsExceeded: Self = "org.freedesktop.DBus.Error.LimitsExceeded"
    public static let notSupported: Self = "org.freedesktop.DBus.Error.NotSupported"
    public static let unknownMethod: Self = "org.freedesktop.DBus.Error.UnknownMethod"
    public static let unknownObject: Self = "org.freedesktop.DBus.Error.UnknownObject"
    public static let unknownInterface: Self = "org.freedesktop.DBus.Error.UnknownInterface"
    public static let unknownProperty: Self = "org.freedesktop.DBus.Error.UnknownProperty"
    public static let propertyReadOnly: Self = "org.freedesktop.DBus.Error.PropertyReadOnly"
    public static let addressInUse: Self = "org.freedesktop.DBus.Error.AddressInUse"
}

extension DBusError {
    public static func failed(_ message: String) -> Self { Self(.failed, message) }
    public static func invalidArgs(_ message: String) -> Self { Self(.invalidArgs, message) }
    public static func accessDenied(_ message: String) -> Self { Self(.accessDenied, message) }
    public static func disconnected(_ message: String = "the D-Bus connection is closed") -> Self {
        Self(.disconnected, message)
    }
}
extension DBusError {
    public static func limitsExceeded(_ message: String) -> Self { Self(.limitsExceeded, message) }
}
extension DBusError {
    public static func notSupported(_ message: String) -> Self { Self(.notSupported, message) }
}
