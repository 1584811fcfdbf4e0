// SPDX-License-Identifier: Apache-2.0
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
        count = storage.initialize(from: bytes).1
    }

    /// `count` bytes that `initializer` writes straight into the passcode's buffer (e.g. from
    /// another wiped buffer), so no intermediate copy exists.
    public init(count: Int, initializingWith initializer: (UnsafeMutableBufferPointer<UInt8>) -> Void) {
        storage = .allocate(capacity: max(count, 1))
        storage.initialize(repeating: 0)
        initializer(UnsafeMutableBufferPointer(rebasing: storage[..<count]))
        self.count = count
    }

    /// Copies the UTF-8 of `string` (without an intermediate array). The caller's `String` cannot
    /// be wiped: for tests and callers that already hold one; the daemon reads passcodes from the
    /// wire with `init(count:initializingWith:)`.
    public convenience init(_ string: String) {
        self.init(bytes: string.utf8)
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
