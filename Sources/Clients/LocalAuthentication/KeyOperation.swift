// SPDX-License-Identifier: Apache-2.0
import Foundation

/// The shared part of the key and secret operations' replies.
enum KeyOperation {
    /// The `ay` a context call returned, or the mapped error.
    static func data(_ result: Result<[UInt8]?, ContextSession.CallFailure>) -> (Data?, (any Error)?) {
        switch result {
        case .success(let reply):
            guard let bytes = reply else {
                return (nil, LAError(.systemCancel, message: "localauthd answered without the expected bytes."))
            }
            defer { wipe(bytes) }
            return (Data(bytes), nil)
        case .failure(let failure):
            return (nil, RightError.from(failure))
        }
    }
}

/// Overwrites the storage of `bytes` (a secret's copy this module holds) in place, before it is
/// released: every array sharing that storage is this module's own temporary (no copy-on-write
/// copy is made, which `withUnsafeMutableBytes` would wipe instead of the original).
func wipe(_ bytes: [UInt8]) {
    bytes.withUnsafeBytes { buffer in
        guard let base = buffer.baseAddress else { return }
        explicit_bzero(UnsafeMutableRawPointer(mutating: base), buffer.count)
    }
}
