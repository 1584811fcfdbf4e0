// SPDX-License-Identifier: Apache-2.0
import CDBus

/// Reads a message's arguments in order straight from libdbus's iterator into Swift values, for
/// the typed path (``DBusArgument``): no ``DBusValue`` in between except inside a variant.
/// Throws `InvalidArgs` for a value of another type or a missing one, and `LimitsExceeded` past
/// ``DBusMessage/maximumValueCount`` values, like ``DBusMessage/arguments(secretIndexes:)``.
/// Lives only inside the call that reads the message (its iterator points into the message).
public struct DBusMessageReader {
    private var iter: DBusMessageIter
    private var budget: Int
    /// Counted from 1, for messages.
    private var position = 1
    /// About how many bytes the values read so far take (as `DBusValue.byteCount` counts them).
    private var byteCount = 0

    private init(_ iter: DBusMessageIter, budget: Int) {
        self.iter = iter
        self.budget = budget
    }

    /// Runs `body` with a reader over `message`'s arguments and throws unless it read all of them.
    static func read<T>(_ message: DBusMessage, _ body: (inout DBusMessageReader) throws(DBusError) -> T) throws(DBusError) -> T {
        try read(message, body).value
    }

    /// The same, with about how many bytes the arguments take.
    static func read<T>(_ message: DBusMessage, _ body: (inout DBusMessageReader) throws(DBusError) -> T) throws(DBusError) -> (value: T, byteCount: Int) {
        var iter = DBusMessageIter()
        dbus_message_iter_init(message.raw, &iter)
        var reader = DBusMessageReader(iter, budget: DBusMessage.maximumValueCount)
        let value = try body(&reader)
        try reader.finish()
        return (value, reader.byteCount)
    }

    private var type: Int32 { mutating get { dbus_message_iter_get_arg_type(&iter) } }

    private mutating func expect(_ code: Int32, _ signature: String) throws(DBusError) {
        try DBusMessage.spend(&budget)
        let actual = type
        guard actual == code else {
            throw .invalidArgs(actual == DBusTypeCode.invalid
                ? "expected an argument of type \(signature) at position \(position), found none"
                : "argument \(position) should be of type \(signature), got \(Self.signature(&iter))")
        }
    }

    private mutating func advance() {
        dbus_message_iter_next(&iter)
        position += 1
    }

    private mutating func basic(_ code: Int32, _ signature: String) throws(DBusError) -> DBusBasicValue {
        try expect(code, signature)
        defer { advance() }
        byteCount += 8
        return DBusMessage.basic(&iter)
    }

    mutating func byte() throws(DBusError) -> UInt8 { try basic(DBusTypeCode.byte, "y").byt }
    mutating func bool() throws(DBusError) -> Bool { try basic(DBusTypeCode.boolean, "b").bool_val != 0 }
    mutating func uint32() throws(DBusError) -> UInt32 { try basic(DBusTypeCode.uint32, "u").u32 }
    mutating func uint64() throws(DBusError) -> UInt64 { UInt64(try basic(DBusTypeCode.uint64, "t").u64) }
    mutating func double() throws(DBusError) -> Double { try basic(DBusTypeCode.double, "d").dbl }
    mutating func string() throws(DBusError) -> String {
        try expect(DBusTypeCode.string, "s")
        defer { advance() }
        let string = DBusMessage.string(&iter)
        byteCount += 4 + string.utf8.count
        return string
    }
    mutating func objectPath() throws(DBusError) -> String {
        try expect(DBusTypeCode.objectPath, "o")
        defer { advance() }
        let path = DBusMessage.string(&iter)
        byteCount += 4 + path.utf8.count
        return path
    }

    /// An `s` copied into a ``DBusSecret``; the message's copy is zeroed.
    mutating func secret() throws(DBusError) -> DBusSecret {
        try expect(DBusTypeCode.string, "s")
        defer { advance() }
        let secret = DBusMessage.takeSecret(&iter)
        byteCount += 4 + secret.count
        return secret
    }

    /// An `ay` copied into a ``DBusSecret``; the message's copy is zeroed.
    mutating func secretBytes() throws(DBusError) -> DBusSecret {
        try expectByteArray()
        defer { advance() }
        let secret = DBusMessage.takeSecretBytes(&iter)
        byteCount += 4 + secret.count
        return secret
    }

    mutating func bytes() throws(DBusError) -> [UInt8] {
        try expectByteArray()
        defer { advance() }
        var elements = DBusMessageIter()
        dbus_message_iter_recurse(&iter, &elements)
        var start: UnsafeMutableRawPointer?
        var count: Int32 = 0
        dbus_message_iter_get_fixed_array(&elements, &start, &count)
        byteCount += 4 + Int(count)
        guard let start, count > 0 else { return [] }
        return Array(UnsafeRawBufferPointer(start: start, count: Int(count)))
    }

    private mutating func expectByteArray() throws(DBusError) {
        try expect(DBusTypeCode.array, "ay")
        guard dbus_message_iter_get_element_type(&iter) == DBusTypeCode.byte else {
            throw .invalidArgs("argument \(position) should be of type ay, got \(Self.signature(&iter))")
        }
    }

    /// Any value, as a ``DBusValue`` tree (a variant's content, a `Backends` list).
    mutating func value() throws(DBusError) -> DBusValue {
        guard type != DBusTypeCode.invalid else { throw .invalidArgs("expected an argument at position \(position), found none") }
        defer { advance() }
        let value = try DBusMessage.read(&iter, &budget)
        byteCount += value.byteCount
        return value
    }

    /// An `a{sv}`, variants unwrapped.
    mutating func vardict() throws(DBusError) -> [String: DBusValue] {
        var entries: [String: DBusValue] = [:]
        try array("a{sv}") { (entry) throws(DBusError) in
            try entry.structure("{sv}", code: DBusTypeCode.dictEntry) { (fields) throws(DBusError) in
                let key = try fields.string()
                try fields.expect(DBusTypeCode.variant, "v")
                var inner = DBusMessageIter()
                dbus_message_iter_recurse(&fields.iter, &inner)
                let value = try DBusMessage.read(&inner, &fields.budget)
                fields.byteCount += 2 + value.signature.utf8.count + value.byteCount
                entries[key] = value
                fields.advance()
            }
        }
        return entries
    }

    /// An array whose elements `element` reads one at a time.
    mutating func array(_ signature: String, _ element: (inout DBusMessageReader) throws(DBusError) -> Void) throws(DBusError) {
        try expect(DBusTypeCode.array, signature)
        var sub = DBusMessageIter()
        dbus_message_iter_recurse(&iter, &sub)
        var elements = DBusMessageReader(sub, budget: budget)
        while elements.type != DBusTypeCode.invalid { try element(&elements) }
        budget = elements.budget
        byteCount += 4 + elements.byteCount
        advance()
    }

    /// A structure (or dictionary entry) whose fields `body` reads, all of them.
    mutating func structure(_ signature: String, code: Int32 = DBusTypeCode.structure,
                            _ body: (inout DBusMessageReader) throws(DBusError) -> Void) throws(DBusError) {
        try expect(code, signature)
        var sub = DBusMessageIter()
        dbus_message_iter_recurse(&iter, &sub)
        var fields = DBusMessageReader(sub, budget: budget)
        try body(&fields)
        try fields.finish()
        budget = fields.budget
        byteCount += fields.byteCount
        advance()
    }

    /// Throws unless every argument has been read.
    func finish() throws(DBusError) {
        var iter = iter
        guard dbus_message_iter_get_arg_type(&iter) == DBusTypeCode.invalid else {
            throw .invalidArgs("expected \(position - 1) arguments, got more")
        }
    }

    private static func signature(_ iter: inout DBusMessageIter) -> String {
        guard let signature = dbus_message_iter_get_signature(&iter) else { return "" }
        defer { dbus_free(signature) }
        return String(cString: signature)
    }
}
