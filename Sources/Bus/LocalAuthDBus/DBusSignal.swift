// SPDX-License-Identifier: Apache-2.0
/// A received signal.
public struct DBusSignal: Sendable {
    public let path: String
    public let interface: String
    public let member: String
    /// The sender's unique name (or `org.freedesktop.DBus` for the bus itself).
    public let sender: String?
    /// Set for a unicast signal: this connection's unique name.
    public let destination: String?
    public let arguments: [DBusValue]

    public init(
        path: String, interface: String, member: String, sender: String?, destination: String?, arguments: [DBusValue]
    ) {
        self.path = path
        self.interface = interface
        self.member = member
        self.sender = sender
        self.destination = destination
        self.arguments = arguments
    }
}
