// SPDX-License-Identifier: Apache-2.0
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A fresh directory for one test's files: made by mkdtemp under the temporary directory (0700,
/// a name no one else holds), removed with everything in it by ``remove()`` or when the last
/// reference goes.
public final class ScratchDirectory: Sendable {
    /// The directory's absolute path.
    public let path: String

    /// Makes the directory, named `prefix` and six random characters.
    public init(prefix: String = "localauth-test") throws {
        let parent = NSTemporaryDirectory().hasSuffix("/") ? String(NSTemporaryDirectory().dropLast()) : NSTemporaryDirectory()
        var template = Array("\(parent)/\(prefix)-XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
        path = String(cString: made)
    }

    deinit { remove() }

    /// The directory as a file URL.
    public var url: URL { URL(fileURLWithPath: path, isDirectory: true) }

    /// The path of `name` in the directory.
    public func path(_ name: String) -> String { path + "/" + name }

    /// Writes `bytes` to `name` in the directory (created or replaced).
    public func write(_ bytes: [UInt8], to name: String) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path(name)))
    }

    /// The bytes of `name` in the directory.
    public func read(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: path(name))))
    }

    /// Removes the directory and everything in it (nothing when it is gone already).
    public func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}
