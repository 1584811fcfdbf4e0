// SPDX-License-Identifier: Apache-2.0
import CVaultLibraries
import LocalAuthCore

/// A P-256 public key, checked when made: a point on the curve (not the point at infinity, in the
/// group of order n), given and kept in the X9.63 uncompressed form Apple's
/// `SecKeyCopyExternalRepresentation` uses (65 bytes: 04 ‖ X ‖ Y, big-endian coordinates).
public struct P256PublicKey: Sendable, Equatable {
    /// The length of the X9.63 uncompressed form.
    public static let x963Count = 65

    /// The DER SubjectPublicKeyInfo header of every P-256 key (RFC 5480: id-ecPublicKey with the
    /// named curve prime256v1, a BIT STRING of 66 bytes); the X9.63 point follows it.
    static let subjectPublicKeyInfoHeader: [UInt8] = [
        0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01,
        0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00,
    ]

    /// The key as 04 ‖ X ‖ Y.
    public let x963: [UInt8]

    /// The key whose X9.63 uncompressed form is `x963`; `.invalidInput` for anything else (another
    /// length, a compressed or hybrid form, a point that is not on P-256).
    public init(x963: [UInt8]) throws(RightVaultError) {
        guard x963.count == Self.x963Count, x963[0] == 0x04 else {
            throw RightVaultError(.invalidInput, "A P-256 public key must be 65 bytes in X9.63 uncompressed form (04 ‖ X ‖ Y), not \(x963.count) bytes starting with \(x963.first.map { String($0, radix: 16) } ?? "nothing").")
        }
        let key = try Self.evpKey(x963: x963)
        EVP_PKEY_free(key)
        self.x963 = x963
    }

    /// A key known to be valid (libcrypto just produced it).
    init(checked x963: [UInt8]) {
        self.x963 = x963
    }

    /// The DER SubjectPublicKeyInfo (`openssl pkey -pubin -inform DER` reads it).
    public func derSubjectPublicKeyInfo() -> [UInt8] {
        Self.subjectPublicKeyInfoHeader + x963
    }

    /// The PEM "PUBLIC KEY" form of ``derSubjectPublicKeyInfo()`` (what `openssl pkey -pubout` writes).
    public func pem() -> String {
        // libcrypto's encoder, not Foundation's: importing Foundation here linked it (and
        // FoundationEssentials) into the daemon, 14 MB of code and ~6 MiB of idle RSS.
        let der = derSubjectPublicKeyInfo()
        var encoded = [UInt8](repeating: 0, count: (der.count + 2) / 3 * 4 + 1)
        let length = Int(EVP_EncodeBlock(&encoded, der, Int32(der.count)))
        let base64 = Array(String(decoding: encoded[..<length], as: UTF8.self))
        let lines = stride(from: 0, to: base64.count, by: 64).map { String(base64[$0..<min($0 + 64, base64.count)]) }
        return "-----BEGIN PUBLIC KEY-----\n" + lines.joined(separator: "\n") + "\n-----END PUBLIC KEY-----\n"
    }

    /// Whether `signature` (DER ECDSA-Sig-Value, X9.62) is this key's signature of SHA-256(`message`),
    /// as `SecKeyVerifySignature` with `ecdsaSignatureMessageX962SHA256`. A malformed signature is not valid.
    public func isValidSignature(_ signature: [UInt8], message: [UInt8]) throws(RightVaultError) -> Bool {
        try withEVPKey { key throws(RightVaultError) in
            guard let context = EVP_MD_CTX_new() else { throw OpenSSLError.failed("Allocating a verification context") }
            defer { EVP_MD_CTX_free(context) }
            guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, key) == 1 else {
                throw OpenSSLError.failed("Starting an ECDSA verification")
            }
            let result = EVP_DigestVerify(context, signature, signature.count, message, message.count)
            OpenSSLError.clear()
            return result == 1
        }
    }

    /// Whether `signature` is this key's signature of the 32-byte SHA-256 `digest`, as
    /// `ecdsaSignatureDigestX962SHA256`; `.invalidInput` when `digest` is not 32 bytes (Apple: errSecParam).
    public func isValidSignature(_ signature: [UInt8], digest: [UInt8]) throws(RightVaultError) -> Bool {
        guard digest.count == 32 else {
            throw RightVaultError(.invalidInput, "A SHA-256 digest is 32 bytes, not \(digest.count).")
        }
        return try withEVPKey { key throws(RightVaultError) in
            guard let context = EVP_PKEY_CTX_new_from_pkey(nil, key, nil) else {
                throw OpenSSLError.failed("Allocating a verification context")
            }
            defer { EVP_PKEY_CTX_free(context) }
            guard EVP_PKEY_verify_init(context) == 1 else { throw OpenSSLError.failed("Starting an ECDSA verification") }
            let result = EVP_PKEY_verify(context, signature, signature.count, digest, digest.count)
            OpenSSLError.clear()
            return result == 1
        }
    }

    /// Runs `body` with this key as a libcrypto EVP_PKEY, freed afterwards.
    func withEVPKey<Result>(_ body: (OpaquePointer) throws(RightVaultError) -> Result) throws(RightVaultError) -> Result {
        let key = try Self.evpKey(x963: x963)
        defer { EVP_PKEY_free(key) }
        return try body(key)
    }

    /// A new EVP_PKEY for `x963` (the caller frees it), after libcrypto's full public key check.
    private static func evpKey(x963: [UInt8]) throws(RightVaultError) -> OpaquePointer {
        let der = subjectPublicKeyInfoHeader + x963
        let parsed: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_PUBKEY(nil, &cursor, buffer.count)
        }
        guard let key = parsed else {
            throw OpenSSLError.invalidInput("The public key is not a point on the P-256 curve.")
        }
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, key, nil) else {
            EVP_PKEY_free(key)
            throw OpenSSLError.failed("Allocating a key check context")
        }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_public_check(context) == 1 else {
            EVP_PKEY_free(key)
            throw OpenSSLError.invalidInput("The public key is not a valid P-256 point.")
        }
        return key
    }
}
