// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthCore
import LocalAuthVault
import Testing

/// P-256 keys, ECDSA and ECDH through libcrypto, checked against the `openssl` command line.
@Suite("P-256 keys, ECDSA and ECDH", .timeLimit(.minutes(2)))
struct P256KeyTests {
    static let data = Array("The quick brown fox jumps over the lazy dog".utf8)

    @Test func aKeyRoundTripsThroughItsScalar() throws {
        let key = try P256PrivateKey.generate()
        let scalar = try key.scalar()
        #expect(scalar.count == 32)
        let again = try P256PrivateKey(scalar: scalar)
        #expect(again.publicKey == key.publicKey)
        #expect(key.publicKey.x963.count == 65 && key.publicKey.x963[0] == 0x04)
        let signature = try again.signature(message: Self.data)
        #expect(try key.publicKey.isValidSignature(signature, message: Self.data))
        #expect(try P256PrivateKey.generate().publicKey != key.publicKey)
    }

    @Test func thePEMIsTheSubjectPublicKeyInfoOpenSSLReads() async throws {
        let tools = try ReferenceTools()
        let key = try P256PrivateKey.generate()
        let pem = key.publicKey.pem()
        #expect(pem.hasPrefix("-----BEGIN PUBLIC KEY-----\n") && pem.hasSuffix("\n-----END PUBLIC KEY-----\n"))
        try tools.write(pem, to: "ours.pem")
        try await tools.opensslSucceeding(["pkey", "-pubin", "-in", tools.path("ours.pem"), "-outform", "DER", "-out", tools.path("ours.der")])
        #expect(try tools.read("ours.der") == key.publicKey.derSubjectPublicKeyInfo())
        let text = try await tools.opensslSucceeding(["pkey", "-pubin", "-in", tools.path("ours.pem"), "-noout", "-text"])
        #expect(text.contains("prime256v1") || text.contains("P-256"), "\(text)")
    }

    @Test func ourMessageSignatureVerifiesWithOpenSSLDgst() async throws {
        let tools = try ReferenceTools()
        let key = try P256PrivateKey.generate()
        try tools.write(key.publicKey.pem(), to: "pub.pem")
        try tools.write(Self.data, to: "data")
        try tools.write(key.signature(message: Self.data), to: "sig")
        let verified = try await tools.openssl(["dgst", "-sha256", "-verify", tools.path("pub.pem"), "-signature", tools.path("sig"), tools.path("data")])
        #expect(verified.status == 0 && verified.output.contains("Verified OK"), "\(verified.output)")
        try tools.write(Self.data + [0x21], to: "other")
        let refused = try await tools.openssl(["dgst", "-sha256", "-verify", tools.path("pub.pem"), "-signature", tools.path("sig"), tools.path("other")])
        #expect(refused.status != 0, "\(refused.output)")
    }

    @Test func ourDigestSignatureVerifiesWithOpenSSLPkeyutl() async throws {
        let tools = try ReferenceTools()
        let key = try P256PrivateKey.generate()
        try tools.write(key.publicKey.pem(), to: "pub.pem")
        try tools.write(Self.data, to: "data")
        try await tools.opensslSucceeding(["dgst", "-sha256", "-binary", "-out", tools.path("digest"), tools.path("data")])
        let digest = try tools.read("digest")
        let signature = try key.signature(digest: digest)
        try tools.write(signature, to: "sig")
        let verified = try await tools.openssl(["pkeyutl", "-verify", "-pubin", "-inkey", tools.path("pub.pem"),
                                                "-in", tools.path("digest"), "-sigfile", tools.path("sig")])
        #expect(verified.status == 0 && verified.output.contains("Signature Verified Successfully"), "\(verified.output)")
        // The digest form signs what the message form signs: SHA-256 of the data.
        #expect(try key.publicKey.isValidSignature(signature, message: Self.data))
        #expect(try key.publicKey.isValidSignature(key.signature(message: Self.data), digest: digest))
    }

    @Test func openSSLSignaturesVerifyWithOurs() async throws {
        let tools = try ReferenceTools()
        let (spki, x963) = try await tools.opensslKey("key.pem")
        let publicKey = try P256PublicKey(x963: x963)
        #expect(publicKey.derSubjectPublicKeyInfo() == spki)
        try tools.write(Self.data, to: "data")
        try await tools.opensslSucceeding(["dgst", "-sha256", "-sign", tools.path("key.pem"), "-out", tools.path("sig"), tools.path("data")])
        let signature = try tools.read("sig")
        #expect(try publicKey.isValidSignature(signature, message: Self.data))
        #expect(try !publicKey.isValidSignature(signature, message: Self.data + [0]))
        var altered = signature
        altered[altered.count - 1] ^= 0x01
        #expect(try !publicKey.isValidSignature(altered, message: Self.data))

        try await tools.opensslSucceeding(["dgst", "-sha256", "-binary", "-out", tools.path("digest"), tools.path("data")])
        try await tools.opensslSucceeding(["pkeyutl", "-sign", "-inkey", tools.path("key.pem"), "-in", tools.path("digest"), "-out", tools.path("dsig")])
        let digest = try tools.read("digest")
        #expect(try publicKey.isValidSignature(tools.read("dsig"), digest: digest))
        #expect(try !publicKey.isValidSignature(tools.read("dsig"), digest: [UInt8](repeating: 0, count: 32)))
    }

    @Test func ecdhAgreesWithOpenSSLPkeyutlDerive() async throws {
        let tools = try ReferenceTools()
        let (_, theirs) = try await tools.opensslKey("theirs.pem")
        let ours = try P256PrivateKey.generate()
        try tools.write(ours.publicKey.pem(), to: "ours.pem")
        try await tools.opensslSucceeding(["pkeyutl", "-derive", "-inkey", tools.path("theirs.pem"), "-peerkey", tools.path("ours.pem"),
                                           "-out", tools.path("shared")])
        let expected = try tools.read("shared")
        #expect(expected.count == 32)
        #expect(try ours.sharedSecret(with: P256PublicKey(x963: theirs)).revealed == expected)
    }

    /// Well-formed-looking keys that are not points of P-256.
    static let badPublicKeys: [(String, [UInt8])] = {
        let valid = try! P256PrivateKey.generate().publicKey.x963
        var offCurve = valid
        offCurve[64] ^= 0x01
        var compressedPrefix = valid
        compressedPrefix[0] = 0x02
        var hybridPrefix = valid
        hybridPrefix[0] = 0x06
        let fieldPrime = [UInt8](hexString: "ffffffff00000001000000000000000000000000ffffffffffffffffffffffff")
        return [
            ("empty", []),
            ("the point at infinity", [0x00]),
            ("64 bytes", Array(valid.dropFirst())),
            ("66 bytes", valid + [0]),
            ("compressed (33 bytes)", [0x02] + Array(valid[1...32])),
            ("prefix 02 on 65 bytes", compressedPrefix),
            ("hybrid prefix 06", hybridPrefix),
            ("Y changed: off the curve", offCurve),
            ("all zero coordinates", [0x04] + [UInt8](repeating: 0, count: 64)),
            ("X equal to the field prime", [0x04] + fieldPrime + Array(valid[33...])),
            ("all ones", [0x04] + [UInt8](repeating: 0xff, count: 64)),
        ]
    }()

    @Test(arguments: badPublicKeys.indices)
    func aBadPublicKeyIsRefused(index: Int) throws {
        let (name, bytes) = Self.badPublicKeys[index]
        do {
            _ = try P256PublicKey(x963: bytes)
            Issue.record("accepted \(name)")
        } catch {
            #expect(error.kind == .invalidInput, "\(name)")
        }
    }

    static let groupOrder = [UInt8](hexString: "ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551")

    @Test(arguments: [
        ("zero", [UInt8](repeating: 0, count: 32)),
        ("the group order n", groupOrder),
        ("n + 1", Array(groupOrder.dropLast()) + [0x52]),
        ("all ones", [UInt8](repeating: 0xff, count: 32)),
        ("31 bytes", [UInt8](repeating: 0x01, count: 31)),
        ("33 bytes", [UInt8](repeating: 0x01, count: 33)),
        ("empty", []),
    ])
    func aBadScalarIsRefused(name: String, scalar: [UInt8]) {
        do {
            _ = try P256PrivateKey(scalar: SecretBytes(bytes: scalar))
            Issue.record("accepted \(name)")
        } catch {
            #expect(error.kind == .invalidInput, "\(name)")
        }
    }

    @Test func theLargestAndSmallestScalarsAreKeys() throws {
        let largest = try P256PrivateKey(scalar: SecretBytes(bytes: Array(Self.groupOrder.dropLast()) + [0x50]))
        let one = try P256PrivateKey(scalar: SecretBytes(bytes: [UInt8](repeating: 0, count: 31) + [1]))
        // 1·G is the generator; (n − 1)·G is its negation: same X.
        let generatorX = "6b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296"
        #expect(Array(one.publicKey.x963[1...32]).hexString == generatorX)
        #expect(Array(largest.publicKey.x963[1...32]).hexString == generatorX)
        #expect(largest.publicKey.x963[33...] != one.publicKey.x963[33...])
    }

    @Test(arguments: [0, 31, 33, 64])
    func aDigestThatIsNotThirtyTwoBytesIsRefused(count: Int) throws {
        let key = try P256PrivateKey.generate()
        let digest = [UInt8](repeating: 7, count: count)
        #expect(throws: RightVaultError(.invalidInput, "A SHA-256 digest is 32 bytes, not \(count).")) { try key.signature(digest: digest) }
        #expect(throws: RightVaultError(.invalidInput, "A SHA-256 digest is 32 bytes, not \(count).")) {
            try key.publicKey.isValidSignature([0x30, 0x00], digest: digest)
        }
    }

    @Test func aMalformedSignatureIsNotValid() throws {
        let key = try P256PrivateKey.generate()
        let digest = [UInt8](repeating: 1, count: 32)
        for signature in [[], [0x30], [0x30, 0x00], [UInt8](repeating: 0xff, count: 72), [UInt8](repeating: 0, count: 64),
                          (0..<70).map { _ in UInt8.random(in: 0...255) }] {
            #expect(try !key.publicKey.isValidSignature(signature, message: Self.data))
            #expect(try !key.publicKey.isValidSignature(signature, digest: digest))
        }
    }
}
