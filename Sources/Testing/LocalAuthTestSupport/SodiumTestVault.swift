// SPDX-License-Identifier: Apache-2.0
import CSodium
import LocalAuthCore

/// A ``RightVault`` for engine tests, on libsodium: real sealing (XChaCha20-Poly1305 with the
/// label as authenticated data, under a random key per vault) and real keys, though not P-256:
/// Ed25519 signatures, X25519 sealed boxes for encryption and X25519 for key exchange. A public key
/// is 0x04 ‖ the Ed25519 public key ‖ 32 zero bytes, so it has the 65 bytes of an X9.63 P-256 key.
/// The engine's rules (who may use which key when) do not depend on the curve; LocalAuthVault's
/// own tests cover P-256.
public struct SodiumTestVault: RightVault {
    public let protection: KeyProtection
    private let key: [UInt8]

    public init(protection: KeyProtection = .wrappingKey) {
        precondition(sodium_init() >= 0)
        self.protection = protection
        var key = [UInt8](repeating: 0, count: Int(crypto_aead_xchacha20poly1305_ietf_KEYBYTES))
        crypto_aead_xchacha20poly1305_ietf_keygen(&key)
        self.key = key
    }

    public func seal(_ plaintext: SecretBytes, label: [UInt8]) throws(RightVaultError) -> [UInt8] {
        plaintext.withBytes { seal(Array($0), label: label) }
    }

    public func unseal(_ sealed: [UInt8], label: [UInt8]) throws(RightVaultError) -> SecretBytes {
        let nonceLength = Int(crypto_aead_xchacha20poly1305_ietf_NPUBBYTES)
        let tagLength = Int(crypto_aead_xchacha20poly1305_ietf_ABYTES)
        guard sealed.count >= nonceLength + tagLength else { throw RightVaultError(.corrupt, "The sealed blob is too short.") }
        let nonce = Array(sealed[..<nonceLength])
        let ciphertext = Array(sealed[nonceLength...])
        var opened = false
        let plaintext = SecretBytes(count: ciphertext.count - tagLength) { buffer in
            var length: UInt64 = 0
            opened = crypto_aead_xchacha20poly1305_ietf_decrypt(buffer.baseAddress, &length, nil, ciphertext, UInt64(ciphertext.count),
                                                                label, UInt64(label.count), nonce, key) == 0
        }
        guard opened else { throw RightVaultError(.corrupt, "The sealed blob does not open with this label.") }
        return plaintext
    }

    public func makeKey(label: [UInt8]) throws(RightVaultError) -> (sealedPrivateKey: [UInt8], publicKey: [UInt8]) {
        var publicKey = [UInt8](repeating: 0, count: Int(crypto_sign_PUBLICKEYBYTES))
        var secretKey = [UInt8](repeating: 0, count: Int(crypto_sign_SECRETKEYBYTES))
        crypto_sign_keypair(&publicKey, &secretKey)
        defer { sodium_memzero(&secretKey, secretKey.count) }
        return (seal(secretKey, label: label), [0x04] + publicKey + [UInt8](repeating: 0, count: 32))
    }

    public func sign(_ data: [UInt8], algorithm: RightKeyAlgorithm, sealedPrivateKey: [UInt8], label: [UInt8]) throws(RightVaultError) -> [UInt8] {
        switch algorithm {
        case .ecdsaSignatureMessageX962SHA256: break
        case .ecdsaSignatureDigestX962SHA256:
            guard data.count == 32 else { throw RightVaultError(.invalidInput, "The digest must be 32 bytes.") }
        default: throw RightVaultError(.invalidInput, "\(algorithm.rawValue) is not a signature algorithm.")
        }
        let secretKey = try unseal(sealedPrivateKey, label: label)
        var signature = [UInt8](repeating: 0, count: Int(crypto_sign_BYTES))
        secretKey.withBytes { _ = crypto_sign_detached(&signature, nil, data, UInt64(data.count), $0.baseAddress!) }
        return signature
    }

    public func verify(_ data: [UInt8], signature: [UInt8], algorithm: RightKeyAlgorithm, publicKey: [UInt8]) throws(RightVaultError) -> Bool {
        guard algorithm == .ecdsaSignatureMessageX962SHA256 || algorithm == .ecdsaSignatureDigestX962SHA256 else {
            throw RightVaultError(.invalidInput, "\(algorithm.rawValue) is not a signature algorithm.")
        }
        let key = try Self.edPublicKey(publicKey)
        guard signature.count == Int(crypto_sign_BYTES) else { return false }
        return crypto_sign_verify_detached(signature, data, UInt64(data.count), key) == 0
    }

    public func encrypt(_ plaintext: [UInt8], algorithm: RightKeyAlgorithm, publicKey: [UInt8]) throws(RightVaultError) -> [UInt8] {
        try Self.requireEncryption(algorithm)
        let boxKey = try Self.curvePublicKey(publicKey)
        var ciphertext = [UInt8](repeating: 0, count: plaintext.count + Int((crypto_box_PUBLICKEYBYTES + crypto_box_MACBYTES)))
        _ = crypto_box_seal(&ciphertext, plaintext, UInt64(plaintext.count), boxKey)
        return ciphertext
    }

    public func decrypt(_ ciphertext: [UInt8], algorithm: RightKeyAlgorithm, sealedPrivateKey: [UInt8], label: [UInt8]) throws(RightVaultError) -> SecretBytes {
        try Self.requireEncryption(algorithm)
        guard ciphertext.count >= Int((crypto_box_PUBLICKEYBYTES + crypto_box_MACBYTES)) else { throw RightVaultError(.invalidInput, "The ciphertext is too short.") }
        let secretKey = try unseal(sealedPrivateKey, label: label)
        var (curveSecret, curvePublic) = try Self.curveKeys(secretKey)
        defer { sodium_memzero(&curveSecret, curveSecret.count) }
        var opened = false
        let plaintext = SecretBytes(count: ciphertext.count - Int((crypto_box_PUBLICKEYBYTES + crypto_box_MACBYTES))) { buffer in
            opened = crypto_box_seal_open(buffer.baseAddress!, ciphertext, UInt64(ciphertext.count), curvePublic, curveSecret) == 0
        }
        guard opened else { throw RightVaultError(.invalidInput, "The ciphertext was not made for this key or was altered.") }
        return plaintext
    }

    public func exchangeKeys(peerPublicKey: [UInt8], algorithm: RightKeyAlgorithm, requestedSize: Int, sharedInfo: [UInt8],
                             sealedPrivateKey: [UInt8], label: [UInt8]) throws(RightVaultError) -> SecretBytes {
        let derived: Bool
        switch algorithm {
        case .ecdhKeyExchangeStandard, .ecdhKeyExchangeCofactor: derived = false
        case .ecdhKeyExchangeStandardX963SHA256, .ecdhKeyExchangeCofactorX963SHA256: derived = true
        default: throw RightVaultError(.invalidInput, "\(algorithm.rawValue) is not a key exchange algorithm.")
        }
        if derived, !(Int(crypto_generichash_BYTES_MIN)...Int(crypto_generichash_BYTES_MAX)).contains(requestedSize) {
            throw RightVaultError(.invalidInput, "This test vault derives 16 to 64 bytes.")
        }
        let peer = try Self.curvePublicKey(peerPublicKey)
        let secretKey = try unseal(sealedPrivateKey, label: label)
        var (curveSecret, _) = try Self.curveKeys(secretKey)
        defer { sodium_memzero(&curveSecret, curveSecret.count) }
        var shared = [UInt8](repeating: 0, count: Int(crypto_scalarmult_BYTES))
        defer { sodium_memzero(&shared, shared.count) }
        guard crypto_scalarmult(&shared, curveSecret, peer) == 0 else { throw RightVaultError(.invalidInput, "The peer's public key is weak.") }
        guard derived else { return SecretBytes(bytes: shared) }
        return SecretBytes(count: requestedSize) { buffer in
            _ = crypto_generichash(buffer.baseAddress!, requestedSize, shared + sharedInfo, UInt64(shared.count + sharedInfo.count), nil, 0)
        }
    }

    private func seal(_ plaintext: [UInt8], label: [UInt8]) -> [UInt8] {
        var nonce = [UInt8](repeating: 0, count: Int(crypto_aead_xchacha20poly1305_ietf_NPUBBYTES))
        randombytes_buf(&nonce, nonce.count)
        var ciphertext = [UInt8](repeating: 0, count: plaintext.count + Int(crypto_aead_xchacha20poly1305_ietf_ABYTES))
        var length: UInt64 = 0
        _ = crypto_aead_xchacha20poly1305_ietf_encrypt(&ciphertext, &length, plaintext, UInt64(plaintext.count),
                                                       label, UInt64(label.count), nil, nonce, key)
        return nonce + ciphertext
    }

    private static func requireEncryption(_ algorithm: RightKeyAlgorithm) throws(RightVaultError) {
        guard algorithm == .eciesEncryptionStandardVariableIVX963SHA256AESGCM || algorithm == .eciesEncryptionCofactorVariableIVX963SHA256AESGCM else {
            throw RightVaultError(.invalidInput, "\(algorithm.rawValue) is not an encryption algorithm.")
        }
    }

    private static func edPublicKey(_ publicKey: [UInt8]) throws(RightVaultError) -> [UInt8] {
        guard publicKey.count == 65, publicKey[0] == 0x04, publicKey[33...].allSatisfy({ $0 == 0 }) else {
            throw RightVaultError(.invalidInput, "Not a public key of this vault.")
        }
        return Array(publicKey[1..<33])
    }

    private static func curvePublicKey(_ publicKey: [UInt8]) throws(RightVaultError) -> [UInt8] {
        var curve = [UInt8](repeating: 0, count: Int(crypto_scalarmult_BYTES))
        guard crypto_sign_ed25519_pk_to_curve25519(&curve, try edPublicKey(publicKey)) == 0 else {
            throw RightVaultError(.invalidInput, "Not a public key of this vault.")
        }
        return curve
    }

    private static func curveKeys(_ secretKey: SecretBytes) throws(RightVaultError) -> (secret: [UInt8], public: [UInt8]) {
        var secret = [UInt8](repeating: 0, count: Int(crypto_scalarmult_BYTES))
        var publicKey = [UInt8](repeating: 0, count: Int(crypto_scalarmult_BYTES))
        secretKey.withBytes { bytes in
            _ = crypto_sign_ed25519_sk_to_curve25519(&secret, bytes.baseAddress!)
            _ = crypto_sign_ed25519_sk_to_pk(&publicKey, bytes.baseAddress!)
        }
        var curvePublic = [UInt8](repeating: 0, count: Int(crypto_scalarmult_BYTES))
        guard crypto_sign_ed25519_pk_to_curve25519(&curvePublic, publicKey) == 0 else { throw RightVaultError(.corrupt, "The private key is damaged.") }
        return (secret, curvePublic)
    }
}
