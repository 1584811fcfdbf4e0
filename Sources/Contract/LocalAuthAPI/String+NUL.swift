// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension String {
    /// Whether the string holds U+0000 (the only scalar whose UTF-8 has a zero byte), where a C
    /// string, and so libdbus, would see it end. Every string a reply carries and every text a
    /// context is given is checked.
    public var containsNUL: Bool { contains(utf8Byte: 0) }

    /// Whether the string's UTF-8 holds `byte`: the bytes are searched in place with `memchr`, not
    /// walked through `UTF8View`'s iterator.
    public func contains(utf8Byte byte: UInt8) -> Bool {
        utf8.withContiguousStorageIfAvailable { bytes in
            bytes.baseAddress.map { memchr($0, Int32(byte), bytes.count) != nil } ?? false
        } ?? utf8.contains(byte)
    }
}
