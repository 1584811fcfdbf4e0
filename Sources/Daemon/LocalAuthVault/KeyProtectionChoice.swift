// SPDX-License-Identifier: Apache-2.0

/// Where the daemon is told to keep the rights' wrapping key (`key_protection` in localauthd.conf;
/// the raw values are the configuration's words).
public enum KeyProtectionChoice: String, Sendable, CaseIterable {
    /// The TPM 2.0 when one answers at `tpm_tcti`, else the root-only file; once a key is
    /// sealed to the TPM, that TPM only (never a silent fall back to a file).
    case auto = "auto"
    /// The TPM 2.0 only: without one the rights are unavailable.
    case tpm2 = "tpm2"
    /// The root-only file only, even when there is a TPM.
    case wrappingKey = "wrapping-key"
}
