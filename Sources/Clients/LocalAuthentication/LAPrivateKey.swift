// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthAPI
import LocalAuthDBus
import LocalAuthProxies
import Security

/// Apple's `LAPrivateKey`: the P-256 private key of an ``LAPersistedRight``. It never leaves
/// localauthd (sealed there with the machine's TPM or a root-only key); each operation runs in the
/// right's context and needs the right authorized (else `LAError.notInteractive`).
///
/// Algorithms: signing `ecdsaSignatureMessageX962SHA256` and `ecdsaSignatureDigestX962SHA256`;
/// decrypting the two `ecies…VariableIVX963SHA256AESGCM`; key exchange the four `ecdhKeyExchange…`.
/// Others, or data over 64 KiB: `errSecParam`.
open class LAPrivateKey: NSObject, @unchecked Sendable {
    private let identifier: String
    private let session: ContextSession
    private let publicKeyValue: LAPublicKey

    init(identifier: String, session: ContextSession, publicKey: LAPublicKey) {
        self.identifier = identifier
        self.session = session
        publicKeyValue = publicKey
    }

    /// The matching public key.
    open var publicKey: LAPublicKey { publicKeyValue }

    /// Whether `algorithm` signs with this key.
    open func canSign(using algorithm: SecKeyAlgorithm) -> Bool {
        KeyAlgorithms.signing.contains(algorithm)
    }

    /// Whether `algorithm` decrypts with this key.
    open func canDecrypt(using algorithm: SecKeyAlgorithm) -> Bool {
        KeyAlgorithms.encryption.contains(algorithm)
    }

    /// Whether `algorithm` exchanges keys with this key.
    open func canExchangeKeys(using algorithm: SecKeyAlgorithm) -> Bool {
        KeyAlgorithms.keyExchange.contains(algorithm)
    }

    /// The DER signature of `data` (a message, or a 32-byte digest for the digest algorithm).
    open func sign(_ data: Data, algorithm: SecKeyAlgorithm) async throws -> Data {
        try await bytes { sign(data, algorithm: algorithm, completion: $0) }
    }

    /// The completion form of ``sign(_:algorithm:)``.
    @preconcurrency
    open func sign(_ data: Data, algorithm: SecKeyAlgorithm, completion handler: @escaping @Sendable (Data?, (any Error)?) -> Void) {
        let (identifier, name) = (identifier, algorithm.rawValue as String)
        run({ try await $0.sign(identifier, algorithm: name, data: Array(data)) }, handler)
    }

    /// The plaintext of an ECIES ciphertext made for ``publicKey``.
    open func decrypt(_ data: Data, algorithm: SecKeyAlgorithm) async throws -> Data {
        try await bytes { decrypt(data, algorithm: algorithm, completion: $0) }
    }

    /// The completion form of ``decrypt(_:algorithm:)``.
    @preconcurrency
    open func decrypt(_ data: Data, algorithm: SecKeyAlgorithm, completion handler: @escaping @Sendable (Data?, (any Error)?) -> Void) {
        let (identifier, name) = (identifier, algorithm.rawValue as String)
        run({ try await $0.decrypt(identifier, algorithm: name, ciphertext: Array(data)) }, handler)
    }

    /// ECDH with `publicKey` (X9.63 bytes of a P-256 key): the shared secret, or with a KDF
    /// algorithm the derived bytes. `parameters`: `SecKeyKeyExchangeParameter.requestedSize`
    /// (required with a KDF) and `.sharedInfo`, keyed by their raw values.
    open func exchangeKeys(publicKey: Data, algorithm: SecKeyAlgorithm, parameters: [AnyHashable: Any]) async throws -> Data {
        try await bytes { exchangeKeys(publicKey: publicKey, algorithm: algorithm, parameters: parameters, completion: $0) }
    }

    /// The completion form of ``exchangeKeys(publicKey:algorithm:parameters:)``.
    @preconcurrency
    open func exchangeKeys(publicKey: Data, algorithm: SecKeyAlgorithm, parameters: [AnyHashable: Any],
                           completion handler: @escaping @Sendable (Data?, (any Error)?) -> Void) {
        var options: [String: DBusValue] = [:]
        let requestedSize = SecKeyKeyExchangeParameter.requestedSize.rawValue as String
        let sharedInfo = SecKeyKeyExchangeParameter.sharedInfo.rawValue as String
        for (key, value) in parameters {
            let problem: String?
            switch KeyAlgorithms.name(of: key) {
            case requestedSize?:
                if let size = (value as? Int) ?? (value as? NSNumber)?.intValue, let size = UInt32(exactly: size) {
                    options[LocalAuthExchangeKeysParameter.requestedSize.rawValue] = .uint32(size)
                    problem = nil
                } else {
                    problem = "requestedSize must be a positive Int."
                }
            case sharedInfo?:
                if let info = value as? Data {
                    options[LocalAuthExchangeKeysParameter.sharedInfo.rawValue] = .bytes(Array(info))
                    problem = nil
                } else {
                    problem = "sharedInfo must be Data."
                }
            default:
                problem = "Key exchange parameters are requestedSize and sharedInfo; \(key) is neither."
            }
            if let problem {
                return LAContext.replyQueue.async { handler(nil, RightError.status(errSecParam, problem)) }
            }
        }
        let (identifier, name, parameters) = (identifier, algorithm.rawValue as String, options)
        run({ try await $0.exchangeKeys(identifier, publicKey: Array(publicKey), algorithm: name, parameters: parameters) }, handler)
    }

    private func run(_ operation: @escaping @Sendable (ContextProxy) async throws -> [UInt8], _ handler: @escaping @Sendable (Data?, (any Error)?) -> Void) {
        session.send(.call({ try await operation($0) }) { result in
            let (data, error) = KeyOperation.data(result)
            LAContext.replyQueue.async { handler(data, error) }
        })
    }

    private func bytes(_ start: (@escaping @Sendable (Data?, (any Error)?) -> Void) -> Void) async throws -> Data {
        try await withCheckedThrowingContinuation { continuation in
            start { data, error in
                if let data { continuation.resume(returning: data) } else { continuation.resume(throwing: error ?? LAError(.systemCancel, message: nil)) }
            }
        }
    }
}
