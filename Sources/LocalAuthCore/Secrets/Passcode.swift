#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A passcode in memory: bytes that are wiped when the last reference goes away.
///
/// Never converted back to a `String` (which cannot be wiped), never printed: `description`
/// is redacted so a stray interpolation cannot leak it.
public final class Passcode: @unchecked Sendable, CustomStringConvertible {
    // Immutable after init; only deinit writes (zeroes) it, when no one else can read it.
    private let storage: UnsafeMutableBufferPointer<UInt8>

    public static let minimumLength = 4
    public static let maximumLength = 128

    public init(bytes: some Collection<UInt8>) {
        storage = .allocate(capacity: max(bytes.count, 1))
        _ = storage.initialize(from: bytes)
        count = bytes.count
    }

    /// Copies the UTF-8 of `string`. The caller's `String` cannot be wiped; prefer `init(bytes:)`
    /// straight from the wire.
    public convenience init(_ string: String) {
        self.init(bytes: Array(string.utf8))
    }

    deinit {
        explicit_bzero(storage.baseAddress!, storage.count)
        storage.deallocate()
    }

    public let count: Int

    public var isEmpty: Bool { count == 0 }

    public func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        // The base address is never nil: storage holds at least one byte even for an empty passcode.
        try body(UnsafeBufferPointer(start: storage.baseAddress, count: count))
    }

    /// Checks the length rule (4–128 bytes); the message never contains the passcode.
    public func validateForStorage() throws(LocalAuthError) {
        guard (Self.minimumLength...Self.maximumLength).contains(count) else {
            throw LocalAuthError(.invalidArgument, "A passcode must be \(Self.minimumLength) to \(Self.maximumLength) bytes long; this one is \(count).")
        }
    }

    public var description: String { "Passcode(\(count) bytes, redacted)" }
}
