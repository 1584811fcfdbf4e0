// SPDX-License-Identifier: Apache-2.0
import LocalAuthDBus
import Testing

/// The loop's delayed jobs (what `Task.sleep` becomes when the loop is localauthd's default
/// executor): each runs on the loop's thread, not before its time, earliest first whatever the
/// order they were handed over in.
@Suite("DBusEventLoop scheduled jobs")
struct EventLoopSchedulingTests {
    /// A task executor that hands every job to `loop`, `delay` from now.
    final class Delaying: TaskExecutor {
        let loop: DBusEventLoop
        let delay: Duration
        init(_ loop: DBusEventLoop, delay: Duration) { (self.loop, self.delay) = (loop, delay) }
        func enqueue(_ job: consuming ExecutorJob) { loop.enqueue(job, at: .now + delay) }
    }

    @Test func delayedJobsRunOnTheLoopInDueOrderAndNotEarly() async {
        let loop = DBusEventLoop(name: "test-loop")
        let start = ContinuousClock.now
        /// Runs on the loop after `delay`; returns when it ran and whether on the loop's thread.
        func run(after delay: Duration) -> Task<(ContinuousClock.Instant, Bool), Never> {
            Task(executorPreference: Delaying(loop, delay: delay)) { [loop] in
                (ContinuousClock.now, loop.isCurrent)
            }
        }
        let late = run(after: .milliseconds(120))
        let early = run(after: .milliseconds(40))
        let (earlyRan, earlyOnLoop) = await early.value
        let (lateRan, lateOnLoop) = await late.value
        let (earlyAt, lateAt) = (earlyRan - start, lateRan - start)
        #expect(earlyRan < lateRan)
        #expect(earlyOnLoop && lateOnLoop)
        #expect(earlyAt >= .milliseconds(40))
        #expect(lateAt >= .milliseconds(120))
    }
}
