// SPDX-License-Identifier: Apache-2.0
import CSodium
import LocalAuthCore

/// The ``Sealer`` of the daemon: XChaCha20-Poly1305 (libsodium) with the machine's 32-byte
/// wrapping key, which lives in `sodium_malloc`'d memory (locked, guarded, read-only after it is
/// written, wiped when the sealer goes). Where the key comes from is ``protection``'s business:
/// ``TPMSealedKey`` or ``WrappingKeyFile`` (``SealingSetup`` chooses).
///
/// A blob is `version (1) ‖ nonce (24) ‖ ciphertext ‖ tag (16)`; the label is the authenticated data.
public final class WrappingKeySealer: Sealer, @unchecked Sendable {
    // @unchecked: `key` is written once in init, then only read (the pages are made read-only);
    // libsodium's AEAD calls are thread-safe over a shared read-only key.

    /// The size of the wrapping key in bytes.
    public static let keySize = Int(crypto_aead_xchacha20poly1305_ietf_KEYBYTES)
    /// The first byte of every blob; a blob with another version does not open.
    static let version: UInt8 = 1
    static let nonceSize = Int(crypto_aead_xchacha20poly1305_ietf_NPUBBYTES)
    static let tagSize = Int(crypto_aead_xchacha20poly1305_ietf_ABYTES)
    /// The largest plaintext sealed (a right's secret is at most 16 KiB; this leaves room).
    static let maximumPlaintext = 1 << 20

    public let protection: KeyProtection
    private let key: UnsafeMutableRawPointer

    /// A sealer whose key `initializer` writes into the locked buffer (``keySize`` bytes), so the
    /// key exists in no other memory of ours.
    public init(protection: KeyProtection,
                key initializer: (UnsafeMutableBufferPointer<UInt8>) throws(RightVaultError) -> Void) throws(RightVaultError) {
        guard sodium_init() >= 0 else { throw RightVaultError(.failed, "libsodium could not be initialized (no entropy source?).") }
        guard let key = sodium_malloc(Self.keySize) else {
            throw RightVaultError(.failed, "No locked memory for the wrapping key (RLIMIT_MEMLOCK too low?).")
        }
        let buffer = UnsafeMutableBufferPointer(start: key.assumingMemoryBound(to: UInt8.self), count: Self.keySize)
        do {
            try initializer(buffer)
        } catch {
            sodium_free(key)
            throw error
        }
        sodium_mprotect_readonly(key)
        self.key = key
        self.protection = protection
    }

    deinit {
        // sodium_free wipes the pages before unmapping them; they must be writable for that.
        sodium_mprotect_readwrite(key)
        sodium_free(key)
    }

    public func seal(_ plaintext: UnsafeBufferPointer<UInt8>, label: [UInt8]) throws(RightVaultError) -> [UInt8] {
        guard plaintext.count <= Self.maximumPlaintext else {
            throw RightVaultError(.invalidInput, "Cannot seal \(plaintext.count) bytes: at most \(Self.maximumPlaintext) are sealed at once.")
        }
        let header = 1 + Self.nonceSize
        var sealed = [UInt8](repeating: 0, count: header + plaintext.count + Self.tagSize)
        let status = sealed.withUnsafeMutableBufferPointer { out -> Int32 in
            out[0] = Self.version
            randombytes_buf(out.baseAddress! + 1, Self.nonceSize)
            var written: UInt64 = 0
            return label.withUnsafeBufferPointer { ad in
                crypto_aead_xchacha20poly1305_ietf_encrypt(
                    out.baseAddress! + header, &written, plaintext.baseAddress, UInt64(plaintext.count),
                    ad.baseAddress, UInt64(ad.count), nil, out.baseAddress! + 1, key.assumingMemoryBound(to: UInt8.self))
            }
        }
        guard status == 0 else { throw RightVaultError(.failed, "XChaCha20-Poly1305 sealing failed.") }
        return sealed
    }

    public func unseal(_ sealed: [UInt8], label: [UInt8]) throws(RightVaultError) -> SecretBytes {
        let header = 1 + Self.nonceSize
        guard sealed.count >= header + Self.tagSize else {
            throw RightVaultError(.corrupt, "A sealed blob of \(sealed.count) bytes is too short to be one (damaged record?).")
        }
        guard sealed[0] == Self.version else {
            throw RightVaultError(.corrupt, "A sealed blob has version \(sealed[0]); this daemon opens version \(Self.version) only.")
        }
        var status: Int32 = -1
        let plaintext = SecretBytes(count: sealed.count - header - Self.tagSize) { out in
            var written: UInt64 = 0
            status = sealed.withUnsafeBufferPointer { blob in
                label.withUnsafeBufferPointer { ad in
                    crypto_aead_xchacha20poly1305_ietf_decrypt(
                        out.baseAddress, &written, nil, blob.baseAddress! + header, UInt64(blob.count - header),
                        ad.baseAddress, UInt64(ad.count), blob.baseAddress! + 1, key.assumingMemoryBound(to: UInt8.self))
                }
            }
        }
        guard status == 0 else {
            throw RightVaultError(.corrupt, "A sealed blob does not open with this machine's wrapping key for its label (altered, moved to another right, or sealed elsewhere).")
        }
        return plaintext
    }
}
