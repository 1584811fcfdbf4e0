// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthCore
import LocalAuthVault
import Testing

/// ECIES as Apple's kSecKeyAlgorithmECIESEncryption{Standard,Cofactor}VariableIVX963SHA256AESGCM,
/// checked against a ciphertext Apple's Security framework made and against an independent
/// implementation of the same layout in Python's `cryptography` package.
@Suite("ECIES (Apple's VariableIV X9.63 SHA-256 AES-GCM)", .timeLimit(.minutes(2)))
struct ECIESTests {
    /// The independent side: `encrypt PUBLIC_X963 PLAINTEXT` and `decrypt SCALAR CIPHERTEXT`, all hex.
    static let reference = """
    import sys
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM
    from cryptography.hazmat.primitives.kdf.x963kdf import X963KDF
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
    def keys(shared, ephemeral):
        out = X963KDF(algorithm=hashes.SHA256(), length=32, sharedinfo=ephemeral).derive(shared)
        return AESGCM(out[:16]), out[16:]
    command, key, data = sys.argv[1], bytes.fromhex(sys.argv[2]), bytes.fromhex(sys.argv[3])
    if command == "encrypt":
        recipient = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), key)
        ephemeral = ec.generate_private_key(ec.SECP256R1())
        ephemeral_public = ephemeral.public_key().public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)
        aes, iv = keys(ephemeral.exchange(ec.ECDH(), recipient), ephemeral_public)
        print((ephemeral_public + aes.encrypt(iv, data, None)).hex())
    else:
        private = ec.derive_private_key(int.from_bytes(key, "big"), ec.SECP256R1())
        ephemeral = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), data[:65])
        aes, iv = keys(private.exchange(ec.ECDH(), ephemeral), data[:65])
        print(aes.decrypt(iv, data[65:], None).hex())
    """

    /// A ciphertext made on an Apple device with SecKeyCreateEncryptedData and
    /// `.eciesEncryptionCofactorVariableIVX963SHA256AESGCM` for a P-256 key, and that key (SEC 1 DER),
    /// published in jedda/ECIES (Go, MIT licence), ecies_test.go, TestExternalDecryptSuccess,
    /// case "P256-SHA256-VIV"; the plaintext is the case's name.
    static let appleKey = "MHcCAQEEIHGhxnpu3kG/nW5ozDZJ+TTFQvL6MynCcQWD6jHV4p0UoAoGCCqGSM49AwEHoUQDQgAEzgFYw3Rqc72IIYHV7JH6M245n/nLnxyre1A7sc5nOt31ZyfJQLXGs4dY0cggne28ueXHID5lKz1JNChY49NHYg=="
    static let appleCiphertext = "BI6sBCGyf916GQSV3DHOvmFxOmzbV9pq08wcOdKaepP2/Qtepj9M71dYkzXf6OqIstDyyVIxfnAMfUpxZzoCHDbalYRzzwhqHwg7K6RNl1F29PVdLNtJH498yJSfloW/"

    @Test func aCiphertextMadeByApplesSecurityFrameworkDecrypts() throws {
        let der = [UInt8](Data(base64Encoded: Self.appleKey)!)
        #expect(der.prefix(7) == [0x30, 0x77, 0x02, 0x01, 0x01, 0x04, 0x20])  // SEC 1 ECPrivateKey, 32-byte scalar next
        let key = try P256PrivateKey(scalar: SecretBytes(bytes: der[7..<39]))
        #expect(key.publicKey.x963 == Array(der.suffix(65)))
        let ciphertext = [UInt8](Data(base64Encoded: Self.appleCiphertext)!)
        #expect(try ECIES.decrypt(ciphertext, with: key).revealed == Array("P256-SHA256-VIV".utf8))
    }

    @Test(arguments: [0, 1, 15, 16, 17, 1000, 65_536])
    func aCiphertextIsTheEphemeralKeyTheBodyAndTheTagAndRoundTrips(count: Int) throws {
        let key = try P256PrivateKey.generate()
        let plaintext = (0..<count).map { _ in UInt8.random(in: 0...255) }
        let ciphertext = try ECIES.encrypt(plaintext, for: key.publicKey)
        #expect(ciphertext.count == count + 65 + 16)
        #expect(try P256PublicKey(x963: Array(ciphertext.prefix(65))) != key.publicKey)
        #expect(try ECIES.decrypt(ciphertext, with: key).revealed == plaintext)
        #expect(try ECIES.encrypt(plaintext, for: key.publicKey) != ciphertext, "a new ephemeral key every time")
    }

    @Test(arguments: [0, 5, 300])
    func aCiphertextMadeByTheReferenceDecryptsWithOurs(count: Int) async throws {
        let tools = try ReferenceTools()
        let key = try P256PrivateKey.generate()
        let plaintext = (0..<count).map { _ in UInt8.random(in: 0...255) }
        let ciphertext = try await tools.python(Self.reference, ["encrypt", key.publicKey.x963.hexString, plaintext.hexString])
        #expect(try ECIES.decrypt([UInt8](hexString: ciphertext), with: key).revealed == plaintext)
    }

    @Test(arguments: [0, 5, 300])
    func ourCiphertextDecryptsWithTheReference(count: Int) async throws {
        let tools = try ReferenceTools()
        let key = try P256PrivateKey.generate()
        let plaintext = (0..<count).map { _ in UInt8.random(in: 0...255) }
        let ciphertext = try ECIES.encrypt(plaintext, for: key.publicKey)
        let decrypted = try await tools.python(Self.reference, ["decrypt", key.scalar().revealed.hexString, ciphertext.hexString])
        #expect(decrypted == plaintext.hexString)
    }

    @Test func anAlteredCiphertextDoesNotDecrypt() throws {
        let key = try P256PrivateKey.generate()
        let ciphertext = try ECIES.encrypt(Array("a secret".utf8), for: key.publicKey)
        // Every byte: the ephemeral key (then not a point, or another point), the body, the tag.
        for index in ciphertext.indices {
            var altered = ciphertext
            altered[index] ^= 0x40
            #expect(throws: RightVaultError.self, "byte \(index)") { try ECIES.decrypt(altered, with: key) }
        }
        for altered in [Array(ciphertext.dropLast()), ciphertext + [0], Array(ciphertext.dropFirst()), Array(ciphertext.prefix(80)), []] {
            do {
                _ = try ECIES.decrypt(altered, with: key)
                Issue.record("\(altered.count) bytes decrypted")
            } catch {
                #expect(error.kind == .invalidInput)
            }
        }
    }

    @Test func aCiphertextForAnotherKeyDoesNotDecrypt() throws {
        let ciphertext = try ECIES.encrypt(Array("a secret".utf8), for: P256PrivateKey.generate().publicKey)
        #expect(throws: RightVaultError(.invalidInput, "The ciphertext does not decrypt with this key: it was made for another key or altered.")) {
            try ECIES.decrypt(ciphertext, with: P256PrivateKey.generate())
        }
    }
}
