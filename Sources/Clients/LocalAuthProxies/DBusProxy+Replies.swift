// SPDX-License-Identifier: Apache-2.0
import LocalAuthDBus

extension DBusProxy {
    /// The property `name` as `decode` reads it; one it cannot read is `InvalidArgs` naming it.
    func property<Value>(_ name: String, as decode: (DBusValue) -> Value?) async throws -> Value {
        let value = try await property(name)
        guard let decoded = decode(value) else {
            throw DBusError(.invalidArgs, "\(interface.name).\(name) is \(value.signature), which is not the value the contract says.")
        }
        return decoded
    }

    /// A passcode or password argument given as a ``DBusValue``: a ``DBusSecret`` as it is, a plain
    /// string (tests, callers that already hold one) copied into one. Anything else is `InvalidArgs`.
    static func secret(_ value: DBusValue) throws(DBusError) -> DBusSecret {
        if let secret = value.secret { return secret }
        guard let string = value.string else { throw .invalidArgs("a passcode is a string, not \(value.signature)") }
        return DBusSecret(copying: string.utf8)
    }
}
