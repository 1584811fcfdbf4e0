// SPDX-License-Identifier: Apache-2.0
import Synchronization

/// The unique names that came to own the provider's bus name, as `provider check` learns them
/// (NameOwnerChanged, or GetNameOwner when the provider was there first).
final class ProviderCheckOwners: Sendable {
    private let owners = Mutex<[String]>([])

    func put(_ owner: String) {
        owners.withLock { $0.append(owner) }
    }

    /// The first owner, waiting at most `timeout`; nil when none came or `stopping` says the
    /// process that should own the name is gone (it is asked every 100 ms).
    @MainActor
    func next(within timeout: Duration, stopping: () -> Int32?) async -> String? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let owner = owners.withLock({ $0.first }) { return owner }
            if stopping() != nil { return nil }
            try? await Task.sleep(for: .milliseconds(100))
        }
        return owners.withLock { $0.first }
    }
}
