// SPDX-License-Identifier: Apache-2.0
import CVaultLibraries
import LocalAuthCore

/// The ANSI X9.63 key derivation function with SHA-256 (ANSI X9.63-2001 §5.6.3, SEC 1 v2 §3.6.1),
/// the KDF of Apple's `kSecKeyAlgorithmECDHKeyExchange{Standard,Cofactor}X963SHA256` and of its ECIES
/// (Security framework's `ccansikdf_x963`):
///
///     K = SHA-256(Z ‖ 00 00 00 01 ‖ SharedInfo) ‖ SHA-256(Z ‖ 00 00 00 02 ‖ SharedInfo) ‖ …
///
/// cut to the requested size: the counter is 32 bits, big-endian, starting at 1; SharedInfo may be empty.
public enum X963KDF {
    /// The largest output this daemon derives (the standard allows far more; a right's key exchange
    /// never needs it, and the bound keeps memory bounded).
    public static let maximumSize = 65_536
    /// The most bytes one derivation hashes: each 32-byte block hashes the secret, the counter and
    /// all of SharedInfo again, so 64 KiB out of 64 KiB of SharedInfo would hash 128 MiB (0.14 s of
    /// the daemon's engine per call, which a user could repeat ten times a second).
    public static let maximumHashedBytes = 1 << 20

    /// `size` bytes (1 … ``maximumSize``) derived from the shared secret `secret` and `sharedInfo`.
    public static func sha256(secret: UnsafeBufferPointer<UInt8>, sharedInfo: [UInt8], size: Int) throws(RightVaultError) -> SecretBytes {
        guard (1...maximumSize).contains(size) else {
            throw RightVaultError(.invalidInput, "The requested key size must be 1 to \(maximumSize) bytes, not \(size).")
        }
        let work = (size + 31) / 32 * (secret.count + 4 + sharedInfo.count)
        guard work <= maximumHashedBytes else {
            throw RightVaultError(.invalidInput, "\(size) bytes derived with \(sharedInfo.count) bytes of SharedInfo would hash \(work) bytes, more than the \(maximumHashedBytes) allowed; ask for fewer bytes or pass a shorter SharedInfo.")
        }
        guard let context = EVP_MD_CTX_new() else { throw OpenSSLError.failed("Allocating a SHA-256 context") }
        defer { EVP_MD_CTX_free(context) }
        var failure: RightVaultError?
        let output = SecretBytes(count: size) { output in
            var block = [UInt8](repeating: 0, count: 32)
            defer { block.withUnsafeMutableBytes { explicit_bzero($0.baseAddress!, $0.count) } }
            var offset = 0
            var counter: UInt32 = 1
            while offset < size {
                let counterBytes = withUnsafeBytes(of: counter.bigEndian) { Array($0) }
                var length: UInt32 = 0
                let hashed = EVP_DigestInit_ex(context, EVP_sha256(), nil) == 1
                    && EVP_DigestUpdate(context, secret.baseAddress, secret.count) == 1
                    && EVP_DigestUpdate(context, counterBytes, counterBytes.count) == 1
                    && EVP_DigestUpdate(context, sharedInfo, sharedInfo.count) == 1
                    && EVP_DigestFinal_ex(context, &block, &length) == 1
                guard hashed, length == 32 else {
                    failure = OpenSSLError.failed("The X9.63 key derivation")
                    return
                }
                let take = min(32, size - offset)
                for index in 0..<take { output[offset + index] = block[index] }
                offset += take
                counter += 1
            }
        }
        if let failure { throw failure }
        return output
    }
}
