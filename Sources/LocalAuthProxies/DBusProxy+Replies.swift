// SPDX-License-Identifier: Apache-2.0
import LocalAuthDBus

extension DBusProxy {
    /// Calls `member` and returns its first reply value as `decode` reads it. A reply it cannot
    /// read is `InvalidArgs` naming the member, as a reply of another signature is in ``call(_:_:timeout:)``.
    func value<Value>(_ member: String, _ arguments: [DBusValue] = [], timeout: Duration? = nil,
                      as decode: (DBusValue) -> Value?) async throws -> Value {
        let reply = try await call(member, arguments, timeout: timeout)
        guard let value = reply.first.flatMap(decode) else {
            throw DBusError(.invalidArgs, "\(interface.name).\(member) replied (\(DBusValue.signature(of: reply))), which is not the value the contract says.")
        }
        return value
    }

    /// The property `name` as `decode` reads it; one it cannot read is `InvalidArgs` naming it.
    func property<Value>(_ name: String, as decode: (DBusValue) -> Value?) async throws -> Value {
        let value = try await property(name)
        guard let decoded = decode(value) else {
            throw DBusError(.invalidArgs, "\(interface.name).\(name) is \(value.signature), which is not the value the contract says.")
        }
        return decoded
    }
}
