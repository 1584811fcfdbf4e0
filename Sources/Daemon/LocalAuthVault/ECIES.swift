// SPDX-License-Identifier: Apache-2.0
import CVaultLibraries
import LocalAuthCore

/// ECIES exactly as Apple's Security framework does it for P-256 keys with
/// `kSecKeyAlgorithmECIESEncryptionStandardVariableIVX963SHA256AESGCM` and
/// `kSecKeyAlgorithmECIESEncryptionCofactorVariableIVX963SHA256AESGCM` (SecKeyCreateEncryptedData /
/// SecKeyCreateDecryptedData; the two are the same on P-256, whose cofactor is 1).
///
/// Ciphertext of an n-byte plaintext (n + 81 bytes):
///
///     offset 0       65 bytes  the ephemeral public key, X9.63 uncompressed (04 ‖ X ‖ Y)
///     offset 65      n bytes   AES-128-GCM ciphertext
///     offset 65 + n  16 bytes  the GCM tag
///
/// Keys: Z = ECDH(ephemeral private key, recipient's public key), the 32-byte X coordinate;
/// K = X9.63-KDF-SHA-256(Z, SharedInfo = the 65-byte ephemeral public key, 32 bytes) (see ``X963KDF``);
/// the AES-128 key is K[0..<16], the GCM IV is K[16..<32] (a 16-byte IV, which GCM hashes into its
/// counter block); no additional authenticated data. The AES key is 128 bits because the EC key is
/// 256 bits (Apple: 128 for keys ≤ 256 bits, 256 above); "VariableIV" is the KDF-derived IV (the
/// older non-VariableIV algorithms use an all-zero IV and are not offered).
///
/// Sources: Apple's Security framework, SecKeyAdaptors.m (SecKeyECIESCopyEncryptedData,
/// SecKeyECIESKeyExchangeKDFX963CopyResult, SecKeyECIESEncryptAESGCMCopyResult); reimplementations
/// that interoperate with it: jedda/ECIES (Go) and O2-Czech-Republic/BC-ECIES-for-iOS (Java).
public enum ECIES {
    /// The bytes a ciphertext adds to its plaintext: the ephemeral key and the tag.
    public static let overhead = P256PublicKey.x963Count + tagCount

    /// The largest plaintext handled (libcrypto counts in 32-bit lengths; the engine allows far less).
    public static let maximumPlaintextCount = 1 << 30

    private static let tagCount = 16
    private static let keyCount = 16
    private static let ivCount = 16

    /// `plaintext` encrypted for `recipient` with a new ephemeral key.
    public static func encrypt(_ plaintext: [UInt8], for recipient: P256PublicKey) throws(RightVaultError) -> [UInt8] {
        guard plaintext.count <= maximumPlaintextCount else {
            throw RightVaultError(.invalidInput, "ECIES encrypts at most \(maximumPlaintextCount) bytes, not \(plaintext.count).")
        }
        let ephemeral = try P256PrivateKey.generate()
        let keys = try derivedKeys(secret: ephemeral.sharedSecret(with: recipient), ephemeralKey: ephemeral.publicKey)
        guard let context = EVP_CIPHER_CTX_new() else { throw OpenSSLError.failed("Allocating an AES-GCM context") }
        defer { EVP_CIPHER_CTX_free(context) }
        var body = [UInt8](repeating: 0, count: plaintext.count)
        var tag = [UInt8](repeating: 0, count: tagCount)
        let sealed = keys.withBytes { keys in
            var length: Int32 = 0
            var final = [UInt8](repeating: 0, count: 16)
            return EVP_EncryptInit_ex(context, EVP_aes_128_gcm(), nil, nil, nil) == 1
                && EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_IVLEN, Int32(ivCount), nil) == 1
                && EVP_EncryptInit_ex(context, nil, nil, keys.baseAddress, keys.baseAddress! + keyCount) == 1
                && (plaintext.isEmpty || EVP_EncryptUpdate(context, &body, &length, plaintext, Int32(plaintext.count)) == 1)
                && EVP_EncryptFinal_ex(context, &final, &length) == 1
                && EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_GET_TAG, Int32(tagCount), &tag) == 1
        }
        guard sealed else { throw OpenSSLError.failed("AES-GCM encryption") }
        return ephemeral.publicKey.x963 + body + tag
    }

    /// The plaintext of `ciphertext`, made for `key`'s public key; `.invalidInput` when it is too
    /// short, its ephemeral key is not a P-256 point, or it does not authenticate (altered, or
    /// made for another key).
    public static func decrypt(_ ciphertext: [UInt8], with key: borrowing P256PrivateKey) throws(RightVaultError) -> SecretBytes {
        guard ciphertext.count <= maximumPlaintextCount + overhead else {
            throw RightVaultError(.invalidInput, "An ECIES ciphertext is at most \(maximumPlaintextCount + overhead) bytes, not \(ciphertext.count).")
        }
        guard ciphertext.count >= overhead else {
            throw RightVaultError(.invalidInput, "An ECIES ciphertext is at least \(overhead) bytes (ephemeral key and tag), not \(ciphertext.count).")
        }
        let ephemeralKey: P256PublicKey
        do {
            ephemeralKey = try P256PublicKey(x963: Array(ciphertext[0..<P256PublicKey.x963Count]))
        } catch {
            throw RightVaultError(.invalidInput, "The ciphertext's ephemeral public key is not a P-256 point: it was not made by ECIES encryption or was altered.")
        }
        let keys = try derivedKeys(secret: key.sharedSecret(with: ephemeralKey), ephemeralKey: ephemeralKey)
        guard let context = EVP_CIPHER_CTX_new() else { throw OpenSSLError.failed("Allocating an AES-GCM context") }
        defer { EVP_CIPHER_CTX_free(context) }
        let bodyRange = P256PublicKey.x963Count..<(ciphertext.count - tagCount)
        var tag = Array(ciphertext[bodyRange.upperBound...])
        var opened = false
        let plaintext = SecretBytes(count: bodyRange.count) { output in
            opened = keys.withBytes { keys in
                ciphertext.withUnsafeBufferPointer { input in
                    var length: Int32 = 0
                    var final = [UInt8](repeating: 0, count: 16)
                    return EVP_DecryptInit_ex(context, EVP_aes_128_gcm(), nil, nil, nil) == 1
                        && EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_IVLEN, Int32(ivCount), nil) == 1
                        && EVP_DecryptInit_ex(context, nil, nil, keys.baseAddress, keys.baseAddress! + keyCount) == 1
                        && (bodyRange.isEmpty || EVP_DecryptUpdate(context, output.baseAddress, &length,
                                                                   input.baseAddress! + bodyRange.lowerBound, Int32(bodyRange.count)) == 1)
                        && EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_TAG, Int32(tagCount), &tag) == 1
                        && EVP_DecryptFinal_ex(context, &final, &length) == 1
                }
            }
        }
        guard opened else {
            throw OpenSSLError.invalidInput("The ciphertext does not decrypt with this key: it was made for another key or altered.")
        }
        return plaintext
    }

    /// The AES-128 key ‖ GCM IV from the ECDH secret.
    private static func derivedKeys(secret: SecretBytes, ephemeralKey: P256PublicKey) throws(RightVaultError) -> SecretBytes {
        var result: Result<SecretBytes, RightVaultError> = .failure(RightVaultError(.failed, "The ECIES key derivation did not run."))
        secret.withBytes { secret in
            result = Result { () throws(RightVaultError) in
                try X963KDF.sha256(secret: secret, sharedInfo: ephemeralKey.x963, size: keyCount + ivCount)
            }
        }
        return try result.get()
    }
}
