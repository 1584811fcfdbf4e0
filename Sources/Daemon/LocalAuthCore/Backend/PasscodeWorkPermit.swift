// SPDX-License-Identifier: Apache-2.0
/// One admitted passcode operation of a user (a check, or a check and a new hash): it runs the
/// operation's hasher calls through the ``PasscodeWorkScheduler``, one at a time, and ends the
/// operation when it goes away. Not copyable, so an operation is counted exactly once.
public struct PasscodeWorkPermit: ~Copyable, Sendable {
    let scheduler: PasscodeWorkScheduler
    /// Whose queue the jobs wait in: the user whose passcode it is.
    public let user: UInt32

    init(scheduler: PasscodeWorkScheduler, user: UInt32) {
        self.scheduler = scheduler
        self.user = user
    }

    deinit { scheduler.release(user) }

    /// The stored hash of `passcode`, computed when a worker is free for this user.
    public func hash(_ passcode: Passcode) async throws(LocalAuthError) -> String {
        try await scheduler.hash(passcode, for: user)
    }

    /// Whether `passcode` matches `storedHash`, checked when a worker is free for this user.
    public func verify(_ passcode: Passcode, against storedHash: String) async -> Bool {
        await scheduler.verify(passcode, against: storedHash, for: user)
    }
}
