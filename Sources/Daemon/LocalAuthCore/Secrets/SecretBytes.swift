// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Secret bytes in memory (a right's secret, an unsealed private key, a stored login password):
/// wiped when the last reference goes away, never printed (`description` is redacted).
public final class SecretBytes: @unchecked Sendable, CustomStringConvertible {
    // Immutable after init; only deinit writes (zeroes) it, when no one else can read it.
    private let storage: UnsafeMutableBufferPointer<UInt8>
    public let count: Int

    public init(bytes: some Collection<UInt8>) {
        storage = .allocate(capacity: max(bytes.count, 1))
        count = storage.initialize(from: bytes).1
    }

    /// `count` bytes that `initializer` writes straight into the buffer, so no other copy exists.
    public init(count: Int, initializingWith initializer: (UnsafeMutableBufferPointer<UInt8>) throws -> Void) rethrows {
        storage = .allocate(capacity: max(count, 1))
        storage.initialize(repeating: 0)
        self.count = count
        try initializer(UnsafeMutableBufferPointer(rebasing: storage[..<count]))
    }

    deinit {
        explicit_bzero(storage.baseAddress!, storage.count)
        storage.deallocate()
    }

    public var isEmpty: Bool { count == 0 }

    public func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try body(UnsafeBufferPointer(start: storage.baseAddress, count: count))
    }

    public var description: String { "SecretBytes(\(count) bytes, redacted)" }
}
