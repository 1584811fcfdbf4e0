// SPDX-License-Identifier: Apache-2.0
/// Where each user's saved rights live between runs (a file per user in the daemon, memory in
/// tests). A save is durable when it returns: the engine replies only after it.
public protocol RightStore: Sendable {
    /// The user's rights; empty when none were ever saved. Throws when they exist but cannot be
    /// read: the engine then makes that user's rights unavailable, never empty.
    func loadRights(user: UInt32) throws(StateStoreError) -> [RightRecord]
    /// Replaces the user's rights with `rights` (an empty list removes them).
    func saveRights(_ rights: [RightRecord], user: UInt32) throws(StateStoreError)
}
