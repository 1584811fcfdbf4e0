// SPDX-License-Identifier: Apache-2.0
import CSodium
import LocalAuthCore

/// The one place libsodium is initialized.
enum Sodium {
    /// `sodium_init` is idempotent and thread-safe; it fails only when the system has no entropy source.
    static func initialize() throws(LocalAuthError) {
        guard sodium_init() >= 0 else {
            throw LocalAuthError(.serviceFailure, "libsodium could not be initialized (no entropy source?).")
        }
    }
}
