// SPDX-License-Identifier: Apache-2.0
import CVaultLibraries
import LocalAuthCore

/// libcrypto's per-thread error queue turned into ``RightVaultError``s. Every failed libcrypto call
/// ends with one of these, which also empties the queue so a later call does not inherit its reason.
enum OpenSSLError {
    /// `.failed`: libcrypto could not do `operation` for a reason the caller cannot fix.
    static func failed(_ operation: String) -> RightVaultError {
        RightVaultError(.failed, "\(operation) failed in libcrypto (\(drainedReason())).")
    }

    /// `.invalidInput` with `message`, the queue emptied (libcrypto refused the caller's bytes).
    static func invalidInput(_ message: String) -> RightVaultError {
        ERR_clear_error()
        return RightVaultError(.invalidInput, message)
    }

    /// Empties the queue after a refusal that is an answer, not an error (a signature that does not verify).
    static func clear() {
        ERR_clear_error()
    }

    /// libcrypto's text for the oldest queued error ("no reason given" when the queue is empty).
    private static func drainedReason() -> String {
        defer { ERR_clear_error() }
        let code = ERR_peek_error()
        guard code != 0 else { return "no reason given" }
        var text = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &text, text.count)
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
