// SPDX-License-Identifier: Apache-2.0
import Synchronization

/// The rights' vault, opened on its first use rather than at start: unsealing the wrapping key
/// costs a TPM round trip (creating the storage key, loading, unsealing) that a daemon started on
/// demand for one evaluation should not pay. The outcome, success or the reason rights are
/// unavailable, is kept for the daemon's lifetime. Safe from any thread.
public final class VaultOpening: Sendable {
    private let open: @Sendable () -> Result<any RightVault, RightVaultError>
    private let outcome = Mutex<Result<any RightVault, RightVaultError>?>(nil)

    /// Runs `open` at the first ``result`` read, once.
    public init(_ open: @escaping @Sendable () -> Result<any RightVault, RightVaultError>) {
        self.open = open
    }

    /// A vault that is already open (or known to be unavailable).
    public convenience init(_ result: Result<any RightVault, RightVaultError>) {
        self.init { result }
    }

    /// The vault, or why rights are unavailable; opens it on the first read.
    public var result: Result<any RightVault, RightVaultError> {
        outcome.withLock { outcome in
            if let outcome { return outcome }
            let opened = open()
            outcome = opened
            return opened
        }
    }
}
