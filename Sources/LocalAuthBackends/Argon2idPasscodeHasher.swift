import CSodium
import Dispatch
import LocalAuthCore

/// Stores passcodes as Argon2id hashes (libsodium `crypto_pwhash_str`, interactive limits) and
/// verifies them in constant time.
///
/// Hashing costs ~64 MiB and tens of milliseconds by design, so it runs on one private serial
/// queue: the engine's executor is never blocked, memory stays bounded however many requests
/// arrive, and guesses are rate-limited as a side effect.
public struct Argon2idPasscodeHasher: PasscodeHasher {
    private let queue = DispatchQueue(label: "org.localauth.argon2id")
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
            queue.async {
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

    public func verify(_ passcode: Passcode, against storedHash: String) async -> Bool {
        await withCheckedContinuation { continuation in
            queue.async {
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
