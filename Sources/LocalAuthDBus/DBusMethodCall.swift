// SPDX-License-Identifier: Apache-2.0
/// An incoming method call, decoded, as a registered object's handler sees it.
public struct DBusMethodCall: Sendable {
    public let path: String
    /// nil if the caller did not name an interface (allowed by D-Bus, rare in practice).
    public let interface: String?
    public let member: String
    /// The caller's unique name (`:1.42`); use it to look up credentials. nil only on a
    /// peer-to-peer connection, never on a bus.
    public let sender: String?
    /// The signature of `arguments`, e.g. `a{sv}`.
    public let signature: String
    public let arguments: [DBusValue]
    /// About how many bytes `arguments` take (see `DBusValue.byteCount`).
    public var byteCount: Int { arguments.reduce(0) { $0 + $1.byteCount } }
    /// Where the answer goes. The connection completes it from the handler's return value or
    /// thrown error; a handler that returns `.deferred` keeps it and completes it later.
    public let reply: DBusPendingReply

    /// A reader over `arguments` that throws `InvalidArgs` on a mismatch.
    public var reader: DBusArgumentReader { DBusArgumentReader(arguments) }

    /// Throws `InvalidArgs` unless the arguments have exactly `expected` as their signature.
    public func requireSignature(_ expected: String) throws(DBusError) {
        guard signature == expected else {
            throw .invalidArgs("\(member) expects arguments of type (\(expected)), got (\(signature))")
        }
    }
}

/// What a method handler answers right away.
public enum DBusMethodReply: Sendable {
    /// Reply now with these values.
    case values([DBusValue])
    /// The handler kept `call.reply` and will complete it later.
    case deferred

    /// An empty reply.
    public static let empty = DBusMethodReply.values([])
}

/// Handles the method calls to one registered object path or subtree, on the connection's queue.
/// A thrown `DBusError` becomes the error reply; any other error becomes `Failed`.
public typealias DBusMethodHandler = @Sendable (DBusMethodCall) throws -> DBusMethodReply
