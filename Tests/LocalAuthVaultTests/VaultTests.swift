// SPDX-License-Identifier: Apache-2.0
import CSodium
import LocalAuthCore
import Foundation
import LocalAuthVault
import LocalAuthTestSupport
import Testing

/// The ``Vault`` over a real AEAD (XChaCha20-Poly1305 from libsodium, a random key per sealer), so
/// what is sealed really is encrypted and bound to its label.
private struct TestSealer: Sealer {
    let key: [UInt8]

    init() {
        precondition(sodium_init() >= 0)
        var key = [UInt8](repeating: 0, count: Int(crypto_aead_xchacha20poly1305_ietf_KEYBYTES))
        randombytes_buf(&key, key.count)
        self.key = key
    }

    var protection: KeyProtection { .wrappingKey }

    func seal(_ plaintext: UnsafeBufferPointer<UInt8>, label: [UInt8]) throws(RightVaultError) -> [UInt8] {
        var nonce = [UInt8](repeating: 0, count: Int(crypto_aead_xchacha20poly1305_ietf_NPUBBYTES))
        randombytes_buf(&nonce, nonce.count)
        var sealed = [UInt8](repeating: 0, count: plaintext.count + Int(crypto_aead_xchacha20poly1305_ietf_ABYTES))
        var length: UInt64 = 0
        guard crypto_aead_xchacha20poly1305_ietf_encrypt(&sealed, &length, plaintext.baseAddress, UInt64(plaintext.count),
                                                        label, UInt64(label.count), nil, nonce, key) == 0 else {
            throw RightVaultError(.failed, "sealing failed")
        }
        return nonce + sealed
    }

    func unseal(_ sealed: [UInt8], label: [UInt8]) throws(RightVaultError) -> SecretBytes {
        let nonceCount = Int(crypto_aead_xchacha20poly1305_ietf_NPUBBYTES)
        let tagCount = Int(crypto_aead_xchacha20poly1305_ietf_ABYTES)
        guard sealed.count >= nonceCount + tagCount else { throw RightVaultError(.corrupt, "too short") }
        var opened = false
        let plaintext = SecretBytes(count: sealed.count - nonceCount - tagCount) { output in
            var length: UInt64 = 0
            opened = crypto_aead_xchacha20poly1305_ietf_decrypt(output.baseAddress, &length, nil, Array(sealed[nonceCount...]),
                                                                UInt64(sealed.count - nonceCount), label, UInt64(label.count),
                                                                Array(sealed.prefix(nonceCount)), key) == 0
        }
        guard opened else { throw RightVaultError(.corrupt, "does not open") }
        return plaintext
    }
}

@Suite("Vault", .timeLimit(.minutes(2)))
struct VaultTests {
    let vault = Vault(sealer: TestSealer())
    let label = Array("localauthd-right-v1\u{0}1000\u{0}/usr/bin/app\u{0}signing\u{0}42".utf8)
    let otherLabel = Array("localauthd-right-v1\u{0}1000\u{0}/usr/bin/app\u{0}signing\u{0}43".utf8)
    static let data = Array("data to sign".utf8)
    /// Where the vault seals a right's private key: the right's label, then "\0p256-private-key".
    var privateKeyLabel: [UInt8] { label + [0] + Array("p256-private-key".utf8) }

    @Test func theProtectionIsTheSealers() {
        #expect(vault.protection == .wrappingKey)
    }

    @Test func aSecretRoundTripsOnlyUnderItsLabel() throws {
        let sealed = try vault.seal(SecretBytes(bytes: Array("hunter2".utf8)), label: label)
        #expect(!sealed.contains(Array("hunter2".utf8)[0...]))
        #expect(try vault.unseal(sealed, label: label).revealed == Array("hunter2".utf8))
        #expect(throws: RightVaultError.self) { try vault.unseal(sealed, label: otherLabel) }
        #expect(try vault.unseal(vault.seal(SecretBytes(bytes: []), label: label), label: label).isEmpty)
    }

    @Test(arguments: [RightKeyAlgorithm.ecdsaSignatureMessageX962SHA256, .ecdsaSignatureDigestX962SHA256])
    func aNewKeySignsAndItsPublicKeyVerifies(algorithm: RightKeyAlgorithm) throws {
        let (sealedKey, publicKey) = try vault.makeKey(label: label)
        #expect(publicKey.count == 65 && publicKey[0] == 0x04)
        let data = algorithm == .ecdsaSignatureDigestX962SHA256 ? [UInt8](repeating: 0xab, count: 32) : Self.data
        let signature = try vault.sign(data, algorithm: algorithm, sealedPrivateKey: sealedKey, label: label)
        #expect(try vault.verify(data, signature: signature, algorithm: algorithm, publicKey: publicKey))
        var other = data
        other[0] ^= 1
        #expect(try !vault.verify(other, signature: signature, algorithm: algorithm, publicKey: publicKey))
        let (_, otherKey) = try vault.makeKey(label: label)
        #expect(try !vault.verify(data, signature: signature, algorithm: algorithm, publicKey: otherKey))
    }

    @Test func bothECIESVariantsDecryptWhatEitherEncrypts() throws {
        let (sealedKey, publicKey) = try vault.makeKey(label: label)
        let variants: [RightKeyAlgorithm] = [.eciesEncryptionStandardVariableIVX963SHA256AESGCM, .eciesEncryptionCofactorVariableIVX963SHA256AESGCM]
        for encryption in variants {
            let ciphertext = try vault.encrypt(Self.data, algorithm: encryption, publicKey: publicKey)
            for decryption in variants {
                let plaintext = try vault.decrypt(ciphertext, algorithm: decryption, sealedPrivateKey: sealedKey, label: label)
                #expect(plaintext.revealed == Self.data)
            }
        }
    }

    @Test func keyExchangeAgreesWithThePeer() throws {
        let (sealedKey, publicKey) = try vault.makeKey(label: label)
        let peer = try P256PrivateKey.generate()
        let expected = try peer.sharedSecret(with: P256PublicKey(x963: publicKey))
        for algorithm in [RightKeyAlgorithm.ecdhKeyExchangeStandard, .ecdhKeyExchangeCofactor] {
            let shared = try vault.exchangeKeys(peerPublicKey: peer.publicKey.x963, algorithm: algorithm, requestedSize: 0, sharedInfo: [],
                                                sealedPrivateKey: sealedKey, label: label)
            #expect(shared.revealed == expected.revealed)
        }
        let sharedInfo = Array("session 7".utf8)
        let derived = try expected.withBytes { secret in
            try X963KDF.sha256(secret: secret, sharedInfo: sharedInfo, size: 48).revealed
        }
        for algorithm in [RightKeyAlgorithm.ecdhKeyExchangeStandardX963SHA256, .ecdhKeyExchangeCofactorX963SHA256] {
            let shared = try vault.exchangeKeys(peerPublicKey: peer.publicKey.x963, algorithm: algorithm, requestedSize: 48,
                                                sharedInfo: sharedInfo, sealedPrivateKey: sealedKey, label: label)
            #expect(shared.revealed == derived)
        }
    }

    @Test(arguments: [0, -1, X963KDF.maximumSize + 1])
    func aRequestedSizeOutOfRangeIsRefused(size: Int) throws {
        let (sealedKey, _) = try vault.makeKey(label: label)
        let peer = try P256PrivateKey.generate().publicKey.x963
        do {
            _ = try vault.exchangeKeys(peerPublicKey: peer, algorithm: .ecdhKeyExchangeStandardX963SHA256, requestedSize: size,
                                       sharedInfo: [], sealedPrivateKey: sealedKey, label: label)
            Issue.record("size \(size) accepted")
        } catch {
            #expect(error.kind == .invalidInput)
            #expect(error.message.contains("RequestedSize"))
        }
    }

    @Test func aPrivateKeyOpensOnlyForItsOwnRight() throws {
        let (sealedKey, _) = try vault.makeKey(label: label)
        #expect(throws: RightVaultError.self) {
            try vault.sign(Self.data, algorithm: .ecdsaSignatureMessageX962SHA256, sealedPrivateKey: sealedKey, label: otherLabel)
        }
        // Nor as the right's secret, and the right's secret does not open as its key.
        #expect(throws: RightVaultError.self) { try vault.unseal(sealedKey, label: label) }
        let secret = try vault.seal(P256PrivateKey.generate().scalar(), label: label)
        #expect(throws: RightVaultError.self) {
            try vault.sign(Self.data, algorithm: .ecdsaSignatureMessageX962SHA256, sealedPrivateKey: secret, label: label)
        }
    }

    @Test func anAlgorithmThatDoesNotFitTheOperationIsRefused() throws {
        let (sealedKey, publicKey) = try vault.makeKey(label: label)
        let peer = try P256PrivateKey.generate().publicKey.x963
        let signing: Set<RightKeyAlgorithm> = [.ecdsaSignatureMessageX962SHA256, .ecdsaSignatureDigestX962SHA256]
        let encryption: Set<RightKeyAlgorithm> = [.eciesEncryptionStandardVariableIVX963SHA256AESGCM, .eciesEncryptionCofactorVariableIVX963SHA256AESGCM]
        let exchange = Set(RightKeyAlgorithm.allCases).subtracting(signing).subtracting(encryption)
        #expect(exchange.count == 4)
        func expectRefused(_ algorithm: RightKeyAlgorithm, _ operation: () throws(RightVaultError) -> Void) {
            do {
                try operation()
                Issue.record("\(algorithm.rawValue) accepted")
            } catch {
                #expect(error.kind == .invalidInput && error.message.contains(algorithm.rawValue), "\(error.message)")
            }
        }
        for algorithm in RightKeyAlgorithm.allCases {
            if !signing.contains(algorithm) {
                expectRefused(algorithm) { () throws(RightVaultError) in
                    _ = try vault.sign(Self.data, algorithm: algorithm, sealedPrivateKey: sealedKey, label: label)
                }
                expectRefused(algorithm) { () throws(RightVaultError) in
                    _ = try vault.verify(Self.data, signature: [0x30, 0x00], algorithm: algorithm, publicKey: publicKey)
                }
            }
            if !encryption.contains(algorithm) {
                expectRefused(algorithm) { () throws(RightVaultError) in
                    _ = try vault.encrypt(Self.data, algorithm: algorithm, publicKey: publicKey)
                }
                expectRefused(algorithm) { () throws(RightVaultError) in
                    _ = try vault.decrypt([UInt8](repeating: 4, count: 100), algorithm: algorithm, sealedPrivateKey: sealedKey, label: label)
                }
            }
            if !exchange.contains(algorithm) {
                expectRefused(algorithm) { () throws(RightVaultError) in
                    _ = try vault.exchangeKeys(peerPublicKey: peer, algorithm: algorithm, requestedSize: 32, sharedInfo: [],
                                               sealedPrivateKey: sealedKey, label: label)
                }
            }
        }
    }

    @Test func badPublicKeysAreRefusedByEveryOperation() throws {
        let (sealedKey, publicKey) = try vault.makeKey(label: label)
        var offCurve = publicKey
        offCurve[40] ^= 0x10
        for bad in [[], Array(publicKey.prefix(33)), offCurve] {
            #expect(throws: RightVaultError.self) { try vault.encrypt(Self.data, algorithm: .eciesEncryptionStandardVariableIVX963SHA256AESGCM, publicKey: bad) }
            #expect(throws: RightVaultError.self) {
                try vault.verify(Self.data, signature: [0x30, 0x00], algorithm: .ecdsaSignatureMessageX962SHA256, publicKey: bad)
            }
            #expect(throws: RightVaultError.self) {
                try vault.exchangeKeys(peerPublicKey: bad, algorithm: .ecdhKeyExchangeStandard, requestedSize: 0, sharedInfo: [],
                                       sealedPrivateKey: sealedKey, label: label)
            }
        }
    }

    /// The vault keeps no unsealed private key between operations: once a sign and a decrypt are
    /// done, the scalar's bytes (big-endian, as sealed and as in the DER made for libcrypto) are
    /// nowhere in the process. (libcrypto holds it as little-endian limbs, freed with BN_clear_free;
    /// the scan does not look for that form, and small freed buffers are partly overwritten by malloc.)
    @Test func theVaultKeepsNoUnsealedPrivateKeyBetweenOperations() throws {
        // 32 printable bytes: a valid scalar (below the group order), found by a masked scan.
        let scalar = MaskedSecret(prefix: "", length: 32)
        let sealedKey = try scalar.withPlainBytes { plain in try vault.seal(SecretBytes(bytes: plain), label: privateKeyLabel) }
        let publicKey = try scalar.withPlainBytes { plain in try P256PrivateKey(scalar: SecretBytes(bytes: plain)).publicKey }
        let signature = try vault.sign(Self.data, algorithm: .ecdsaSignatureMessageX962SHA256, sealedPrivateKey: sealedKey, label: label)
        #expect(try publicKey.isValidSignature(signature, message: Self.data))
        let ciphertext = try vault.encrypt(Self.data, algorithm: .eciesEncryptionStandardVariableIVX963SHA256AESGCM, publicKey: publicKey.x963)
        #expect(try vault.decrypt(ciphertext, algorithm: .eciesEncryptionStandardVariableIVX963SHA256AESGCM,
                                  sealedPrivateKey: sealedKey, label: label).revealed == Self.data)
        let hits = try MemoryScan.copies(of: [scalar], in: getpid())[0]
        #expect(hits.isEmpty, "\(hits.count) copies of the private scalar: \(hits)")
    }

    /// Random bytes wherever the caller or the record supplies bytes: an answer or a RightVaultError, never a crash.
    @Test func randomInputNeverCrashes() throws {
        let (sealedKey, publicKey) = try vault.makeKey(label: label)
        func random(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8.random(in: 0...255) } }
        for round in 0..<300 {
            let bytes = random(Int.random(in: 0...200))
            let point = [0x04] + random(64)
            _ = try? vault.unseal(bytes, label: label)
            _ = try? vault.sign(bytes, algorithm: .ecdsaSignatureMessageX962SHA256, sealedPrivateKey: bytes, label: label)
            _ = try? vault.sign(bytes, algorithm: .ecdsaSignatureDigestX962SHA256, sealedPrivateKey: sealedKey, label: label)
            _ = try? vault.decrypt(bytes, algorithm: .eciesEncryptionCofactorVariableIVX963SHA256AESGCM, sealedPrivateKey: sealedKey, label: label)
            _ = try? vault.decrypt(publicKey + bytes, algorithm: .eciesEncryptionStandardVariableIVX963SHA256AESGCM, sealedPrivateKey: sealedKey, label: label)
            _ = try? vault.exchangeKeys(peerPublicKey: round.isMultiple(of: 2) ? bytes : point, algorithm: .ecdhKeyExchangeCofactorX963SHA256,
                                        requestedSize: Int.random(in: -5...100), sharedInfo: bytes, sealedPrivateKey: sealedKey, label: label)
            _ = try? vault.encrypt(bytes, algorithm: .eciesEncryptionStandardVariableIVX963SHA256AESGCM, publicKey: round.isMultiple(of: 2) ? bytes : point)
            let valid = try vault.verify(bytes, signature: random(Int.random(in: 0...80)), algorithm: .ecdsaSignatureMessageX962SHA256, publicKey: publicKey)
            #expect(!valid)
        }
    }
}
