// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CDBus

/// Keeping `DBusSecret` arguments out of libdbus's message buffers once they are no longer needed.
extension DBusMessage {
    /// Copies the string argument at `iter` into a `DBusSecret` and zeroes its bytes inside the
    /// message. Only for received messages: nothing reads their body again after decoding (the
    /// string's length field stays, so the message stays well-formed for libdbus's bookkeeping).
    static func takeSecret(_ iter: inout DBusMessageIter) -> DBusSecret {
        var value = DBusBasicValue()
        dbus_message_iter_get_basic(&iter, &value)
        guard let pointer = value.str else { return DBusSecret(copying: []) }
        let count = strlen(pointer)
        return pointer.withMemoryRebound(to: UInt8.self, capacity: count) { bytes in
            defer { explicit_bzero(bytes, count) }
            return DBusSecret(copying: bytes, count: count)
        }
    }

    /// Copies the byte array argument at `iter` into a `DBusSecret` and zeroes its bytes inside the
    /// message, as ``takeSecret(_:)`` does for a string.
    static func takeSecretBytes(_ iter: inout DBusMessageIter) -> DBusSecret {
        var elements = DBusMessageIter()
        dbus_message_iter_recurse(&iter, &elements)
        var pointer: UnsafeMutableRawPointer?
        var count: Int32 = 0
        dbus_message_iter_get_fixed_array(&elements, &pointer, &count)
        guard let pointer, count > 0 else { return DBusSecret(copying: []) }
        let bytes = pointer.assumingMemoryBound(to: UInt8.self)
        defer { explicit_bzero(bytes, Int(count)) }
        return DBusSecret(copying: bytes, count: Int(count))
    }

    /// Copies each secret into the stand-in string or byte array `append` wrote at its top-level argument index,
    /// and makes libdbus zero those bytes when it frees this message (after it has been sent).
    /// Call once the message is complete: its body is not moved after that.
    func fillSecrets(_ secrets: [(index: Int, secret: DBusSecret)]) throws(DBusError) {
        guard !secrets.isEmpty else { return }
        var ranges: [UnsafeMutableRawBufferPointer] = []
        var iter = DBusMessageIter()
        var index = 0
        if dbus_message_iter_init(raw, &iter) != 0 {
            repeat {
                if let secret = secrets.first(where: { $0.index == index })?.secret,
                   dbus_message_iter_get_arg_type(&iter) == DBusTypeCode.string {
                    var value = DBusBasicValue()
                    dbus_message_iter_get_basic(&iter, &value)
                    if let pointer = value.str, strlen(pointer) == secret.count {
                        let range = UnsafeMutableRawBufferPointer(start: pointer, count: secret.count)
                        secret.withBytes { range.copyMemory(from: UnsafeRawBufferPointer($0)) }
                        ranges.append(range)
                    }
                } else if let secret = secrets.first(where: { $0.index == index })?.secret,
                          dbus_message_iter_get_arg_type(&iter) == DBusTypeCode.array,
                          dbus_message_iter_get_element_type(&iter) == DBusTypeCode.byte {
                    var elements = DBusMessageIter()
                    dbus_message_iter_recurse(&iter, &elements)
                    var pointer: UnsafeMutableRawPointer?
                    var count: Int32 = 0
                    dbus_message_iter_get_fixed_array(&elements, &pointer, &count)
                    if Int(count) == secret.count {
                        let range = UnsafeMutableRawBufferPointer(start: pointer, count: secret.count)
                        if secret.count > 0 { secret.withBytes { range.copyMemory(from: UnsafeRawBufferPointer($0)) } }
                        ranges.append(range)
                    }
                }
                index += 1
            } while dbus_message_iter_next(&iter) != 0
        }
        let wipe = WipeOnFree(ranges)
        guard ranges.count == secrets.count else {
            wipe.wipe()
            throw DBusError(.failed, "a secret argument could not be placed in its message")
        }
        let context = Unmanaged.passRetained(wipe).toOpaque()
        guard Self.wipeSlot >= 0,
              dbus_message_set_data(raw, Self.wipeSlot, context, { Unmanaged<WipeOnFree>.fromOpaque($0!).takeRetainedValue().wipe() }) != 0
        else {
            Unmanaged<WipeOnFree>.fromOpaque(context).release()
            wipe.wipe()
            throw DBusError(.noMemory, "out of memory preparing a message that carries a secret")
        }
    }

    /// The libdbus data slot whose free function wipes secrets; -1 if libdbus had no memory for it.
    /// libdbus keeps the address of the variable holding the slot number, so that variable is
    /// allocated once and never freed.
    private static let wipeSlot: Int32 = {
        let slot = UnsafeMutablePointer<Int32>.allocate(capacity: 1)
        slot.initialize(to: -1)
        guard dbus_message_allocate_data_slot(slot) != 0 else { return -1 }
        return slot.pointee
    }()
}

/// The places in one message's body to zero when libdbus frees it. libdbus calls the free
/// function when the last reference goes (with the message cache lock not yet taken), on whatever
/// thread released it; the ranges are touched only then.
private final class WipeOnFree {
    private let ranges: [UnsafeMutableRawBufferPointer]

    init(_ ranges: [UnsafeMutableRawBufferPointer]) {
        self.ranges = ranges
    }

    func wipe() {
        for range in ranges where range.count > 0 { explicit_bzero(range.baseAddress!, range.count) }
    }
}
