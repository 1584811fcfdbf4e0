// SPDX-License-Identifier: Apache-2.0
/// Which passcode job (one Argon2id hash or verification) runs next, and how many passcode
/// operations each user may have in progress.
///
/// Each user's jobs wait in first-in-first-out order. A free worker goes to the user served least
/// recently, and a user who had no job running or waiting goes before everyone already waiting.
/// So a user with many jobs holds back an idle user's job only until the first running job ends:
/// another user's flood costs me at most one hash, however long their queue.
///
/// A value type without locks or threads; ``PasscodeWorkScheduler`` owns one behind its mutex.
public struct PasscodeWorkQueue<Job> {
    /// How many jobs may run at once. Lowering it lets running jobs finish; raising it starts
    /// waiting ones at the next submission or finish.
    public var workers: Int
    /// Jobs running now.
    public private(set) var running = 0
    /// Jobs running now, per user (a user with none has no entry).
    private var busy: [UInt32: Int] = [:]
    /// Operations admitted and not yet released, per user (a user with none has no entry).
    public private(set) var admitted: [UInt32: Int] = [:]
    /// Waiting jobs per user, oldest first (a user with none has no entry).
    private var waiting: [UInt32: [Job]] = [:]
    /// Users with waiting jobs in the order they are served: first the `newcomers` (they were idle,
    /// in order of arrival), then the others, least recently served first.
    private var turns: [UInt32] = []
    private var newcomers = 0

    public init(workers: Int) {
        precondition(workers >= 1, "a passcode work queue needs at least one worker")
        self.workers = workers
    }

    /// Counts one more operation of `user`, unless `user` already has `limit` in progress.
    public mutating func admit(_ user: UInt32, limit: Int) -> Bool {
        guard admitted[user, default: 0] < limit else { return false }
        admitted[user, default: 0] += 1
        return true
    }

    /// An operation admitted for `user` ended (its jobs have finished).
    public mutating func release(_ user: UInt32) {
        guard let count = admitted[user] else { preconditionFailure("released a passcode operation of uid \(user) that was not admitted") }
        admitted[user] = count > 1 ? count - 1 : nil
    }

    /// Jobs of `user` waiting for a worker.
    public func waitingJobs(of user: UInt32) -> Int {
        waiting[user]?.count ?? 0
    }

    /// Queues `job` of `user`; returns the jobs that start now (each has taken a worker), in order.
    public mutating func submit(_ job: Job, of user: UInt32) -> [Job] {
        if waiting[user] == nil {
            if busy[user] == nil {
                turns.insert(user, at: newcomers)
                newcomers += 1
            } else {
                turns.append(user)
            }
        }
        waiting[user, default: []].append(job)
        return startable()
    }

    /// A running job of `user` ended and gave back its worker; returns the jobs that start now, in order.
    public mutating func finish(_ user: UInt32) -> [Job] {
        guard let count = busy[user] else { preconditionFailure("finished a passcode job of uid \(user) that was not running") }
        busy[user] = count > 1 ? count - 1 : nil
        running -= 1
        return startable()
    }

    private mutating func startable() -> [Job] {
        var started: [Job] = []
        while running < workers, let user = turns.first {
            turns.removeFirst()
            if newcomers > 0 { newcomers -= 1 }
            var jobs = waiting[user]!
            started.append(jobs.removeFirst())
            running += 1
            busy[user, default: 0] += 1
            if jobs.isEmpty {
                waiting[user] = nil
            } else {
                waiting[user] = jobs
                turns.append(user)
            }
        }
        return started
    }
}
