// SPDX-License-Identifier: Apache-2.0
/// How the secrets and private keys of rights are protected at rest, as Apple says whether a key
/// lives in the Secure Enclave.
public enum KeyProtection: String, Sendable, Equatable {
    /// Sealed with a wrapping key that only the machine's TPM 2.0 can unseal.
    case tpm2 = "tpm2"
    /// Sealed with a wrapping key in a file only root can read (no TPM on this machine).
    case wrappingKey = "wrapping-key"
}

/// The key algorithms of a right's P-256 key, named by the raw values of Apple's `SecKeyAlgorithm`
/// constants (the wire names of the Rights and Context methods).
public enum RightKeyAlgorithm: String, Sendable, CaseIterable {
    case ecdsaSignatureMessageX962SHA256 = "algid:sign:ECDSA:message-X962:SHA256"
    case ecdsaSignatureDigestX962SHA256 = "algid:sign:ECDSA:digest-X962:SHA256"
    case eciesEncryptionStandardVariableIVX963SHA256AESGCM = "algid:encrypt:ECIES:ECDH:KDFX963:SHA256:AESGCM-KDFIV"
    case eciesEncryptionCofactorVariableIVX963SHA256AESGCM = "algid:encrypt:ECIES:ECDHC:KDFX963:SHA256:AESGCM-KDFIV"
    case ecdhKeyExchangeStandard = "algid:keyexchange:ECDH"
    case ecdhKeyExchangeCofactor = "algid:keyexchange:ECDHC"
    case ecdhKeyExchangeStandardX963SHA256 = "algid:keyexchange:ECDH:KDFX963:SHA256"
    case ecdhKeyExchangeCofactorX963SHA256 = "algid:keyexchange:ECDHC:KDFX963:SHA256"
}

/// Why the vault could not do what it was asked; `message` is a sentence for the log and the caller.
public struct RightVaultError: Error, Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// Bad input from the caller (a malformed public key, ciphertext that does not decrypt,
        /// an algorithm that does not fit the operation): InvalidArgs, nothing changed.
        case invalidInput
        /// The sealing key is not available (the TPM that sealed it is gone or refuses): the
        /// rights exist but cannot be used on this boot.
        case sealingUnavailable
        /// A sealed blob does not open with this machine's key or was altered.
        case corrupt
        /// libcrypto or the TPM failed in a way the caller cannot fix.
        case failed
    }
    public let kind: Kind
    public let message: String
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }
}

/// The one way the core reaches keys and sealing (LocalAuthVault in the daemon, a fake in tests).
/// Every sealed blob is bound to `label` (the owner, application and identifier of its right) as
/// authenticated data, so a blob moved to another right does not open. Synchronous and fast: the
/// wrapping key is unsealed once at start; each call is one AES-GCM and at most one P-256 operation.
public protocol RightVault: Sendable {
    var protection: KeyProtection { get }
    /// Seals `plaintext` (a right's secret) for `label`.
    func seal(_ plaintext: SecretBytes, label: [UInt8]) throws(RightVaultError) -> [UInt8]
    /// The plaintext of a blob ``seal(_:label:)`` made for the same `label`.
    func unseal(_ sealed: [UInt8], label: [UInt8]) throws(RightVaultError) -> SecretBytes
    /// A new P-256 key: its private key sealed for `label`, and its public key in X9.63 form (65 bytes, 04‖X‖Y).
    func makeKey(label: [UInt8]) throws(RightVaultError) -> (sealedPrivateKey: [UInt8], publicKey: [UInt8])
    /// Signs `data` with the sealed private key (DER ECDSA signature, as SecKeyCreateSignature).
    func sign(_ data: [UInt8], algorithm: RightKeyAlgorithm, sealedPrivateKey: [UInt8], label: [UInt8]) throws(RightVaultError) -> [UInt8]
    /// Decrypts an ECIES ciphertext made for the key's public key (as SecKeyCreateDecryptedData).
    func decrypt(_ ciphertext: [UInt8], algorithm: RightKeyAlgorithm, sealedPrivateKey: [UInt8], label: [UInt8]) throws(RightVaultError) -> SecretBytes
    /// ECDH with `peerPublicKey` (X9.63), with the X9.63 KDF when the algorithm has one
    /// (`requestedSize` bytes, `sharedInfo`), as SecKeyCopyKeyExchangeResult.
    func exchangeKeys(peerPublicKey: [UInt8], algorithm: RightKeyAlgorithm, requestedSize: Int, sharedInfo: [UInt8],
                      sealedPrivateKey: [UInt8], label: [UInt8]) throws(RightVaultError) -> SecretBytes
    /// Encrypts for a public key (ECIES, as SecKeyCreateEncryptedData); needs no authorization.
    func encrypt(_ plaintext: [UInt8], algorithm: RightKeyAlgorithm, publicKey: [UInt8]) throws(RightVaultError) -> [UInt8]
    /// Whether `signature` is a valid signature of `data` by `publicKey` (as SecKeyVerifySignature).
    func verify(_ data: [UInt8], signature: [UInt8], algorithm: RightKeyAlgorithm, publicKey: [UInt8]) throws(RightVaultError) -> Bool
}
