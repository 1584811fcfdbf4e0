// SPDX-License-Identifier: Apache-2.0
import CSodium
import Dispatch
import LocalAuthCore

/// Stores passcodes as Argon2id hashes (libsodium `crypto_pwhash_str`, interactive limits) and
/// verifies them in constant time.
///
/// Each call costs ~64 MiB and tens of milliseconds by design, so it runs on a serial dispatch
/// queue of its own, which libdispatch serves with an overcommitting thread: no caller's executor
/// is blocked, and a call never waits for a free thread of the width-limited pool. Calls run in
/// parallel; the engine's ``PasscodeWorkScheduler`` bounds how many run at once (memory) and in
/// which order (fairness).
public struct Argon2idPasscodeHasher: PasscodeHasher {
    private let opsLimit: UInt64
    private let memLimit: Int

    /// - Parameters: libsodium's interactive limits unless given (tests may lower them).
    public init(opsLimit: UInt64 = UInt64(crypto_pwhash_OPSLIMIT_INTERACTIVE),
                memLimit: Int = Int(crypto_pwhash_MEMLIMIT_INTERACTIVE)) throws(LocalAuthError) {
        try Sodium.initialize()
        self.opsLimit = opsLimit
        self.memLimit = memLimit
    }

    public func hash(_ passcode: Passcode) async throws(LocalAuthError) -> String {
        let (opsLimit, memLimit) = (self.opsLimit, self.memLimit)
        let hash: String? = await withCheckedContinuation { continuation in
            Self.newQueue().async {
                var output = [CChar](repeating: 0, count: Int(crypto_pwhash_STRBYTES))
                let status = passcode.withBytes { bytes in
                    bytes.withMemoryRebound(to: CChar.self) { chars in
                        crypto_pwhash_str_alg(&output, chars.baseAddress!, UInt64(chars.count), opsLimit, memLimit, crypto_pwhash_ALG_ARGON2ID13)
                    }
                }
                let text = output.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
                continuation.resume(returning: status == 0 ? String(decoding: text, as: UTF8.self) : nil)
            }
        }
        guard let hash else {
            throw LocalAuthError(.serviceFailure, "The passcode could not be hashed (out of memory?); nothing was changed.")
        }
        return hash
    }

    /// A serial queue, so libdispatch gives it an overcommitting thread (a concurrent queue's work
    /// would wait for, and then occupy, one of the pool's few threads).
    private static func newQueue() -> DispatchQueue {
        DispatchQueue(label: "org.localauth.argon2id")
    }

    public func verify(_ passcode: Passcode, against storedHash: String) async -> Bool {
        await withCheckedContinuation { continuation in
            Self.newQueue().async {
                let status = passcode.withBytes { bytes in
                    bytes.withMemoryRebound(to: CChar.self) { chars in
                        crypto_pwhash_str_verify(storedHash, chars.baseAddress!, UInt64(chars.count))
                    }
                }
                continuation.resume(returning: status == 0)
            }
        }
    }
}
