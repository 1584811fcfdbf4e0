// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// One object's interface as a table, in the style of sd-bus vtables: one row per member (name and
/// handler; the signature comes from the interface's declaration), and the properties served from
/// the same declaration. ``dispatch(_:)`` does every check a row would otherwise repeat before any
/// handler runs: the interface, the member, the arguments' signature (`InvalidArgs`), and for
/// `org.freedesktop.DBus.Properties` the property's name, access and value type. Runs on the
/// connection's queue, like every ``DBusMethodHandler``; the table itself is immutable.
public struct DBusVTable: Sendable {
    /// Handles one member; its arguments have exactly the declared signature.
    public typealias MethodHandler = @Sendable (DBusMethodCall) throws(DBusError) -> DBusMethodReply
    /// Answers `Get`/`GetAll`: produce every property's value and reply with `read.reply(values)`.
    public typealias PropertyReader = @Sendable (DBusMethodCall, DBusPropertyRead) throws(DBusError) -> DBusMethodReply
    /// Sets one writable property to a value of its declared type.
    public typealias PropertyWriter = @Sendable (DBusMethodCall, DBusValue) throws(DBusError) -> DBusMethodReply

    /// One method row.
    public struct Method: Sendable {
        public let name: String
        public let handler: MethodHandler
        /// Whether the row reads its arguments itself, as its declaration's types: the connection
        /// then leaves ``DBusMethodCall/arguments`` empty.
        let readsArguments: Bool
        /// From the interface's declaration, set when the table is made (read on every call).
        fileprivate(set) var inputSignature = ""
        /// The positions of the declared secret arguments (``DBusInterfaceDescription/Argument/isSecret``).
        fileprivate(set) var secretArguments: Set<Int> = []

        /// A row that takes the arguments as ``DBusMethodCall/arguments``.
        public init(_ name: String, _ handler: @escaping MethodHandler) {
            self.name = name
            self.handler = handler
            self.readsArguments = false
        }

        /// The row of `method`: its arguments are read straight from the message as the
        /// declaration's types (secrets as ``DBusSecret``s, their message copies zeroed), then
        /// `handler` runs with them and the call (whose ``DBusMethodCall/byteCount`` counts them).
        public init<each Input: DBusArgument, Output>(
            _ method: BusMethod<repeat each Input, Output>,
            _ handler: @escaping @Sendable (DBusMethodCall, repeat (each Input).Value) throws(DBusError) -> DBusMethodReply
        ) {
            self.name = method.member
            self.readsArguments = true
            self.handler = { call throws(DBusError) in
                let (call, arguments) = try call.decode(method)
                return try handler(call, repeat each arguments)
            }
        }
    }

    /// A method row as the connection finds it for a received call, with its name and signature
    /// kept as C strings to match the call's header fields. A class: the call carries its row, and
    /// a copy is then one retain.
    final class Row: Sendable {
        let method: Method
        fileprivate let name: HeaderField
        private let inputSignature: HeaderField

        init(_ method: Method) {
            self.method = method
            name = HeaderField(method.name)
            inputSignature = HeaderField(method.inputSignature)
        }

        /// Whether a received call's signature (its header field) is the declared one.
        func accepts(signature: UnsafePointer<CChar>) -> Bool { inputSignature.isSpelled(signature) }
    }

    public let interface: DBusInterfaceDescription
    /// In declaration order; a handful, scanned (``row(interface:member:)``, ``dispatch(_:)``).
    private let rows: [Row]
    private let interfaceName: HeaderField
    private let read: PropertyReader?
    private let writers: [String: PropertyWriter]

    /// A table for `interface`. Every declared method needs exactly one row, every writable
    /// property one writer, and a reader is needed when the interface has properties: a gap is a
    /// programming error, caught when the daemon starts (and by every test that starts it).
    public init(_ interface: DBusInterfaceDescription, methods: [Method], properties read: PropertyReader? = nil,
                writers: [String: PropertyWriter] = [:]) {
        // Sorted lists, not sets: hashing every name was a fifth of the tables' part of start-up.
        let declared = interface.methods.map(\.name).sorted(), served = methods.map(\.name).sorted()
        precondition(served == declared, "\(interface.name): rows \(served) do not match the declared methods \(declared)")
        let writable = interface.properties.filter { $0.access == .readwrite }.map(\.name).sorted(), written = writers.keys.sorted()
        precondition(written == writable, "\(interface.name): writers \(written) are not the writable properties \(writable)")
        precondition((read != nil) == !interface.properties.isEmpty, "\(interface.name): a property reader is needed exactly when it has properties")
        self.interface = interface
        self.interfaceName = HeaderField(interface.name)
        self.rows = methods.map { row in
            var row = row
            let declaration = interface.method(row.name)!
            row.inputSignature = declaration.inputSignature
            row.secretArguments = Set(declaration.inputs.indices.filter { declaration.inputs[$0].isSecret })
            return Row(row)
        }
        self.read = read
        self.writers = writers
    }

    /// Checks `call` against the declaration and runs its row.
    public func dispatch(_ call: DBusMethodCall) throws(DBusError) -> DBusMethodReply {
        // The connection found the row when the call arrived (``row(interface:member:)``).
        // Read through the row, not bound to a local: a copy of a `Method` retains its fields.
        if let row = call.row {
            try call.requireSignature(row.method.inputSignature)
            return try row.method.handler(call)
        }
        if call.interface == DBusPropertyRequest.interface { return try property(call) }
        if let name = call.interface, name != interface.name {
            throw DBusError(.unknownInterface, "This object has no interface \"\(name)\"; it implements \(interface.name).")
        }
        // Every declared method has a row (checked when the table was made).
        guard let row = rows.first(where: { $0.method.name == call.member })?.method else {
            throw DBusError(.unknownMethod, "\(interface.name) has no method \"\(call.member)\"; see `gdbus introspect` for the API.")
        }
        try call.requireSignature(row.inputSignature)
        return try row.handler(call)
    }

    /// The row a call of `member` to `interface` (header fields of a received message) goes to,
    /// if it is one of this table's methods. Compares the C strings: a handful of rows is scanned
    /// faster than a Swift string is made and hashed.
    func row(interface: UnsafePointer<CChar>?, member: UnsafePointer<CChar>) -> Row? {
        if let interface, !interfaceName.isSpelled(interface) { return nil }
        for row in rows where row.name.isSpelled(member) { return row }
        return nil
    }

    private func property(_ call: DBusMethodCall) throws(DBusError) -> DBusMethodReply {
        guard let request = try DBusPropertyRequest(call) else { throw .failed("not a property request") }
        switch request {
        case .get(let name, let property):
            try requireInterface(name)
            try requireProperty(property)
            return try reader()(call, DBusPropertyRead(interface: interface, name: property))
        case .getAll(let name):
            try requireInterface(name)
            return try reader()(call, DBusPropertyRead(interface: interface, name: nil))
        case .set(let name, let property, let value):
            try requireInterface(name)
            let declared = try requireProperty(property)
            guard declared.access == .readwrite, let writer = writers[property] else {
                throw DBusError(.propertyReadOnly, "\(property) is read-only.")
            }
            guard value.signature == declared.type else {
                throw .invalidArgs("\(property) is of type \(declared.type), not \(value.signature).")
            }
            return try writer(call, value)
        }
    }

    private func reader() throws(DBusError) -> PropertyReader {
        guard let read else { throw .invalidArgs("\(interface.name) has no properties.") }
        return read
    }

    private func requireInterface(_ requested: String) throws(DBusError) {
        guard requested == interface.name else {
            throw DBusError(.unknownInterface, "This object has no properties of interface \"\(requested)\"; it implements \(interface.name).")
        }
    }

    @discardableResult
    private func requireProperty(_ name: String) throws(DBusError) -> DBusInterfaceDescription.Property {
        guard let property = interface.property(name) else {
            throw DBusError(.unknownProperty, "\(interface.name) has no property \"\(name)\".")
        }
        return property
    }
}

/// A `Get` (one property) or `GetAll`, checked against the declaration: the object produces all
/// its values, ``reply(_:)`` picks what was asked for.
public struct DBusPropertyRead: Sendable {
    let interface: DBusInterfaceDescription
    /// The property `Get` asks for; nil for `GetAll`.
    public let name: String?

    /// The reply values: `(v)` for `Get`, `(a{sv})` for `GetAll`. Throws `Failed` when `values`
    /// lacks a declared property or has the wrong type for one, which is the object's bug.
    public func reply(_ values: [String: DBusValue]) throws(DBusError) -> [DBusValue] {
        for property in interface.properties where values[property.name]?.signature != property.type {
            throw .failed("\(interface.name).\(property.name) is served as \(values[property.name]?.signature ?? "nothing"), not \(property.type).")
        }
        guard let name else { return [.vardict(values)] }
        return [.variant(values[name]!)]
    }
}

/// A name as a C string, made once, to compare with received header fields: the table is scanned
/// at every call, and `String.withCString` would copy each small name to the stack first.
private struct HeaderField: Sendable {
    private let bytes: ContiguousArray<CChar>

    init(_ name: String) {
        bytes = ContiguousArray(name.utf8CString)
    }

    func isSpelled(_ field: UnsafePointer<CChar>) -> Bool {
        bytes.withUnsafeBufferPointer { strcmp($0.baseAddress!, field) == 0 }
    }
}
