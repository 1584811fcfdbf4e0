// SPDX-License-Identifier: Apache-2.0
import CVaultLibraries
import LocalAuthCore

/// A P-256 private key held by libcrypto (EVP_PKEY, OpenSSL 3 provider APIs; no EC_KEY), freed and
/// wiped when it goes away. Noncopyable: one owner, one free. At rest it is its 32-byte private
/// scalar, sealed (``scalar()`` / ``init(scalar:)``).
public struct P256PrivateKey: ~Copyable {
    /// The length of the private scalar, big-endian.
    public static let scalarCount = 32

    /// The order n of the P-256 group, big-endian: a private scalar is 1 … n − 1.
    private static let order: [UInt8] = [
        0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
        0xbc, 0xe6, 0xfa, 0xad, 0xa7, 0x17, 0x9e, 0x84, 0xf3, 0xb9, 0xca, 0xc2, 0xfc, 0x63, 0x25, 0x51,
    ]

    /// The SEC 1 ECPrivateKey DER around a scalar (version 1, the 32-byte key, [0] prime256v1);
    /// libcrypto computes the public key from the scalar when it reads it.
    private static let ecPrivateKeyHeader: [UInt8] = [0x30, 0x31, 0x02, 0x01, 0x01, 0x04, 0x20]
    private static let ecPrivateKeyTrailer: [UInt8] = [0xa0, 0x0a, 0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07]

    private let key: OpaquePointer
    /// The matching public key.
    public let publicKey: P256PublicKey

    /// A new random key from libcrypto's DRBG.
    public static func generate() throws(RightVaultError) -> P256PrivateKey {
        guard let context = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else {
            throw OpenSSLError.failed("Allocating a key generation context")
        }
        defer { EVP_PKEY_CTX_free(context) }
        var generated: OpaquePointer?
        guard EVP_PKEY_keygen_init(context) == 1, EVP_PKEY_CTX_set_group_name(context, "P-256") == 1,
              EVP_PKEY_generate(context, &generated) == 1, let key = generated else {
            throw OpenSSLError.failed("Generating a P-256 key")
        }
        return try P256PrivateKey(owning: key)
    }

    /// The key whose private scalar is `scalar` (32 bytes, big-endian, 1 … n − 1); `.invalidInput`
    /// otherwise. The DER made around it is wiped.
    public init(scalar: SecretBytes) throws(RightVaultError) {
        guard scalar.count == Self.scalarCount else {
            throw RightVaultError(.invalidInput, "A P-256 private key is a 32-byte scalar, not \(scalar.count) bytes.")
        }
        let inRange = scalar.withBytes { bytes in
            bytes.contains { $0 != 0 } && bytes.lexicographicallyPrecedes(Self.order)
        }
        guard inRange else {
            throw RightVaultError(.invalidInput, "The P-256 private scalar is not between 1 and the group order − 1.")
        }
        let der = SecretBytes(count: Self.ecPrivateKeyHeader.count + Self.scalarCount + Self.ecPrivateKeyTrailer.count) { der in
            let layout = Self.ecPrivateKeyHeader + [UInt8](repeating: 0, count: Self.scalarCount) + Self.ecPrivateKeyTrailer
            for index in layout.indices { der[index] = layout[index] }
            scalar.withBytes { bytes in
                for index in 0..<Self.scalarCount { der[Self.ecPrivateKeyHeader.count + index] = bytes[index] }
            }
        }
        let parsed: OpaquePointer? = der.withBytes { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_PrivateKey(EVP_PKEY_EC, nil, &cursor, buffer.count)
        }
        guard let key = parsed else { throw OpenSSLError.invalidInput("The P-256 private scalar does not make a key.") }
        try self.init(owning: key)
    }

    /// Takes ownership of `key`, which must be a P-256 key pair (freed here when it is not).
    private init(owning key: OpaquePointer) throws(RightVaultError) {
        var point = [UInt8](repeating: 0, count: P256PublicKey.x963Count)
        var length = 0
        guard EVP_PKEY_get_octet_string_param(key, OSSL_PKEY_PARAM_PUB_KEY, &point, point.count, &length) == 1,
              length == P256PublicKey.x963Count, point[0] == 0x04 else {
            EVP_PKEY_free(key)
            throw OpenSSLError.failed("Reading a P-256 public key")
        }
        self.key = key
        self.publicKey = P256PublicKey(checked: point)
    }

    deinit {
        EVP_PKEY_free(key)
    }

    /// The private scalar (32 bytes, big-endian), for sealing.
    public func scalar() throws(RightVaultError) -> SecretBytes {
        var number: OpaquePointer?
        guard EVP_PKEY_get_bn_param(key, OSSL_PKEY_PARAM_PRIV_KEY, &number) == 1, let number else {
            throw OpenSSLError.failed("Reading a P-256 private key")
        }
        defer { BN_clear_free(number) }
        var written: Int32 = 0
        let scalar = SecretBytes(count: Self.scalarCount) { buffer in
            written = BN_bn2binpad(number, buffer.baseAddress, Int32(Self.scalarCount))
        }
        guard written == Int32(Self.scalarCount) else { throw OpenSSLError.failed("Writing a P-256 private key") }
        return scalar
    }

    /// The DER ECDSA signature (X9.62 ECDSA-Sig-Value) of SHA-256(`message`), as
    /// `SecKeyCreateSignature` with `ecdsaSignatureMessageX962SHA256`.
    public func signature(message: [UInt8]) throws(RightVaultError) -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { throw OpenSSLError.failed("Allocating a signing context") }
        defer { EVP_MD_CTX_free(context) }
        var signature = [UInt8](repeating: 0, count: 72)
        var length = signature.count
        guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, key) == 1,
              EVP_DigestSign(context, &signature, &length, message, message.count) == 1 else {
            throw OpenSSLError.failed("ECDSA signing")
        }
        return Array(signature.prefix(length))
    }

    /// The DER ECDSA signature of the 32-byte SHA-256 `digest`, as `ecdsaSignatureDigestX962SHA256`;
    /// `.invalidInput` when `digest` is not 32 bytes (Apple: "bad digest size").
    public func signature(digest: [UInt8]) throws(RightVaultError) -> [UInt8] {
        guard digest.count == 32 else {
            throw RightVaultError(.invalidInput, "A SHA-256 digest is 32 bytes, not \(digest.count).")
        }
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, key, nil) else {
            throw OpenSSLError.failed("Allocating a signing context")
        }
        defer { EVP_PKEY_CTX_free(context) }
        var signature = [UInt8](repeating: 0, count: 72)
        var length = signature.count
        guard EVP_PKEY_sign_init(context) == 1,
              EVP_PKEY_sign(context, &signature, &length, digest, digest.count) == 1 else {
            throw OpenSSLError.failed("ECDSA signing")
        }
        return Array(signature.prefix(length))
    }

    /// The raw ECDH shared secret with `peer`: the X coordinate of d·Q, 32 bytes, as
    /// `ecdhKeyExchangeStandard` (and `ecdhKeyExchangeCofactor`: P-256's cofactor is 1, so both agree).
    public func sharedSecret(with peer: P256PublicKey) throws(RightVaultError) -> SecretBytes {
        try peer.withEVPKey { peerKey throws(RightVaultError) in
            guard let context = EVP_PKEY_CTX_new_from_pkey(nil, key, nil) else {
                throw OpenSSLError.failed("Allocating a key agreement context")
            }
            defer { EVP_PKEY_CTX_free(context) }
            var length = 0
            guard EVP_PKEY_derive_init(context) == 1, EVP_PKEY_derive_set_peer_ex(context, peerKey, 1) == 1,
                  EVP_PKEY_derive(context, nil, &length) == 1, length == 32 else {
                throw OpenSSLError.failed("ECDH key agreement")
            }
            var derived = false
            let secret = SecretBytes(count: 32) { buffer in
                derived = EVP_PKEY_derive(context, buffer.baseAddress, &length) == 1 && length == 32
            }
            guard derived else { throw OpenSSLError.failed("ECDH key agreement") }
            return secret
        }
    }
}
