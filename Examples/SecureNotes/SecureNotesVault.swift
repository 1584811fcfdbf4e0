// SPDX-License-Identifier: Apache-2.0
// iOS-style code, unchanged from an Apple platform: an API token and a note-sealing key kept
// behind Face ID / Touch ID with LARight, LARightStore, LAPersistedRight, LASecret, LAPrivateKey,
// and a payment confirmed with evaluateAccessControl.
import Foundation
import LocalAuthentication
import Security

final class SecureNotesVault {
    enum VaultError: Error {
        case accessControl(Error?)
    }

    private let store = LARightStore.shared
    private let identifier: String

    init(identifier: String = "com.example.notes.token") {
        self.identifier = identifier
    }

    /// Saves `token` behind biometry, with the passcode as fallback; replaces an earlier one.
    func enroll(token: Data) async throws {
        let right = LARight(requirement: .biometry(fallback: .devicePasscode))
        _ = try await store.saveRight(right, identifier: identifier, secret: token)
    }

    /// The token, after the user authenticates.
    func token(reason: String) async throws -> Data {
        let right = try await store.right(forIdentifier: identifier)
        try await right.authorize(localizedReason: reason)
        let token = try await right.secret.loadData()
        await right.deauthorize()
        return token
    }

    /// Seals a note for this vault; no authentication needed.
    func seal(_ note: String) async throws -> Data {
        let right = try await store.right(forIdentifier: identifier)
        return try await right.key.publicKey.encrypt(Data(note.utf8), algorithm: .eciesEncryptionStandardVariableIVX963SHA256AESGCM)
    }

    /// Opens a sealed note and signs its digest, after the user authenticates.
    func open(_ sealed: Data, reason: String) async throws -> (note: String, signature: Data) {
        let right = try await store.right(forIdentifier: identifier)
        try await right.authorize(localizedReason: reason)
        let plaintext = try await right.key.decrypt(sealed, algorithm: .eciesEncryptionStandardVariableIVX963SHA256AESGCM)
        let signature = try await right.key.sign(plaintext, algorithm: .ecdsaSignatureMessageX962SHA256)
        try await right.key.publicKey.verify(plaintext, signature: signature, algorithm: .ecdsaSignatureMessageX962SHA256)
        return (String(decoding: plaintext, as: UTF8.self), signature)
    }

    /// Asks for the current biometry or the passcode before a payment; completion on any queue.
    func confirmPayment(reason: String, completion: @escaping @Sendable (Bool, Error?) -> Void) {
        var error: Unmanaged<CFError>?
        guard let access = SecAccessControlCreateWithFlags(kCFAllocatorDefault, kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly,
                                                           [.biometryCurrentSet, .or, .devicePasscode], &error) else {
            completion(false, VaultError.accessControl(error?.takeRetainedValue()))
            return
        }
        LAContext().evaluateAccessControl(access, operation: .useItem, localizedReason: reason) { success, error in
            completion(success, error)
        }
    }

    func remove() async throws {
        try await store.removeRight(forIdentifier: identifier)
    }

    /// Whether biometry can be used now (iOS 18's LAEnvironment).
    var biometryUsable: Bool {
        LAEnvironment.currentUser.state.biometry?.isUsable ?? false
    }
}
