// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthDBus
import Security

/// Apple's `LAPublicKey`: the public half of an ``LAPersistedRight``'s key. Needs no
/// authorization: exporting is local, encrypting and verifying are `Rights.Encrypt` and
/// `Rights.Verify`.
open class LAPublicKey: NSObject, @unchecked Sendable {
    /// X9.63: 04 ‖ X ‖ Y, 65 bytes.
    private let bytes: [UInt8]
    private let rights: RightsService

    init(bytes: [UInt8], bus: Result<DBusBus, LAError>) {
        self.bytes = bytes
        rights = RightsService(bus: bus)
    }

    /// The key in X9.63 form (65 bytes: 04 ‖ X ‖ Y), as `SecKeyCopyExternalRepresentation`.
    open func exportBytes() async throws -> Data {
        Data(bytes)
    }

    /// The completion form of ``exportBytes()``.
    @preconcurrency
    open func exportBytes(completion handler: @escaping @Sendable (Data?, (any Error)?) -> Void) {
        let data = Data(bytes)
        LAContext.replyQueue.async { handler(data, nil) }
    }

    /// Whether `algorithm` encrypts for this key.
    open func canEncrypt(using algorithm: SecKeyAlgorithm) -> Bool {
        KeyAlgorithms.encryption.contains(algorithm)
    }

    /// Whether `algorithm` verifies with this key.
    open func canVerify(using algorithm: SecKeyAlgorithm) -> Bool {
        KeyAlgorithms.signing.contains(algorithm)
    }

    /// `data` encrypted for this key (ECIES, as `SecKeyCreateEncryptedData`): only the right's
    /// private key, authorized, decrypts it.
    open func encrypt(_ data: Data, algorithm: SecKeyAlgorithm) async throws -> Data {
        try await rights.encrypt(data, algorithm: algorithm.rawValue as String, publicKey: bytes)
    }

    /// The completion form of ``encrypt(_:algorithm:)``.
    @preconcurrency
    open func encrypt(_ data: Data, algorithm: SecKeyAlgorithm, completion handler: @escaping @Sendable (Data?, (any Error)?) -> Void) {
        Task(executorPreference: ClientExecutor.shared) {
            do {
                let ciphertext = try await self.encrypt(data, algorithm: algorithm)
                LAContext.replyQueue.async { handler(ciphertext, nil) }
            } catch {
                LAContext.replyQueue.async { handler(nil, error) }
            }
        }
    }

    /// Returns when `signature` is this key's valid signature of `signedData`; throws
    /// `errSecVerifyFailed` when it is not.
    open func verify(_ signedData: Data, signature: Data, algorithm: SecKeyAlgorithm) async throws {
        guard try await rights.verify(signedData, signature: signature, algorithm: algorithm.rawValue as String, publicKey: bytes) else {
            throw RightError.status(errSecVerifyFailed, "The signature does not verify with this public key.")
        }
    }

    /// The completion form of ``verify(_:signature:algorithm:)``: `handler` gets nil when valid.
    @preconcurrency
    open func verify(_ signedData: Data, signature: Data, algorithm: SecKeyAlgorithm, completion handler: @escaping @Sendable ((any Error)?) -> Void) {
        Task(executorPreference: ClientExecutor.shared) {
            do {
                try await self.verify(signedData, signature: signature, algorithm: algorithm)
                LAContext.replyQueue.async { handler(nil) }
            } catch {
                LAContext.replyQueue.async { handler(error) }
            }
        }
    }
}
