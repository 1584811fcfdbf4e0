// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CDBus

/// A secret string argument (a passcode) as bytes that are wiped when the last reference goes away.
///
/// On the wire it is an ordinary `s`. Reading a call whose method marks the argument secret
/// (``DBusInterfaceDescription/Argument/isSecret``) copies it straight from libdbus's message into
/// this buffer and zeroes the message's copy, so no `String` ever holds it; writing one appends it
/// without a `String` copy, and the message's copy is zeroed when libdbus frees the message.
///
/// Immutable after init; only `deinit` writes (zeroes) the buffer, when no one else can read it.
/// Equal only to itself: contents are never compared here (that would be a timing side channel).
public final class DBusSecret: @unchecked Sendable, Hashable, CustomStringConvertible {
    /// `count` bytes and a NUL, so libdbus can take it as a C string.
    private let storage: UnsafeMutableBufferPointer<UInt8>
    public let count: Int

    /// Copies `bytes`; the caller wipes its own copy.
    public init(copying bytes: some Collection<UInt8>) {
        storage = .allocate(capacity: bytes.count + 1)
        let end = storage.initialize(from: bytes).1
        storage[end] = 0
        count = end
    }

    /// Copies `count` bytes from `pointer`.
    init(copying pointer: UnsafePointer<UInt8>, count: Int) {
        storage = .allocate(capacity: count + 1)
        storage.baseAddress!.initialize(from: pointer, count: count)
        storage[count] = 0
        self.count = count
    }

    deinit {
        explicit_bzero(storage.baseAddress!, storage.count)
        storage.deallocate()
    }

    /// The bytes, without the terminating NUL, for the duration of `body`; do not keep copies.
    public func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try body(UnsafeBufferPointer(start: storage.baseAddress, count: count))
    }

    /// NUL-terminated, for libdbus.
    func withCString<R>(_ body: (UnsafePointer<CChar>) throws -> R) rethrows -> R {
        try storage.baseAddress!.withMemoryRebound(to: CChar.self, capacity: storage.count) { try body($0) }
    }

    /// What libdbus requires of a string it sends: valid UTF-8 and no NUL (it aborts otherwise).
    public var isValidString: Bool {
        withCString { strlen($0) == count && dbus_validate_utf8($0, nil) != 0 }
    }

    public static func == (lhs: DBusSecret, rhs: DBusSecret) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
    public var description: String { "DBusSecret(\(count) bytes, redacted)" }
}
