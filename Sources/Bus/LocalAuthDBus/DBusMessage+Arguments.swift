// SPDX-License-Identifier: Apache-2.0
import CDBus

/// Writing and reading a message's arguments as `DBusValue`s.
extension DBusMessage {
    /// Appends `values` after validating all of them, so nothing invalid reaches libdbus and a
    /// failure leaves no half-written argument behind. The message must have no arguments yet if
    /// any value is a `.secret` or `.secretBytes` (its copy is zeroed when libdbus frees the message).
    func append(_ values: [DBusValue]) throws(DBusError) {
        for value in values { try value.validate() }
        let signature = DBusValue.signature(of: values)
        guard signature.utf8.count <= 255 else {
            throw .limitsExceeded("message signature is longer than 255 characters")
        }
        var iter = DBusMessageIter()
        dbus_message_iter_init_append(raw, &iter)
        for value in values { try Self.write(value, into: &iter) }
        try fillSecrets(values.indices.compactMap { index in values[index].anySecret.map { (index, $0) } })
    }

    /// The most values one message may decode to (every string, number, container and entry
    /// counts; a byte array counts once). libdbus accepts messages of up to 128 MiB, and decoding
    /// one with hundreds of thousands of dictionary entries takes the connection's queue for
    /// seconds; no message of this project's APIs comes near this bound.
    static let maximumValueCount = 4096

    /// All arguments. libdbus has validated a received message's structure, so this fails only on
    /// types this module does not support (unix fds), or with `LimitsExceeded` as soon as the
    /// message holds more than ``maximumValueCount`` values (decoding stops there).
    ///
    /// The top-level string arguments at `secretIndexes` become `.secret` values, and the byte
    /// arrays there `.secretBytes`; their bytes in the message are zeroed. An argument there of
    /// another type is read as usual.
    func arguments(secretIndexes: Set<Int> = []) throws(DBusError) -> [DBusValue] {
        var iter = DBusMessageIter()
        guard dbus_message_iter_init(raw, &iter) != 0 else { return [] }
        var budget = Self.maximumValueCount
        guard !secretIndexes.isEmpty else { return try Self.readAll(&iter, &budget) }
        var values: [DBusValue] = []
        while dbus_message_iter_get_arg_type(&iter) != DBusTypeCode.invalid {
            if secretIndexes.contains(values.count), dbus_message_iter_get_arg_type(&iter) == DBusTypeCode.string {
                try Self.spend(&budget)
                values.append(.secret(Self.takeSecret(&iter)))
            } else if secretIndexes.contains(values.count), dbus_message_iter_get_arg_type(&iter) == DBusTypeCode.array,
                      dbus_message_iter_get_element_type(&iter) == DBusTypeCode.byte {
                try Self.spend(&budget)
                values.append(.secretBytes(Self.takeSecretBytes(&iter)))
            } else {
                values.append(try Self.read(&iter, &budget))
            }
            dbus_message_iter_next(&iter)
        }
        return values
    }

    // MARK: Writing

    private static let outOfMemory = DBusError(.noMemory, "out of memory writing a message argument")

    static func write(_ value: DBusValue, into iter: inout DBusMessageIter) throws(DBusError) {
        switch value {
        case .byte(let v): try appendBasic(&iter, DBusTypeCode.byte, v)
        case .bool(let v): try appendBasic(&iter, DBusTypeCode.boolean, dbus_bool_t(v ? 1 : 0))
        case .int16(let v): try appendBasic(&iter, DBusTypeCode.int16, v)
        case .uint16(let v): try appendBasic(&iter, DBusTypeCode.uint16, v)
        case .int32(let v): try appendBasic(&iter, DBusTypeCode.int32, v)
        case .uint32(let v): try appendBasic(&iter, DBusTypeCode.uint32, v)
        case .int64(let v): try appendBasic(&iter, DBusTypeCode.int64, v)
        case .uint64(let v): try appendBasic(&iter, DBusTypeCode.uint64, v)
        case .double(let v): try appendBasic(&iter, DBusTypeCode.double, v)
        case .string(let v): try appendString(&iter, DBusTypeCode.string, v)
        case .secret(let secret):
            // A stand-in of the same length: libdbus may reallocate the body while later arguments
            // are appended, which would leave a copy in freed memory. `fillSecrets` puts the bytes in.
            try appendString(&iter, DBusTypeCode.string, String(repeating: "*", count: secret.count))
        case .secretBytes(let secret):
            // Zeros of the same length, for the same reason; `fillSecrets` puts the bytes in.
            try write(.bytes([UInt8](repeating: 0, count: secret.count)), into: &iter)
        case .objectPath(let v): try appendString(&iter, DBusTypeCode.objectPath, v)
        case .signature(let v): try appendString(&iter, DBusTypeCode.signature, v)
        case .bytes(let bytes):
            try withContainer(&iter, DBusTypeCode.array, "y") { (sub) throws(DBusError) in
                let ok = bytes.withUnsafeBufferPointer { buffer in
                    var start = buffer.baseAddress
                    return dbus_message_iter_append_fixed_array(&sub, DBusTypeCode.byte, &start, Int32(buffer.count))
                }
                guard ok != 0 else { throw outOfMemory }
            }
        case .array(let element, let elements):
            try withContainer(&iter, DBusTypeCode.array, element) { (sub) throws(DBusError) in
                for element in elements { try write(element, into: &sub) }
            }
        case .dictionary(let key, let valueSignature, let entries):
            try withContainer(&iter, DBusTypeCode.array, "{" + key + valueSignature + "}") { (sub) throws(DBusError) in
                for (k, v) in entries {
                    try withContainer(&sub, DBusTypeCode.dictEntry, nil) { (entry) throws(DBusError) in
                        try write(k, into: &entry)
                        try write(v, into: &entry)
                    }
                }
            }
        case .structure(let fields):
            try withContainer(&iter, DBusTypeCode.structure, nil) { (sub) throws(DBusError) in
                for field in fields { try write(field, into: &sub) }
            }
        case .variant(let inner):
            try withContainer(&iter, DBusTypeCode.variant, inner.signature) { (sub) throws(DBusError) in
                try write(inner, into: &sub)
            }
        }
    }

    static func appendBasic<T: BitwiseCopyable>(_ iter: inout DBusMessageIter, _ type: Int32, _ value: T) throws(DBusError) {
        var value = value
        guard dbus_message_iter_append_basic(&iter, type, &value) != 0 else { throw outOfMemory }
    }

    static func appendString(_ iter: inout DBusMessageIter, _ type: Int32, _ string: String) throws(DBusError) {
        let ok = string.withCString { pointer in
            var pointer: UnsafePointer<CChar>? = pointer
            return dbus_message_iter_append_basic(&iter, type, &pointer)
        }
        guard ok != 0 else { throw outOfMemory }
    }

    static func withContainer(
        _ iter: inout DBusMessageIter, _ type: Int32, _ signature: String?,
        _ body: (inout DBusMessageIter) throws(DBusError) -> Void
    ) throws(DBusError) {
        var sub = DBusMessageIter()
        let opened = withOptionalCString(signature) { dbus_message_iter_open_container(&iter, type, $0, &sub) }
        guard opened != 0 else { throw outOfMemory }
        do {
            try body(&sub)
        } catch {
            dbus_message_iter_abandon_container(&iter, &sub)
            throw error
        }
        guard dbus_message_iter_close_container(&iter, &sub) != 0 else { throw outOfMemory }
    }

    // MARK: Reading

    static func spend(_ budget: inout Int) throws(DBusError) {
        budget -= 1
        guard budget >= 0 else {
            throw .limitsExceeded("The message holds more than \(maximumValueCount) values; no call of this API needs that many.")
        }
    }

    private static func readAll(_ iter: inout DBusMessageIter, _ budget: inout Int) throws(DBusError) -> [DBusValue] {
        var values: [DBusValue] = []
        while dbus_message_iter_get_arg_type(&iter) != DBusTypeCode.invalid {
            values.append(try read(&iter, &budget))
            dbus_message_iter_next(&iter)
        }
        return values
    }

    static func read(_ iter: inout DBusMessageIter, _ budget: inout Int) throws(DBusError) -> DBusValue {
        try spend(&budget)
        let type = dbus_message_iter_get_arg_type(&iter)
        switch type {
        case DBusTypeCode.byte: return .byte(basic(&iter).byt)
        case DBusTypeCode.boolean: return .bool(basic(&iter).bool_val != 0)
        case DBusTypeCode.int16: return .int16(basic(&iter).i16)
        case DBusTypeCode.uint16: return .uint16(basic(&iter).u16)
        case DBusTypeCode.int32: return .int32(basic(&iter).i32)
        case DBusTypeCode.uint32: return .uint32(basic(&iter).u32)
        case DBusTypeCode.int64: return .int64(Int64(basic(&iter).i64))
        case DBusTypeCode.uint64: return .uint64(UInt64(basic(&iter).u64))
        case DBusTypeCode.double: return .double(basic(&iter).dbl)
        case DBusTypeCode.string: return .string(string(&iter))
        case DBusTypeCode.objectPath: return .objectPath(string(&iter))
        case DBusTypeCode.signature: return .signature(string(&iter))
        case DBusTypeCode.array: return try readArray(&iter, &budget)
        case DBusTypeCode.structure:
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(&iter, &sub)
            return .structure(try readAll(&sub, &budget))
        case DBusTypeCode.variant:
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(&iter, &sub)
            return .variant(try read(&sub, &budget))
        case DBusTypeCode.unixFD:
            throw .notSupported("unix file descriptors are not supported")
        default:
            throw .invalidArgs("unsupported D-Bus type code \(type)")
        }
    }

    private static func readArray(_ iter: inout DBusMessageIter, _ budget: inout Int) throws(DBusError) -> DBusValue {
        // The array's own signature, e.g. "a{sv}"; its element signature follows the "a".
        let element = String(signature(of: &iter).dropFirst())
        var sub = DBusMessageIter()
        dbus_message_iter_recurse(&iter, &sub)
        if element == "y" {
            var start: UnsafeMutableRawPointer?
            var count: Int32 = 0
            withUnsafeMutablePointer(to: &start) { pointer in
                dbus_message_iter_get_fixed_array(&sub, pointer, &count)
            }
            guard let start, count > 0 else { return .bytes([]) }
            return .bytes(Array(UnsafeRawBufferPointer(start: start, count: Int(count))))
        }
        if element.hasPrefix("{") {
            // "{kv…}": a one-character basic key, then the value's signature.
            let inner = element.dropFirst().dropLast()
            let key = String(inner.prefix(1))
            let value = String(inner.dropFirst())
            var entries = [DBusValue: DBusValue]()
            while dbus_message_iter_get_arg_type(&sub) == DBusTypeCode.dictEntry {
                var entry = DBusMessageIter()
                dbus_message_iter_recurse(&sub, &entry)
                try spend(&budget)
                let pair = try readAll(&entry, &budget)
                guard pair.count == 2 else { throw .invalidArgs("malformed dictionary entry") }
                entries[pair[0]] = pair[1]
                dbus_message_iter_next(&sub)
            }
            return .dictionary(keySignature: key, valueSignature: value, entries)
        }
        return .array(elementSignature: element, try readAll(&sub, &budget))
    }

    static func basic(_ iter: inout DBusMessageIter) -> DBusBasicValue {
        var value = DBusBasicValue()
        dbus_message_iter_get_basic(&iter, &value)
        return value
    }

    static func string(_ iter: inout DBusMessageIter) -> String {
        basic(&iter).str.map { String(cString: $0) } ?? ""
    }

    private static func signature(of iter: inout DBusMessageIter) -> String {
        guard let signature = dbus_message_iter_get_signature(&iter) else { return "" }
        defer { dbus_free(signature) }
        return String(cString: signature)
    }
}
