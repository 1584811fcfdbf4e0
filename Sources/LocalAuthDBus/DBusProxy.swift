// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI

/// A remote object seen through its interface's declaration: every call and property access is
/// checked against it before anything is sent (the member or property is declared, the arguments
/// or value have the declared signature) and the reply after (the declared out signature), so a
/// client cannot drift from the contract unnoticed. A mismatch is `InvalidArgs` naming both sides.
/// Immutable; calls run on the connection's queue like every call.
public struct DBusProxy: Sendable {
    public let connection: DBusConnection
    public let interface: DBusInterfaceDescription
    public let destination: String
    public let path: String
    public let timeout: Duration

    public init(_ interface: DBusInterfaceDescription, on connection: DBusConnection, destination: String, path: String,
                timeout: Duration = .seconds(25)) {
        self.interface = interface
        self.connection = connection
        self.destination = destination
        self.path = path
        self.timeout = timeout
    }

    /// The same interface at another path (a context).
    public func at(_ path: String) -> DBusProxy {
        DBusProxy(interface, on: connection, destination: destination, path: path, timeout: timeout)
    }

    /// Calls `member` and returns the reply, of the declared out signature.
    public func call(_ member: String, _ arguments: [DBusValue] = [], timeout: Duration? = nil) async throws -> [DBusValue] {
        let method = try declared(member, arguments)
        let reply = try await connection.call(destination: destination, path: path, interface: interface.name, member: member,
                                              arguments: arguments, timeout: timeout ?? self.timeout)
        let expected = method.outputs.map(\.type).joined()
        guard DBusValue.signature(of: reply) == expected else {
            throw DBusError(.invalidArgs, "\(interface.name).\(member) replied (\(DBusValue.signature(of: reply))), not (\(expected)) as the contract says.")
        }
        return reply
    }

    /// Sends `member` flagged NO_REPLY_EXPECTED (the daemon's calls to agents).
    public func send(_ member: String, _ arguments: [DBusValue] = []) throws {
        _ = try declared(member, arguments)
        try connection.send(callTo: destination, path: path, interface: interface.name, member: member, arguments: arguments)
    }

    /// A declared property's value, of its declared type.
    public func property(_ name: String) async throws -> DBusValue {
        let property = try declaredProperty(name)
        let value = try await connection.property(name, interface: interface.name, path: path, destination: destination, timeout: timeout)
        guard value.signature == property.type else {
            throw DBusError(.invalidArgs, "\(interface.name).\(name) is \(value.signature), not \(property.type) as the contract says.")
        }
        return value
    }

    /// Every property (`GetAll`).
    public func allProperties() async throws -> [String: DBusValue] {
        try await connection.allProperties(interface: interface.name, path: path, destination: destination, timeout: timeout)
    }

    /// Sets a declared writable property to a value of its type.
    public func setProperty(_ name: String, to value: DBusValue) async throws {
        let property = try declaredProperty(name)
        guard property.access == .readwrite, value.signature == property.type else {
            throw DBusError(.invalidArgs, "\(interface.name).\(name) is a \(property.access.rawValue) \(property.type) property; cannot set it to \(value.signature).")
        }
        try await connection.setProperty(name, to: value, interface: interface.name, path: path, destination: destination, timeout: timeout)
    }

    private func declared(_ member: String, _ arguments: [DBusValue]) throws(DBusError) -> DBusInterfaceDescription.Method {
        guard let method = interface.method(member) else {
            throw DBusError(.invalidArgs, "\(interface.name) declares no method \(member).")
        }
        guard DBusValue.signature(of: arguments) == method.inputSignature else {
            throw DBusError(.invalidArgs, "\(interface.name).\(member) takes (\(method.inputSignature)), not (\(DBusValue.signature(of: arguments))).")
        }
        return method
    }

    private func declaredProperty(_ name: String) throws(DBusError) -> DBusInterfaceDescription.Property {
        guard let property = interface.property(name) else {
            throw DBusError(.invalidArgs, "\(interface.name) declares no property \(name).")
        }
        return property
    }
}
