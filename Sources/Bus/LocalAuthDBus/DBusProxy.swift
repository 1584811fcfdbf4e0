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

    /// Calls `method` with `arguments` and returns its reply, encoded and decoded straight between
    /// the declared types and the messages. The method must be one of this proxy's interface; a
    /// reply of another signature than the declared one is `InvalidArgs` naming both.
    public func call<each Input: DBusArgument, Output: DBusArgument>(
        _ method: BusMethod<repeat each Input, Output>, _ arguments: repeat (each Input).Value, timeout: Duration? = nil
    ) async throws -> Output.Value {
        try declared(method.member)
        let (destination, path, interface, member) = (destination, path, interface.name, method.member)
        return try await connection.call(destination: destination, member: member, timeout: timeout ?? self.timeout) { connection throws(DBusError) in
            try DBusMessage.methodCall(destination: destination, path: path, interface: interface, member: member, on: connection) { (writer) throws(DBusError) in
                repeat try (each Input).append(each arguments, to: &writer)
            }
        } read: { reply throws(DBusError) in
            let signature = reply.signature
            guard signature == Output.signature else {
                throw DBusError(.invalidArgs, "\(interface).\(member) replied (\(signature)), not (\(Output.signature)) as the contract says.")
            }
            return try DBusMessageReader.read(reply) { (reader) throws(DBusError) in try Output.read(from: &reader) }
        }
    }

    /// Sends `method` flagged NO_REPLY_EXPECTED (the daemon's calls to agents), typed as ``call(_:_:timeout:)``.
    public func send<each Input: DBusArgument>(_ method: BusMethod<repeat each Input, BusWire.Nothing>, _ arguments: repeat (each Input).Value) throws {
        try declared(method.member)
        try connection.send { () throws(DBusError) in
            try DBusMessage.methodCall(destination: destination, path: path, interface: interface.name, member: method.member, on: connection) { (writer) throws(DBusError) in
                repeat try (each Input).append(each arguments, to: &writer)
            }
        }
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

    private func declared(_ member: String) throws(DBusError) {
        guard interface.method(member) != nil else {
            throw DBusError(.invalidArgs, "\(interface.name) declares no method \(member).")
        }
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
