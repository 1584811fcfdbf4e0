// SPDX-License-Identifier: Apache-2.0
/// One D-Bus value of any type, as read from or written to a message.
///
/// Containers carry the signature of their elements so that empty arrays and dictionaries can be
/// written. `ay` has its own case, `bytes`, and is always read as `bytes`; an `array` with element
/// signature `y` is accepted when writing too. Unix file descriptors (`h`) are not supported.
public indirect enum DBusValue: Sendable, Hashable {
    case byte(UInt8)
    case bool(Bool)
    case int16(Int16)
    case uint16(UInt16)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    case double(Double)
    case string(String)
    /// An `s` that holds a secret: never a Swift `String`. Only a top-level argument of a message
    /// may be one (its copy in the message is zeroed when libdbus frees the message).
    case secret(DBusSecret)
    /// An `ay` that holds a secret (a right's secret, a plaintext, a shared key): never a Swift
    /// array. Only a top-level argument of a message may be one (its copy in the message is
    /// zeroed when libdbus frees the message).
    case secretBytes(DBusSecret)
    case objectPath(String)
    case signature(String)
    /// `ay`.
    case bytes([UInt8])
    /// `a<elementSignature>`; every element must have exactly that signature.
    case array(elementSignature: String, [DBusValue])
    /// `a{<keySignature><valueSignature>}`; the key signature must be a basic type.
    case dictionary(keySignature: String, valueSignature: String, [DBusValue: DBusValue])
    /// `(…)`; must have at least one field.
    case structure([DBusValue])
    /// `v`.
    case variant(DBusValue)

    /// The D-Bus signature of this value, e.g. `a{sv}`.
    public var signature: String {
        switch self {
        case .byte: "y"
        case .bool: "b"
        case .int16: "n"
        case .uint16: "q"
        case .int32: "i"
        case .uint32: "u"
        case .int64: "x"
        case .uint64: "t"
        case .double: "d"
        case .string, .secret: "s"
        case .objectPath: "o"
        case .signature: "g"
        case .bytes, .secretBytes: "ay"
        case .array(let element, _): "a" + element
        case .dictionary(let key, let value, _): "a{" + key + value + "}"
        case .structure(let fields): "(" + fields.map(\.signature).joined() + ")"
        case .variant: "v"
        }
    }

    /// About how many bytes this value takes in a message (alignment padding not counted); what
    /// a service charges a caller for keeping it queued.
    public var byteCount: Int {
        switch self {
        case .byte: 1
        case .int16, .uint16: 2
        case .bool, .int32, .uint32: 4
        case .int64, .uint64, .double: 8
        case .string(let text), .objectPath(let text): 5 + text.utf8.count
        case .secret(let secret): 5 + secret.count
        case .signature(let text): 2 + text.utf8.count
        case .bytes(let bytes): 4 + bytes.count
        case .secretBytes(let secret): 4 + secret.count
        case .array(_, let elements): 4 + elements.reduce(0) { $0 + $1.byteCount }
        case .dictionary(_, _, let entries): 4 + entries.reduce(0) { $0 + $1.key.byteCount + $1.value.byteCount }
        case .structure(let fields): fields.reduce(0) { $0 + $1.byteCount }
        case .variant(let value): 2 + value.signature.utf8.count + value.byteCount
        }
    }

    /// The signature of a list of values, as in a message's signature header.
    public static func signature(of values: [DBusValue]) -> String {
        values.map(\.signature).joined()
    }
}

// MARK: - Building common shapes

extension DBusValue {
    /// `a{sv}` from a Swift dictionary; each value is wrapped in a variant.
    public static func vardict(_ entries: [String: DBusValue]) -> DBusValue {
        .dictionary(
            keySignature: "s", valueSignature: "v",
            Dictionary(uniqueKeysWithValues: entries.map { (.string($0.key), .variant($0.value)) }))
    }

    /// `as`.
    public static func strings(_ strings: [String]) -> DBusValue {
        .array(elementSignature: "s", strings.map { .string($0) })
    }
}

// MARK: - Reading values back

extension DBusValue {
    /// The value inside a variant, or the value itself if it is not a variant. Nested variants are
    /// unwrapped one level per call.
    public var unwrapped: DBusValue {
        if case .variant(let inner) = self { return inner }
        return self
    }

    public var byte: UInt8? { if case .byte(let v) = self { v } else { nil } }
    public var bool: Bool? { if case .bool(let v) = self { v } else { nil } }
    public var int16: Int16? { if case .int16(let v) = self { v } else { nil } }
    public var uint16: UInt16? { if case .uint16(let v) = self { v } else { nil } }
    public var int32: Int32? { if case .int32(let v) = self { v } else { nil } }
    public var uint32: UInt32? { if case .uint32(let v) = self { v } else { nil } }
    public var int64: Int64? { if case .int64(let v) = self { v } else { nil } }
    public var uint64: UInt64? { if case .uint64(let v) = self { v } else { nil } }
    public var double: Double? { if case .double(let v) = self { v } else { nil } }
    public var string: String? { if case .string(let v) = self { v } else { nil } }
    public var secret: DBusSecret? { if case .secret(let v) = self { v } else { nil } }
    public var secretBytes: DBusSecret? { if case .secretBytes(let v) = self { v } else { nil } }
    /// The secret of a `.secret` or `.secretBytes` value.
    public var anySecret: DBusSecret? {
        switch self {
        case .secret(let v), .secretBytes(let v): v
        default: nil
        }
    }
    public var objectPath: String? { if case .objectPath(let v) = self { v } else { nil } }
    public var variant: DBusValue? { if case .variant(let v) = self { v } else { nil } }
    public var structure: [DBusValue]? { if case .structure(let v) = self { v } else { nil } }

    /// The bytes of an `ay` value, in either of its two spellings.
    public var bytes: [UInt8]? {
        switch self {
        case .bytes(let bytes): bytes
        case .array("y", let elements): elements.compactMap(\.byte)
        default: nil
        }
    }

    /// The elements of any array (`ay` as bytes).
    public var arrayElements: [DBusValue]? {
        switch self {
        case .array(_, let elements): elements
        case .bytes(let bytes): bytes.map { .byte($0) }
        default: nil
        }
    }

    /// The strings of an `as` value.
    public var strings: [String]? {
        guard case .array("s", let elements) = self else { return nil }
        return elements.compactMap(\.string)
    }

    /// The entries of an `a{sv}` value, variants unwrapped.
    public var vardict: [String: DBusValue]? {
        guard case .dictionary("s", "v", let entries) = self else { return nil }
        var result = [String: DBusValue]()
        for (key, value) in entries {
            guard let key = key.string else { return nil }
            result[key] = value.unwrapped
        }
        return result
    }
}

// MARK: - Validation before writing

extension DBusValue {
    /// Throws `InvalidArgs` for anything libdbus would abort on or write inconsistently: invalid
    /// strings, paths or signatures, elements that do not match their container's signature,
    /// containers nested deeper than D-Bus allows.
    public func validate() throws(DBusError) {
        try validate(depth: 0)
    }

    /// The spec allows 32 levels of arrays plus 32 of structs; counting every container (variants
    /// too) against 32 is simpler and stricter than any service here needs.
    static let maximumDepth = 32
    /// D-Bus limits one array to 64 MiB.
    static let maximumArrayBytes = 64 << 20

    private func validate(depth: Int) throws(DBusError) {
        switch self {
        case .byte, .bool, .int16, .uint16, .int32, .uint32, .int64, .uint64, .double:
            return
        case .string(let s):
            try DBusSyntax.requireString(s)
            return
        case .secret(let secret):
            guard depth == 0 else { throw .invalidArgs("a secret can only be a top-level argument, not inside a container") }
            guard secret.isValidString else { throw .invalidArgs("a secret string is not valid UTF-8 or contains NUL") }
            return
        case .secretBytes(let secret):
            guard depth == 0 else { throw .invalidArgs("a secret can only be a top-level argument, not inside a container") }
            guard secret.count <= Self.maximumArrayBytes else {
                throw .limitsExceeded("byte array of \(secret.count) bytes exceeds the D-Bus limit of 64 MiB")
            }
            return
        case .objectPath(let path):
            try DBusSyntax.requireObjectPath(path)
            return
        case .signature(let signature):
            guard DBusSyntax.isValidSignature(signature) else {
                throw .invalidArgs("invalid signature \(DBusSyntax.quoted(signature))")
            }
            return
        default:
            break
        }
        guard depth < Self.maximumDepth else {
            throw .invalidArgs("values nested deeper than \(Self.maximumDepth) containers")
        }
        switch self {
        case .bytes(let bytes):
            guard bytes.count <= Self.maximumArrayBytes else {
                throw .limitsExceeded("byte array of \(bytes.count) bytes exceeds the D-Bus limit of 64 MiB")
            }
        case .array(let element, let elements):
            guard DBusSyntax.isValidSingleType(element) else {
                throw .invalidArgs("invalid array element signature \(DBusSyntax.quoted(element))")
            }
            for value in elements {
                try value.validate(as: element, in: "array", depth: depth + 1)
            }
        case .dictionary(let key, let valueSignature, let entries):
            guard key.utf8.count == 1, Self.basicTypeCodes.contains(key.utf8.first!) else {
                throw .invalidArgs("dictionary key signature \(DBusSyntax.quoted(key)) is not a basic type")
            }
            guard DBusSyntax.isValidSingleType(valueSignature) else {
                throw .invalidArgs("invalid dictionary value signature \(DBusSyntax.quoted(valueSignature))")
            }
            for (k, v) in entries {
                try k.validate(as: key, in: "dictionary key", depth: depth + 1)
                try v.validate(as: valueSignature, in: "dictionary value", depth: depth + 1)
            }
        case .structure(let fields):
            guard !fields.isEmpty else { throw .invalidArgs("a structure needs at least one field") }
            for field in fields { try field.validate(depth: depth + 1) }
        case .variant(let inner):
            guard DBusSyntax.isValidSingleType(inner.signature) else {
                throw .invalidArgs("variant holds a value whose signature is too long or too deep")
            }
            try inner.validate(depth: depth + 1)
        default:
            break
        }
    }

    private func validate(as expected: String, in container: String, depth: Int) throws(DBusError) {
        let actual = signature
        // `ay` may be spelled either way, so compare signatures rather than cases.
        guard actual == expected else {
            throw .invalidArgs("\(container) expects \(expected) but holds a value of type \(actual)")
        }
        try validate(depth: depth)
    }

    /// y b n q i u x t d s o g (h is basic too, but not supported).
    static let basicTypeCodes: Set<UInt8> = Set("ybnqiuxtdsog".utf8)
}
