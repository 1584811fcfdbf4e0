// SPDX-License-Identifier: Apache-2.0
import CSodium
import LocalAuthCore

/// The wrapping key of a machine without a TPM: `<directory>/wrapping-key`, 32 random bytes in a
/// file only the daemon's user (root) can read, in a directory only it can enter (0700). Created
/// at the first start (`O_EXCL|O_NOFOLLOW`, 0600); refused, with what to do, when it or the
/// directory is open to others, not the daemon's, a link, or of the wrong size.
public struct WrappingKeyFile: Sendable {
    /// The key file's name in the sealing directory.
    public static let fileName = "wrapping-key"

    /// The sealing directory (`<state>/sealing`).
    public let directory: String

    public init(directory: String) {
        self.directory = directory
    }

    /// The key file's path.
    public var path: String { directory + "/" + Self.fileName }

    /// Whether the key file exists (nothing is created to find out).
    public var exists: Bool { SealingDirectory.entryExists(path) }

    /// A sealer with the key of the file, which is created first when there is none.
    public func open() throws(RightVaultError) -> WrappingKeySealer {
        let directory = try SealingDirectory(path: directory)
        return try WrappingKeySealer(protection: .wrappingKey) { (key) throws(RightVaultError) in
            if try directory.load(Self.fileName, into: key) { return }
            randombytes_buf(key.baseAddress!, key.count)
            try directory.store(Self.fileName, UnsafeBufferPointer(key), replace: false)
        }
    }
}
