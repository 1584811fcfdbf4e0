// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI
/// An incoming method call, decoded, as a registered object's handler sees it.
public struct DBusMethodCall: Sendable {
    /// What the call carries, shared by every copy: a call is passed and captured several times on
    /// its way to its handler, and a copy is then one retain instead of one per field.
    private final class Fields: Sendable {
        let path: String
        let interface: String?
        let member: String
        let sender: String?
        let signature: String
        let arguments: [DBusValue]
        let message: DBusMessage
        let reply: DBusPendingReply
        let row: DBusVTable.Row?

        init(path: String, interface: String?, member: String, sender: String?, signature: String, arguments: [DBusValue],
             message: DBusMessage, reply: DBusPendingReply, row: DBusVTable.Row?) {
            (self.path, self.interface, self.member, self.sender, self.signature) = (path, interface, member, sender, signature)
            (self.arguments, self.message, self.reply, self.row) = (arguments, message, reply, row)
        }
    }

    private let fields: Fields

    public var path: String { fields.path }
    /// nil if the caller did not name an interface (allowed by D-Bus, rare in practice).
    public var interface: String? { fields.interface }
    public var member: String { fields.member }
    /// The caller's unique name (`:1.42`); use it to look up credentials. nil only on a
    /// peer-to-peer connection, never on a bus.
    public var sender: String? { fields.sender }
    /// The signature of the arguments, e.g. `a{sv}`.
    public var signature: String { fields.signature }
    /// The arguments as values; empty for a row that reads them itself as its declaration's types
    /// (``DBusVTable/Method/init(_:_:)-typed``).
    public var arguments: [DBusValue] { fields.arguments }
    /// About how many bytes the arguments take (see `DBusValue.byteCount`), once they are read.
    public internal(set) var byteCount: Int
    /// The received message, for a row that reads the arguments itself (only on the connection's queue).
    var message: DBusMessage { fields.message }
    /// Where the answer goes. The connection completes it from the handler's return value or
    /// thrown error; a handler that returns `.deferred` keeps it and completes it later.
    public var reply: DBusPendingReply { fields.reply }
    /// The row of the object's table the call goes to, found once when it arrived (nil for a
    /// property call, an unknown member, or an object registered without a table).
    var row: DBusVTable.Row? { fields.row }

    init(path: String, interface: String?, member: String, sender: String?, signature: String, arguments: [DBusValue],
         byteCount: Int, message: DBusMessage, reply: DBusPendingReply, row: DBusVTable.Row?) {
        fields = Fields(path: path, interface: interface, member: member, sender: sender, signature: signature,
                        arguments: arguments, message: message, reply: reply, row: row)
        self.byteCount = byteCount
    }

    /// A reader over `arguments` that throws `InvalidArgs` on a mismatch.
    public var reader: DBusArgumentReader { DBusArgumentReader(arguments) }

    /// The arguments as `method` declares them, read straight from the message (a secret into a
    /// ``DBusSecret``, the message's copy zeroed), and this call with their ``byteCount``. Only on
    /// the connection's queue, once, for a row that reads its own arguments.
    func decode<each Input: DBusArgument, Output>(
        _ method: BusMethod<repeat each Input, Output>
    ) throws(DBusError) -> (call: DBusMethodCall, arguments: (repeat (each Input).Value)) {
        let (arguments, byteCount) = try DBusMessageReader.read(message) { (reader) throws(DBusError) in
            (repeat try (each Input).read(from: &reader))
        }
        var call = self
        call.byteCount = byteCount
        return (call, arguments)
    }

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
