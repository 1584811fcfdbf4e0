// SPDX-License-Identifier: Apache-2.0
import LocalAuthCore

/// Chooses and opens the daemon's ``Sealer`` at start, from `key_protection` and `tpm_tcti`.
///
/// The rule: a wrapping key, once made, is the only one. When the TPM sealed it
/// (``TPMSealedKey/exists``) only that TPM is used, and its absence is an error, never a fall
/// back to a file; when the file holds it (``WrappingKeyFile/exists``) the file is used, even if a
/// TPM appears later (the rights are sealed with that key). With neither, `auto` makes the key
/// with the TPM when one answers and works, else in the file.
public enum SealingSetup {
    /// The default `tpm_tcti`: the kernel's TPM resource manager.
    public static let defaultTCTI = "device:/dev/tpmrm0"

    /// The sealing directory of the daemon's state directory: `<state>/sealing`.
    public static func directory(state: String) -> String { state + "/sealing" }

    /// The sealer for `choice`, with the TPM at `tcti` and the key files in `directory`
    /// (``directory(state:)``; created 0700 when missing). `log` hears why `auto` did not take the
    /// TPM (one sentence, no secret); the caller logs which protection it got (``Sealer/protection``).
    /// Errors: `.sealingUnavailable` when the chosen or already used TPM cannot unseal the key,
    /// `.failed` when the key files are not private or damaged (the message says what to do).
    public static func open(_ choice: KeyProtectionChoice, tcti: String, directory: String,
                            log: (String) -> Void = { _ in }) throws(RightVaultError) -> any Sealer {
        try VaultLibraries.loadCrypto()
        let tpm = TPMSealedKey(directory: directory, tcti: tcti)
        let file = WrappingKeyFile(directory: directory)
        // Checks the directory (mode, owner) before anything is decided from its contents.
        _ = try SealingDirectory(path: directory)
        switch choice {
        case .tpm2:
            if file.exists && !tpm.exists {
                throw RightVaultError(.failed, "key_protection = tpm2, but the rights' wrapping key is in the file \(file.path): rights saved so far are sealed with it. Set key_protection = wrapping-key (or auto), or remove every right and that file to start over with the TPM.")
            }
            return try tpm.open()
        case .wrappingKey:
            if tpm.exists {
                throw RightVaultError(.failed, "key_protection = wrapping-key, but the rights' wrapping key is sealed to the TPM (\(directory)/\(TPMSealedKey.publicFileName)): rights saved so far need that TPM. Set key_protection = tpm2 (or auto).")
            }
            return try file.open()
        case .auto:
            if tpm.exists { return try tpm.open() }
            if file.exists { return try file.open() }
            do throws(RightVaultError) {
                return try tpm.open()
            } catch {
                log("No usable TPM 2.0 at \(tcti) (\(error.message)); the rights' wrapping key goes to the root-only file \(file.path).")
                return try file.open()
            }
        }
    }
}
