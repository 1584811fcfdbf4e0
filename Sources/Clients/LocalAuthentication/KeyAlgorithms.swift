// SPDX-License-Identifier: Apache-2.0
import Foundation
import Security

/// The algorithms a right's P-256 key supports, by operation.
enum KeyAlgorithms {
    static let signing: Set<SecKeyAlgorithm> = [.ecdsaSignatureMessageX962SHA256, .ecdsaSignatureDigestX962SHA256]
    static let encryption: Set<SecKeyAlgorithm> = [.eciesEncryptionStandardVariableIVX963SHA256AESGCM, .eciesEncryptionCofactorVariableIVX963SHA256AESGCM]
    static let keyExchange: Set<SecKeyAlgorithm> = [
        .ecdhKeyExchangeStandard, .ecdhKeyExchangeCofactor, .ecdhKeyExchangeStandardX963SHA256, .ecdhKeyExchangeCofactorX963SHA256,
    ]

    /// A parameter dictionary's key as a string (`String` or `NSString`, as Apple code writes them).
    static func name(of key: AnyHashable) -> String? {
        if let name = key.base as? String { return name }
        return (key.base as? NSString).map { String($0) }
    }
}
