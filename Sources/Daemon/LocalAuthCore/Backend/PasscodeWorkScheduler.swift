// SPDX-License-Identifier: Apache-2.0
import Synchronization

/// Fair, bounded access to the passcode hasher, which is slow and memory-hungry by design
/// (Argon2id: ~100 ms and 64 MiB per call).
///
/// Every operation that hashes or verifies a passcode is admitted first (``admit(_:limits:)``);
/// a user with `operationsPerUser` operations in progress is refused at once. The permit it gets
/// runs the operation's jobs one at a time, each when ``PasscodeWorkQueue`` gives it a worker: at
/// most `workers` hasher calls run at once (so memory stays bounded), and another user's flood
/// delays a job by at most the one hash each worker is busy with. A job that waits is not
/// cancelled; it runs when its turn comes.
///
/// The mutex owns the queue and the waiting jobs' continuations; the hasher runs outside it, on
/// whatever thread it chooses.
public final class PasscodeWorkScheduler: Sendable {
    /// How much passcode work may run and wait; read at each admission, so a reload applies.
    public struct Limits: Sendable, Hashable {
        public var workers: Int
        public var operationsPerUser: Int

        public init(workers: Int, operationsPerUser: Int) {
            self.workers = workers
            self.operationsPerUser = operationsPerUser
        }
    }

    private let hasher: any PasscodeHasher
    private let queue: Mutex<PasscodeWorkQueue<CheckedContinuation<Void, Never>>>

    public init(hasher: any PasscodeHasher, limits: Limits) {
        self.hasher = hasher
        queue = Mutex(PasscodeWorkQueue(workers: limits.workers))
    }

    /// Admits one operation of `user`, or refuses it with limitsExceeded when `user` already has
    /// `limits.operationsPerUser` in progress. The operation lasts until the permit goes away.
    public func admit(_ user: UInt32, limits: Limits) throws(LocalAuthError) -> PasscodeWorkPermit {
        let admitted = queue.withLock { queue in
            queue.workers = limits.workers
            return queue.admit(user, limit: limits.operationsPerUser)
        }
        guard admitted else {
            throw LocalAuthError(.limitsExceeded, "uid \(user) already has \(limits.operationsPerUser) passcode checks or changes in progress; wait for them to finish, then try again.")
        }
        return PasscodeWorkPermit(scheduler: self, user: user)
    }

    /// Jobs running now, and jobs of `user` waiting for a worker; for status and tests.
    public func load(of user: UInt32) -> (running: Int, waiting: Int) {
        queue.withLock { ($0.running, $0.waitingJobs(of: user)) }
    }

    func release(_ user: UInt32) {
        queue.withLock { $0.release(user) }
    }

    func hash(_ passcode: Passcode, for user: UInt32) async throws(LocalAuthError) -> String {
        await waitForWorker(user)
        defer { finishJob(user) }
        return try await hasher.hash(passcode)
    }

    func verify(_ passcode: Passcode, against storedHash: String, for user: UInt32) async -> Bool {
        await waitForWorker(user)
        defer { finishJob(user) }
        return await hasher.verify(passcode, against: storedHash)
    }

    private func waitForWorker(_ user: UInt32) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let started = queue.withLock { $0.submit(continuation, of: user) }
            for job in started { job.resume() }
        }
    }

    private func finishJob(_ user: UInt32) {
        let started = queue.withLock { $0.finish(user) }
        for job in started { job.resume() }
    }
}
