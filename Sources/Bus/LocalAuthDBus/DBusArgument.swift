// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI
/// How one type of a ``BusMethod`` declaration travels: its signature and how its ``Value`` is
/// read from and appended to a message, straight through libdbus's iterators.
///
/// Swift types that are their own value (`UInt32`, `String`, `[UInt8]` …) have `Value == Self`;
/// the ``BusWire`` markers name the Swift type that carries them (a ``DBusSecret`` for a secret).
public protocol DBusArgument: SendableMetatype {
    associatedtype Value: Sendable = Self
    /// The D-Bus signature; for ``BusWire/Nothing`` the empty one.
    static var signature: String { get }
    /// Whether the value is a secret (``DBusInterfaceDescription/Argument/isSecret``).
    static var isSecret: Bool { get }
    static func read(from reader: inout DBusMessageReader) throws(DBusError) -> Value
    static func append(_ value: Value, to writer: inout DBusMessageWriter) throws(DBusError)
}

extension DBusArgument {
    public static var isSecret: Bool { false }
}

extension Bool: DBusArgument {
    public static var signature: String { "b" }
    public static func read(from reader: inout DBusMessageReader) throws(DBusError) -> Bool { try reader.bool() }
    public static func append(_ value: Bool, to writer: inout DBusMessageWriter) throws(DBusError) { try writer.bool(value) }
}

extension UInt32: DBusArgument {
    public static var signature: String { "u" }
    public static func read(from reader: inout DBusMessageReader) throws(DBusError) -> UInt32 { try reader.uint32() }
    public static func append(_ value: UInt32, to writer: inout DBusMessageWriter) throws(DBusError) { try writer.uint32(value) }
}

extension UInt64: DBusArgument {
    public static var signature: String { "t" }
    public static func read(from reader: inout DBusMessageReader) throws(DBusError) -> UInt64 { try reader.uint64() }
    public static func append(_ value: UInt64, to writer: inout DBusMessageWriter) throws(DBusError) { try writer.uint64(value) }
}

extension String: DBusArgument {
    public static var signature: String { "s" }
    public static func read(from reader: inout DBusMessageReader) throws(DBusError) -> String { try reader.string() }
    public static func append(_ value: String, to writer: inout DBusMessageWriter) throws(DBusError) { try writer.string(value) }
}

/// `ay` (read and written as one block) and `as`.
extension Array: DBusArgument where Element: DBusArgument, Element.Value == Element {
    public static var signature: String { "a" + Element.signature }
    public static func read(from reader: inout DBusMessageReader) throws(DBusError) -> [Element] {
        if Element.self == UInt8.self { return try reader.bytes() as! [Element] }
        var elements: [Element] = []
        try reader.array(signature) { (element) throws(DBusError) in elements.append(try Element.read(from: &element)) }
        return elements
    }
    public static func append(_ value: [Element], to writer: inout DBusMessageWriter) throws(DBusError) {
        if let bytes = value as? [UInt8] { return try writer.bytes(bytes) }
        try writer.array(Element.signature) { (elements) throws(DBusError) in
            for element in value { try Element.append(element, to: &elements) }
        }
    }
}

extension UInt8: DBusArgument {
    public static var signature: String { "y" }
    public static func read(from reader: inout DBusMessageReader) throws(DBusError) -> UInt8 { try reader.byte() }
    public static func append(_ value: UInt8, to writer: inout DBusMessageWriter) throws(DBusError) { try writer.byte(value) }
}

/// A policy's `u`: a number that is not one of Apple's policies is refused as the call's arguments are read.
extension LAPolicy: DBusArgument {
    public static var signature: String { "u" }
    public static func read(from reader: inout DBusMessageReader) throws(DBusError) -> LAPolicy {
        let raw = try reader.uint32()
        guard let policy = LAPolicy(rawValue: Int(raw)) else { throw .invalidArgs(LAPolicy.unknown(Int(raw))) }
        return policy
    }
    public static func append(_ value: LAPolicy, to writer: inout DBusMessageWriter) throws(DBusError) { try writer.uint32(UInt32(value.rawValue)) }
}

extension BusWire.Nothing: DBusArgument {
    public typealias Value = Void
    public static var signature: String { "" }
    public static func read(from reader: inout DBusMessageReader) throws(DBusError) {}
    public static func append(_ value: Void, to writer: inout DBusMessageWriter) throws(DBusError) {}
}

extension BusWire.Secret: DBusArgument {
    public typealias Value = DBusSecret
    public static var signature: String { "s" }
    public static var isSecret: Bool { true }
    public static func read(from reader: inout DBusMessageReader) throws(DBusError) -> DBusSecret { try reader.secret() }
    public static func append(_ value: DBusSecret, to writer: inout DBusMessageWriter) throws(DBusError) { try writer.secret(value) }
}

extension BusWire.SecretBytes: DBusArgument {
    public typealias Value = DBusSecret
    public static var signature: String { "ay" }
    public static var isSecret: Bool { true }
    public static func read(from reader: inout DBusMessageReader) throws(DBusError) -> DBusSecret { try reader.secretBytes() }
    public static func append(_ value: DBusSecret, to writer: inout DBusMessageWriter) throws(DBusError) { try writer.secretBytes(value) }
}

extension BusWire.ObjectPath: DBusArgument {
    public typealias Value = String
    public static var signature: String { "o" }
    public static func read(from reader: inout DBusMessageReader) throws(DBusError) -> String { try reader.objectPath() }
    public static func append(_ value: String, to writer: inout DBusMessageWriter) throws(DBusError) { try writer.objectPath(value) }
}

extension BusWire.Vardict: DBusArgument {
    public typealias Value = [String: DBusValue]
    public static var signature: String { "a{sv}" }
    public static func read(from reader: inout DBusMessageReader) throws(DBusError) -> [String: DBusValue] { try reader.vardict() }
    public static func append(_ value: [String: DBusValue], to writer: inout DBusMessageWriter) throws(DBusError) { try writer.vardict(value) }
}

extension BusWire.FaceConsents: DBusArgument {
    public typealias Value = [(app: String, allowed: Bool)]
    public static var signature: String { "a(sb)" }
    public static func read(from reader: inout DBusMessageReader) throws(DBusError) -> Value {
        var consents: Value = []
        try reader.array(signature) { (element) throws(DBusError) in
            try element.structure("(sb)") { (fields) throws(DBusError) in consents.append((try fields.string(), try fields.bool())) }
        }
        return consents
    }
    public static func append(_ value: Value, to writer: inout DBusMessageWriter) throws(DBusError) {
        try writer.array("(sb)") { (elements) throws(DBusError) in
            for consent in value {
                try elements.structure { (fields) throws(DBusError) in
                    try fields.string(consent.app)
                    try fields.bool(consent.allowed)
                }
            }
        }
    }
}

extension BusWire.RightNames: DBusArgument {
    public typealias Value = [(application: String, identifier: String)]
    public static var signature: String { "a(ss)" }
    public static func read(from reader: inout DBusMessageReader) throws(DBusError) -> Value {
        var names: Value = []
        try reader.array(signature) { (element) throws(DBusError) in
            try element.structure("(ss)") { (fields) throws(DBusError) in names.append((try fields.string(), try fields.string())) }
        }
        return names
    }
    public static func append(_ value: Value, to writer: inout DBusMessageWriter) throws(DBusError) {
        try writer.array("(ss)") { (elements) throws(DBusError) in
            for name in value {
                try elements.structure { (fields) throws(DBusError) in
                    try fields.string(name.application)
                    try fields.string(name.identifier)
                }
            }
        }
    }
}

/// The `Backends` list stays a ``DBusValue``: the daemon builds it once for the property and the method.
extension BusWire.Backends: DBusArgument {
    public typealias Value = DBusValue
    public static var signature: String { "a(ssba{sv})" }
    public static func read(from reader: inout DBusMessageReader) throws(DBusError) -> DBusValue {
        let value = try reader.value()
        guard value.signature == signature else { throw .invalidArgs("Backends should be of type \(signature), got \(value.signature)") }
        return value
    }
    public static func append(_ value: DBusValue, to writer: inout DBusMessageWriter) throws(DBusError) {
        guard value.signature == signature else { throw .invalidArgs("Backends should be of type \(signature), got \(value.signature)") }
        try writer.value(value)
    }
}

extension BusWire.HelloReply: DBusArgument {
    public typealias Value = (version: UInt32, modality: String, capabilities: [String: DBusValue])
    public static var signature: String { "usa{sv}" }
    public static func read(from reader: inout DBusMessageReader) throws(DBusError) -> Value {
        (try reader.uint32(), try reader.string(), try reader.vardict())
    }
    public static func append(_ value: Value, to writer: inout DBusMessageWriter) throws(DBusError) {
        try writer.uint32(value.version)
        try writer.string(value.modality)
        try writer.vardict(value.capabilities)
    }
}

extension DBusInterfaceDescription.Method {
    /// What the codecs of `method`'s types say about it where its declaration disagrees (an
    /// argument's signature or secret flag, or the reply's signature); nil when they agree.
    public static func codecMismatch<each Input: DBusArgument, Output: DBusArgument>(
        _ method: BusMethod<repeat each Input, Output>
    ) -> String? {
        var codec: [(signature: String, isSecret: Bool)] = []
        for type in repeat (each Input).self { codec.append((type.signature, type.isSecret)) }
        let declared = method.inputs.map { ($0.type, $0.isSecret) }
        guard codec.map(\.signature) == declared.map(\.0), codec.map(\.isSecret) == declared.map(\.1) else {
            return "\(method.member) declares inputs \(declared) but its types are \(codec)"
        }
        let outputs = method.outputs.map(\.type).joined()
        guard outputs == Output.signature, method.outputs.contains(where: \.isSecret) == Output.isSecret else {
            return "\(method.member) declares outputs (\(outputs)) but its type is (\(Output.signature)), secret: \(Output.isSecret)"
        }
        return nil
    }
}
