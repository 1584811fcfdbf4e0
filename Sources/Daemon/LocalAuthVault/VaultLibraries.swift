// SPDX-License-Identifier: Apache-2.0
import CVaultLibraries
import LocalAuthCore

/// libcrypto and tpm2-tss, which the vault loads when it opens instead of every daemon at start
/// (CVaultLibraries): a library that is missing is an error of the vault, not a crash.
enum VaultLibraries {
    static func loadCrypto() throws(RightVaultError) {
        if let reason = load(localauth_load_crypto) {
            throw RightVaultError(.failed, "OpenSSL's libcrypto cannot be loaded (\(reason)); install the libssl3 package.")
        }
    }

    static func loadTSS2() throws(RightVaultError) {
        if let reason = load(localauth_load_tss2) {
            throw RightVaultError(.sealingUnavailable, "tpm2-tss cannot be loaded (\(reason)); install the libtss2-esys-3.0.2-0, libtss2-tctildr0, libtss2-mu0 and libtss2-rc0 packages.")
        }
    }

    private static func load(_ loader: (UnsafeMutablePointer<CChar>?, Int) -> Int32) -> String? {
        var message = [CChar](repeating: 0, count: 256)
        guard loader(&message, message.count) != 0 else { return nil }
        return String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
