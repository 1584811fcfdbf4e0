// SPDX-License-Identifier: Apache-2.0
import LocalAuthCore

/// Seals bytes at rest with the machine's wrapping key (XChaCha20-Poly1305), the key itself
/// protected by the TPM 2.0 or a root-only file (``protection`` says which). Every blob is bound to
/// `label` as authenticated data: a blob sealed for one label does not open for another.
public protocol Sealer: Sendable {
    /// Where the wrapping key lives: the TPM (`tpm2`) or a root-only file (`wrapping-key`).
    var protection: KeyProtection { get }
    /// A blob (version byte ‖ nonce ‖ ciphertext‖tag) holding `plaintext`, bound to `label`.
    func seal(_ plaintext: UnsafeBufferPointer<UInt8>, label: [UInt8]) throws(RightVaultError) -> [UInt8]
    /// The plaintext of a blob ``seal(_:label:)`` made for the same `label`; `.corrupt` when the
    /// blob was altered, sealed for another label or with another key.
    func unseal(_ sealed: [UInt8], label: [UInt8]) throws(RightVaultError) -> SecretBytes
}
