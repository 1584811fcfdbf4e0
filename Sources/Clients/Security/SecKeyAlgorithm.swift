// SPDX-License-Identifier: Apache-2.0
import Foundation

/// Apple's key algorithm names, with Apple's raw values (the wire names localauthd's key
/// operations take). The P-256 algorithms a right's key (`LAPrivateKey`, `LAPublicKey`) supports.
public struct SecKeyAlgorithm: RawRepresentable, Hashable, Sendable {
    /// Kept as a Swift string (an `NSString` is not `Sendable` on Linux).
    private let name: String
    public var rawValue: CFString { name as CFString }
    public init(rawValue: CFString) { name = rawValue as String }

    /// ECDSA over the SHA-256 digest of the message; a DER (X9.62) signature.
    public static let ecdsaSignatureMessageX962SHA256 = SecKeyAlgorithm(rawValue: kSecKeyAlgorithmECDSASignatureMessageX962SHA256)
    /// ECDSA over a 32-byte digest the caller computed; a DER (X9.62) signature.
    public static let ecdsaSignatureDigestX962SHA256 = SecKeyAlgorithm(rawValue: kSecKeyAlgorithmECDSASignatureDigestX962SHA256)
    /// ECIES: ECDH, X9.63 SHA-256 KDF, AES-GCM with a KDF-derived IV.
    public static let eciesEncryptionStandardVariableIVX963SHA256AESGCM = SecKeyAlgorithm(rawValue: kSecKeyAlgorithmECIESEncryptionStandardVariableIVX963SHA256AESGCM)
    /// The same with cofactor ECDH (identical on P-256).
    public static let eciesEncryptionCofactorVariableIVX963SHA256AESGCM = SecKeyAlgorithm(rawValue: kSecKeyAlgorithmECIESEncryptionCofactorVariableIVX963SHA256AESGCM)
    /// Raw ECDH: the shared point's x coordinate.
    public static let ecdhKeyExchangeStandard = SecKeyAlgorithm(rawValue: kSecKeyAlgorithmECDHKeyExchangeStandard)
    /// Raw cofactor ECDH.
    public static let ecdhKeyExchangeCofactor = SecKeyAlgorithm(rawValue: kSecKeyAlgorithmECDHKeyExchangeCofactor)
    /// ECDH then the X9.63 SHA-256 KDF (`SecKeyKeyExchangeParameter.requestedSize`, `.sharedInfo`).
    public static let ecdhKeyExchangeStandardX963SHA256 = SecKeyAlgorithm(rawValue: kSecKeyAlgorithmECDHKeyExchangeStandardX963SHA256)
    /// Cofactor ECDH then the X9.63 SHA-256 KDF.
    public static let ecdhKeyExchangeCofactorX963SHA256 = SecKeyAlgorithm(rawValue: kSecKeyAlgorithmECDHKeyExchangeCofactorX963SHA256)
}

/// ECDSA over the SHA-256 digest of the message, DER signature.
nonisolated(unsafe) public let kSecKeyAlgorithmECDSASignatureMessageX962SHA256: CFString = "algid:sign:ECDSA:message-X962:SHA256"
/// ECDSA over a 32-byte SHA-256 digest, DER signature.
nonisolated(unsafe) public let kSecKeyAlgorithmECDSASignatureDigestX962SHA256: CFString = "algid:sign:ECDSA:digest-X962:SHA256"
/// ECIES with ECDH, the X9.63 SHA-256 KDF and AES-GCM with a derived IV.
nonisolated(unsafe) public let kSecKeyAlgorithmECIESEncryptionStandardVariableIVX963SHA256AESGCM: CFString = "algid:encrypt:ECIES:ECDH:KDFX963:SHA256:AESGCM-KDFIV"
/// The same with cofactor ECDH.
nonisolated(unsafe) public let kSecKeyAlgorithmECIESEncryptionCofactorVariableIVX963SHA256AESGCM: CFString = "algid:encrypt:ECIES:ECDHC:KDFX963:SHA256:AESGCM-KDFIV"
/// Raw ECDH.
nonisolated(unsafe) public let kSecKeyAlgorithmECDHKeyExchangeStandard: CFString = "algid:keyexchange:ECDH"
/// Raw cofactor ECDH.
nonisolated(unsafe) public let kSecKeyAlgorithmECDHKeyExchangeCofactor: CFString = "algid:keyexchange:ECDHC"
/// ECDH, then the X9.63 SHA-256 KDF.
nonisolated(unsafe) public let kSecKeyAlgorithmECDHKeyExchangeStandardX963SHA256: CFString = "algid:keyexchange:ECDH:KDFX963:SHA256"
/// Cofactor ECDH, then the X9.63 SHA-256 KDF.
nonisolated(unsafe) public let kSecKeyAlgorithmECDHKeyExchangeCofactorX963SHA256: CFString = "algid:keyexchange:ECDHC:KDFX963:SHA256"
