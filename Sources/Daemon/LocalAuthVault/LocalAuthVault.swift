// SPDX-License-Identifier: Apache-2.0
/// The daemon's ``RightVault``: P-256 through OpenSSL's libcrypto, sealing with the TPM 2.0 or a
/// root-only wrapping key. See P256Key, SealingKey and VaultFile.
public enum LocalAuthVault {}
