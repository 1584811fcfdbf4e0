// SPDX-License-Identifier: Apache-2.0
import CDBus

/// Appends arguments to a message straight from Swift values through libdbus's iterator, for the
/// typed path (``DBusArgument``). Strings and paths are validated before libdbus sees them (it
/// aborts on invalid ones); a failure abandons the whole message. Secrets are written as
/// stand-ins and filled in when the message is complete (see ``DBusSecret``); only top-level
/// arguments may be secrets.
public struct DBusMessageWriter {
    private var iter: DBusMessageIter
    private let isTopLevel: Bool
    /// The top-level argument being written.
    private var index = 0
    private var secrets: [(index: Int, secret: DBusSecret)] = []

    private init(_ iter: DBusMessageIter, isTopLevel: Bool) {
        self.iter = iter
        self.isTopLevel = isTopLevel
    }

    /// Appends what `body` writes to `message`, which has no arguments yet.
    static func write(_ message: DBusMessage, _ body: (inout DBusMessageWriter) throws(DBusError) -> Void) throws(DBusError) {
        var iter = DBusMessageIter()
        dbus_message_iter_init_append(message.raw, &iter)
        var writer = DBusMessageWriter(iter, isTopLevel: true)
        try body(&writer)
        try message.fillSecrets(writer.secrets)
    }

    private mutating func wrote() { index += 1 }

    private mutating func basic<T: BitwiseCopyable>(_ code: Int32, _ value: T) throws(DBusError) {
        try DBusMessage.appendBasic(&iter, code, value)
        wrote()
    }

    mutating func byte(_ value: UInt8) throws(DBusError) { try basic(DBusTypeCode.byte, value) }
    mutating func bool(_ value: Bool) throws(DBusError) { try basic(DBusTypeCode.boolean, dbus_bool_t(value ? 1 : 0)) }
    mutating func uint32(_ value: UInt32) throws(DBusError) { try basic(DBusTypeCode.uint32, value) }
    mutating func uint64(_ value: UInt64) throws(DBusError) { try basic(DBusTypeCode.uint64, value) }
    mutating func double(_ value: Double) throws(DBusError) { try basic(DBusTypeCode.double, value) }

    mutating func string(_ value: String) throws(DBusError) {
        try DBusSyntax.requireString(value)
        try DBusMessage.appendString(&iter, DBusTypeCode.string, value)
        wrote()
    }

    mutating func objectPath(_ value: String) throws(DBusError) {
        try DBusSyntax.requireObjectPath(value)
        try DBusMessage.appendString(&iter, DBusTypeCode.objectPath, value)
        wrote()
    }

    mutating func bytes(_ value: [UInt8]) throws(DBusError) {
        guard value.count <= DBusValue.maximumArrayBytes else {
            throw .limitsExceeded("byte array of \(value.count) bytes exceeds the D-Bus limit of 64 MiB")
        }
        try DBusMessage.withContainer(&iter, DBusTypeCode.array, "y") { (sub) throws(DBusError) in
            let ok = value.withUnsafeBufferPointer { buffer in
                var start = buffer.baseAddress
                return dbus_message_iter_append_fixed_array(&sub, DBusTypeCode.byte, &start, Int32(buffer.count))
            }
            guard ok != 0 else { throw DBusError(.noMemory, "out of memory writing a message argument") }
        }
        wrote()
    }

    /// A secret `s`: a stand-in of the same length now, the bytes once the message is complete.
    mutating func secret(_ secret: DBusSecret) throws(DBusError) {
        try requireTopLevel()
        guard secret.isValidString else { throw .invalidArgs("a secret string is not valid UTF-8 or contains NUL") }
        secrets.append((index, secret))
        try DBusMessage.appendString(&iter, DBusTypeCode.string, String(repeating: "*", count: secret.count))
        wrote()
    }

    /// A secret `ay`: zeros of the same length now, the bytes once the message is complete.
    mutating func secretBytes(_ secret: DBusSecret) throws(DBusError) {
        try requireTopLevel()
        let position = index
        try bytes([UInt8](repeating: 0, count: secret.count))
        secrets.append((position, secret))
    }

    private func requireTopLevel() throws(DBusError) {
        guard isTopLevel else { throw .invalidArgs("a secret can only be a top-level argument, not inside a container") }
    }

    /// Any value, validated first (a variant's content, an `a{sv}`, a `Backends` list).
    mutating func value(_ value: DBusValue) throws(DBusError) {
        guard value.anySecret == nil else { throw .invalidArgs("a secret cannot be written as a plain value") }
        try value.validate()
        try DBusMessage.write(value, into: &iter)
        wrote()
    }

    /// An `a{sv}`.
    mutating func vardict(_ entries: [String: DBusValue]) throws(DBusError) {
        try value(.vardict(entries))
    }

    /// An array of `elementSignature` whose elements `body` writes.
    mutating func array(_ elementSignature: String, _ body: (inout DBusMessageWriter) throws(DBusError) -> Void) throws(DBusError) {
        try DBusMessage.withContainer(&iter, DBusTypeCode.array, elementSignature) { (sub) throws(DBusError) in
            var elements = DBusMessageWriter(sub, isTopLevel: false)
            try body(&elements)
            sub = elements.iter
        }
        wrote()
    }

    /// A structure whose fields `body` writes.
    mutating func structure(_ body: (inout DBusMessageWriter) throws(DBusError) -> Void) throws(DBusError) {
        try DBusMessage.withContainer(&iter, DBusTypeCode.structure, nil) { (sub) throws(DBusError) in
            var fields = DBusMessageWriter(sub, isTopLevel: false)
            try body(&fields)
            sub = fields.iter
        }
        wrote()
    }
}
