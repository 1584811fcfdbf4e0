// SPDX-License-Identifier: Apache-2.0
/// Client side: reading and writing another object's properties.
extension DBusConnection {
    /// `org.freedesktop.DBus.Properties.Get`, the variant unwrapped.
    public func property(
        _ name: String, interface: String, path: String, destination: String, timeout: Duration = .seconds(25)
    ) async throws -> DBusValue {
        let reply = try await callProperties(destination, path, "Get", [.string(interface), .string(name)], timeout)
        guard reply.count == 1, let value = reply[0].variant else {
            throw DBusError(.invalidArgs, "Get(\(name)) replied (\(DBusValue.signature(of: reply))), not (v)")
        }
        return value
    }

    /// `org.freedesktop.DBus.Properties.GetAll`, variants unwrapped.
    public func allProperties(
        interface: String, path: String, destination: String, timeout: Duration = .seconds(25)
    ) async throws -> [String: DBusValue] {
        let reply = try await callProperties(destination, path, "GetAll", [.string(interface)], timeout)
        guard reply.count == 1, let values = reply[0].vardict else {
            throw DBusError(.invalidArgs, "GetAll(\(interface)) replied (\(DBusValue.signature(of: reply))), not (a{sv})")
        }
        return values
    }

    /// `org.freedesktop.DBus.Properties.Set`.
    public func setProperty(
        _ name: String, to value: DBusValue, interface: String, path: String, destination: String,
        timeout: Duration = .seconds(25)
    ) async throws {
        _ = try await callProperties(destination, path, "Set", [.string(interface), .string(name), .variant(value)], timeout)
    }

    private func callProperties(
        _ destination: String, _ path: String, _ member: String, _ arguments: [DBusValue], _ timeout: Duration
    ) async throws -> [DBusValue] {
        try await call(
            destination: destination, path: path, interface: DBusPropertyRequest.interface, member: member,
            arguments: arguments, timeout: timeout)
    }
}
