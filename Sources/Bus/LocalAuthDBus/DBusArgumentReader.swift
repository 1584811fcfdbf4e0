// SPDX-License-Identifier: Apache-2.0
/// Reads a method call's arguments in order, throwing `InvalidArgs` for a missing argument, a
/// value of the wrong type, or left-over arguments, so a handler can just `try` and let the
/// error become the reply.
public struct DBusArgumentReader: Sendable {
    private let values: [DBusValue]
    private var index = 0

    public init(_ values: [DBusValue]) {
        self.values = values
    }

    /// The next argument, whatever its type.
    public mutating func next() throws(DBusError) -> DBusValue {
        guard index < values.count else {
            throw .invalidArgs("expected at least \(index + 1) arguments, got \(values.count)")
        }
        defer { index += 1 }
        return values[index]
    }

    public mutating func bool() throws(DBusError) -> Bool { try next("b", \.bool) }
    public mutating func byte() throws(DBusError) -> UInt8 { try next("y", \.byte) }
    public mutating func int32() throws(DBusError) -> Int32 { try next("i", \.int32) }
    public mutating func uint32() throws(DBusError) -> UInt32 { try next("u", \.uint32) }
    public mutating func int64() throws(DBusError) -> Int64 { try next("x", \.int64) }
    public mutating func uint64() throws(DBusError) -> UInt64 { try next("t", \.uint64) }
    public mutating func double() throws(DBusError) -> Double { try next("d", \.double) }
    public mutating func string() throws(DBusError) -> String { try next("s", \.string) }
    /// An `s` argument that the method's description marks secret (`Argument.isSecret`), as the
    /// registration decoded it. A plain string there means the object was registered without
    /// that description: a bug in the service, reported as `Failed` rather than read as a `String`.
    public mutating func secret() throws(DBusError) -> DBusSecret {
        let value = try next()
        if let secret = value.secret { return secret }
        guard value.string == nil else {
            throw .failed("argument \(index) is a secret but was decoded as a string; register the object with its interface description")
        }
        throw .invalidArgs("argument \(index) should be of type s, got \(value.signature)")
    }
    /// An `ay` argument that the method's description marks secret, as the registration decoded it
    /// (see ``secret()``).
    public mutating func secretBytes() throws(DBusError) -> DBusSecret {
        let value = try next()
        if let secret = value.secretBytes { return secret }
        guard value.bytes == nil else {
            throw .failed("argument \(index) is a secret but was decoded as bytes; register the object with its interface description")
        }
        throw .invalidArgs("argument \(index) should be of type ay, got \(value.signature)")
    }
    public mutating func objectPath() throws(DBusError) -> String { try next("o", \.objectPath) }
    public mutating func bytes() throws(DBusError) -> [UInt8] { try next("ay", \.bytes) }
    public mutating func strings() throws(DBusError) -> [String] { try next("as", \.strings) }
    /// An `a{sv}` argument, variants unwrapped.
    public mutating func vardict() throws(DBusError) -> [String: DBusValue] { try next("a{sv}", \.vardict) }
    /// A `v` argument's content.
    public mutating func variant() throws(DBusError) -> DBusValue { try next("v", \.variant) }

    /// Throws unless every argument has been read.
    public func finish() throws(DBusError) {
        guard index == values.count else {
            throw .invalidArgs("expected \(index) arguments, got \(values.count)")
        }
    }

    private mutating func next<T>(_ signature: String, _ extract: (DBusValue) -> T?) throws(DBusError) -> T {
        let value = try next()
        guard value.signature == signature, let result = extract(value) else {
            throw .invalidArgs("argument \(index) should be of type \(signature), got \(value.signature)")
        }
        return result
    }
}
