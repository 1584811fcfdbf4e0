// SPDX-License-Identifier: Apache-2.0
import LocalAuthCore
import Testing

/// The order of passcode jobs, with no threads: jobs are names, workers are counts.
@Suite("Passcode work queue: fair turns, bounded workers and operations")
struct PasscodeWorkQueueTests {
    static let attacker: UInt32 = 1000, victim: UInt32 = 1001, third: UInt32 = 1002

    @Test func anIdleUserGoesNextHoweverLongAnotherUsersQueueIs() {
        var queue = PasscodeWorkQueue<String>(workers: 1)
        var started = queue.submit("a1", of: Self.attacker)
        for name in ["a2", "a3", "a4"] { started += queue.submit(name, of: Self.attacker) }
        started += queue.submit("v1", of: Self.victim)
        #expect(started == ["a1"])
        started = queue.finish(Self.attacker)
        #expect(started == ["v1"], "after the one running job, not after the attacker's queue")
        started = queue.finish(Self.victim) + queue.finish(Self.attacker)
        #expect(started == ["a2", "a3"])
        // Two users become busy while a3 runs: both go before the attacker's a4, in order of arrival.
        started = queue.submit("t1", of: Self.third) + queue.submit("v2", of: Self.victim)
        #expect(started == [])
        started = queue.finish(Self.attacker) + queue.finish(Self.third) + queue.finish(Self.victim)
        #expect(started == ["t1", "v2", "a4"])
        started = queue.finish(Self.attacker)
        #expect(started == [] && queue.running == 0)
    }

    @Test func usersWithBacklogsTakeTurnsAndEachUsersJobsKeepTheirOrder() {
        var queue = PasscodeWorkQueue<String>(workers: 1)
        var order = queue.submit("a1", of: Self.attacker)
        for name in ["a2", "a3"] { order += queue.submit(name, of: Self.attacker) }
        for name in ["v1", "v2", "v3"] { order += queue.submit(name, of: Self.victim) }
        #expect(queue.waitingJobs(of: Self.attacker) == 2 && queue.waitingJobs(of: Self.victim) == 3)
        while let last = order.last, queue.running > 0 {
            order += queue.finish(last.hasPrefix("a") ? Self.attacker : Self.victim)
        }
        #expect(order == ["a1", "v1", "a2", "v2", "a3", "v3"])
    }

    @Test func aBusyUsersNewJobWaitsBehindOthersWhoAreWaiting() {
        var queue = PasscodeWorkQueue<String>(workers: 2)
        var started = queue.submit("v1", of: Self.victim) + queue.submit("a1", of: Self.attacker)
        started += queue.submit("a2", of: Self.attacker) + queue.submit("v2", of: Self.victim)
        #expect(started == ["v1", "a1"])
        started = queue.finish(Self.attacker)
        #expect(started == ["a2"], "the victim was served more recently than the attacker")
        started = queue.finish(Self.attacker)
        #expect(started == ["v2"])
    }

    @Test func atMostWorkersJobsRunAndAChangedCountAppliesAsJobsFinish() {
        var queue = PasscodeWorkQueue<Int>(workers: 2)
        var started: [Int] = []
        for job in 1...6 { started += queue.submit(job, of: Self.attacker) }
        #expect(started == [1, 2] && queue.running == 2)
        queue.workers = 1
        started = queue.finish(Self.attacker)
        #expect(started == [], "fewer workers: the running jobs drain first")
        started = queue.finish(Self.attacker)
        #expect(started == [3])
        queue.workers = 3
        started = queue.submit(7, of: Self.victim)
        #expect(started == [7, 4], "more workers: waiting jobs start at once, the idle user's first")
        #expect(queue.running == 3)
    }

    @Test func eachUserMayHaveOnlyLimitOperationsInProgress() {
        var queue = PasscodeWorkQueue<Int>(workers: 1)
        var admitted = (1...4).map { _ in queue.admit(Self.attacker, limit: 4) }
        admitted.append(queue.admit(Self.attacker, limit: 4))
        #expect(admitted == [true, true, true, true, false])
        admitted = [queue.admit(Self.victim, limit: 4)]
        #expect(admitted == [true], "another user's limit is their own")
        queue.release(Self.attacker)
        admitted = [queue.admit(Self.attacker, limit: 4)]
        #expect(admitted == [true])
        #expect(queue.admitted == [Self.attacker: 4, Self.victim: 1])
        for _ in 1...4 { queue.release(Self.attacker) }
        #expect(queue.admitted == [Self.victim: 1])
    }
}
