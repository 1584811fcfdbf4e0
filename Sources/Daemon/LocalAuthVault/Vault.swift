// SPDX-License-Identifier: Apache-2.0
import LocalAuthCore

/// The daemon's ``RightVault``: rights' P-256 keys and secrets through libcrypto
/// (``P256PrivateKey``, ``P256PublicKey``, ``ECIES``, ``X963KDF``), sealed at rest by a ``Sealer``
/// (the TPM 2.0 or the root-only wrapping key). A private key is sealed as its 32-byte scalar and
/// unsealed only for the one operation that needs it.
///
/// A right's private key and its secret share the right's label, so the vault seals keys under
/// the label followed by "\0p256-private-key": a secret blob put in the key's place (or the other
/// way round) does not open.
public struct Vault: RightVault {
    private let sealer: any Sealer

    public init(sealer: any Sealer) {
        self.sealer = sealer
    }

    public var protection: KeyProtection { sealer.protection }

    public func seal(_ plaintext: SecretBytes, label: [UInt8]) throws(RightVaultError) -> [UInt8] {
        try plaintext.withBytes { bytes in
            Result { () throws(RightVaultError) in try sealer.seal(bytes, label: label) }
        }.get()
    }

    public func unseal(_ sealed: [UInt8], label: [UInt8]) throws(RightVaultError) -> SecretBytes {
        try sealer.unseal(sealed, label: label)
    }

    public func makeKey(label: [UInt8]) throws(RightVaultError) -> (sealedPrivateKey: [UInt8], publicKey: [UInt8]) {
        let key = try P256PrivateKey.generate()
        let sealed = try seal(key.scalar(), label: Self.privateKeyLabel(label))
        return (sealed, key.publicKey.x963)
    }

    public func sign(_ data: [UInt8], algorithm: RightKeyAlgorithm, sealedPrivateKey: [UInt8], label: [UInt8]) throws(RightVaultError) -> [UInt8] {
        let key = try privateKey(sealedPrivateKey, label: label)
        switch algorithm {
        case .ecdsaSignatureMessageX962SHA256:
            return try key.signature(message: data)
        case .ecdsaSignatureDigestX962SHA256:
            return try key.signature(digest: data)
        default:
            throw Self.unfit(algorithm, for: "signing")
        }
    }

    public func decrypt(_ ciphertext: [UInt8], algorithm: RightKeyAlgorithm, sealedPrivateKey: [UInt8], label: [UInt8]) throws(RightVaultError) -> SecretBytes {
        guard Self.encryption.contains(algorithm) else { throw Self.unfit(algorithm, for: "decryption") }
        let key = try privateKey(sealedPrivateKey, label: label)
        return try ECIES.decrypt(ciphertext, with: key)
    }

    public func exchangeKeys(peerPublicKey: [UInt8], algorithm: RightKeyAlgorithm, requestedSize: Int, sharedInfo: [UInt8],
                             sealedPrivateKey: [UInt8], label: [UInt8]) throws(RightVaultError) -> SecretBytes {
        let derived: Bool
        switch algorithm {
        case .ecdhKeyExchangeStandard, .ecdhKeyExchangeCofactor:
            derived = false
        case .ecdhKeyExchangeStandardX963SHA256, .ecdhKeyExchangeCofactorX963SHA256:
            derived = true
            guard (1...X963KDF.maximumSize).contains(requestedSize) else {
                throw RightVaultError(.invalidInput, "\(algorithm.rawValue) needs RequestedSize between 1 and \(X963KDF.maximumSize) bytes, not \(requestedSize).")
            }
        default:
            throw Self.unfit(algorithm, for: "key exchange")
        }
        let peer = try P256PublicKey(x963: peerPublicKey)
        let key = try privateKey(sealedPrivateKey, label: label)
        let secret = try key.sharedSecret(with: peer)
        guard derived else { return secret }
        return try secret.withBytes { secret in
            Result { () throws(RightVaultError) in
                try X963KDF.sha256(secret: secret, sharedInfo: sharedInfo, size: requestedSize)
            }
        }.get()
    }

    public func encrypt(_ plaintext: [UInt8], algorithm: RightKeyAlgorithm, publicKey: [UInt8]) throws(RightVaultError) -> [UInt8] {
        guard Self.encryption.contains(algorithm) else { throw Self.unfit(algorithm, for: "encryption") }
        return try ECIES.encrypt(plaintext, for: P256PublicKey(x963: publicKey))
    }

    public func verify(_ data: [UInt8], signature: [UInt8], algorithm: RightKeyAlgorithm, publicKey: [UInt8]) throws(RightVaultError) -> Bool {
        switch algorithm {
        case .ecdsaSignatureMessageX962SHA256:
            return try P256PublicKey(x963: publicKey).isValidSignature(signature, message: data)
        case .ecdsaSignatureDigestX962SHA256:
            return try P256PublicKey(x963: publicKey).isValidSignature(signature, digest: data)
        default:
            throw Self.unfit(algorithm, for: "signature verification")
        }
    }

    private static let encryption: Set<RightKeyAlgorithm> = [
        .eciesEncryptionStandardVariableIVX963SHA256AESGCM, .eciesEncryptionCofactorVariableIVX963SHA256AESGCM,
    ]

    /// The label a right's private key is sealed under (its right's label, kept apart from its secret's).
    private static func privateKeyLabel(_ label: [UInt8]) -> [UInt8] {
        label + [0] + Array("p256-private-key".utf8)
    }

    /// The unsealed private key; a blob that opens but holds no valid scalar is `.corrupt`.
    private func privateKey(_ sealed: [UInt8], label: [UInt8]) throws(RightVaultError) -> P256PrivateKey {
        let scalar = try unseal(sealed, label: Self.privateKeyLabel(label))
        do {
            return try P256PrivateKey(scalar: scalar)
        } catch where error.kind == .invalidInput {
            throw RightVaultError(.corrupt, "The sealed private key does not hold a P-256 key.")
        }
    }

    private static func unfit(_ algorithm: RightKeyAlgorithm, for operation: String) -> RightVaultError {
        RightVaultError(.invalidInput, "The algorithm \(algorithm.rawValue) cannot be used for \(operation).")
    }
}
