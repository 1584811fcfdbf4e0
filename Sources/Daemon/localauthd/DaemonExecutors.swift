// SPDX-License-Identifier: Apache-2.0
@_spi(ExperimentalCustomExecutors) @_spi(ExperimentalScheduling) import _Concurrency
import LocalAuthDBus

/// Makes the daemon's bus loop the process's default executor: every task that is not isolated to
/// an actor, and every `Task.sleep`, runs on the loop's thread, like the engine and the connection.
///
/// Swift's default executor on Linux is libdispatch's global concurrent queue. The first worker
/// thread that queue starts arms libdispatch's pool monitor, a 1 s timer on its manager thread that
/// is never cancelled: the idle daemon woke once a second for it, for ever. With every task on the
/// loop (and the units' timers and blocking work on serial queues, whose threads the monitor does not
/// watch), the idle daemon sleeps in `poll` until a message, a timer it set, or a signal arrives.
/// One thread is all the daemon needs: the engine already runs there, and the work that blocks
/// longest (Argon2id, the ledger writer, profile saves, a provider's `waitpid`) has queues of its own.
///
/// Uses the runtime's executor factory (`_createExecutors`), still SPI in Swift 6.3: it must run
/// before the first task is created, which ``install()`` at the top of `main` ensures.
enum DaemonExecutors: ExecutorFactory {
    /// The thread the daemon's connection, engine and tasks share.
    static let loop = DBusEventLoop()

    static var mainExecutor: any MainExecutor { PlatformExecutorFactory.mainExecutor }
    static var defaultExecutor: any TaskExecutor { Default.shared }

    static func install() {
        _createExecutors(factory: DaemonExecutors.self)
    }

    /// The loop as the default executor, with the delayed jobs `Task.sleep` enqueues.
    final class Default: TaskExecutor, SchedulingExecutor, Sendable {
        static let shared = Default()

        func enqueue(_ job: consuming ExecutorJob) {
            loop.enqueue(job)
        }

        func enqueue<C: Clock>(_ job: consuming ExecutorJob, after delay: C.Duration, tolerance: C.Duration?, clock: C) {
            loop.enqueue(job, at: .now + Self.duration(delay))
        }

        func enqueue<C: Clock>(_ job: consuming ExecutorJob, at instant: C.Instant, tolerance: C.Duration?, clock: C) {
            loop.enqueue(job, at: .now + Self.duration(clock.now.duration(to: instant)))
        }

        /// The standard clocks measure in `Duration`; their deadlines are counted on the loop's
        /// `ContinuousClock` (a `SuspendingClock` deadline then also counts time suspended, which
        /// only makes it come sooner).
        private static func duration<D: DurationProtocol>(_ duration: D) -> Duration {
            guard let duration = duration as? Duration else {
                preconditionFailure("localauthd schedules tasks only on clocks that measure in Duration, not \(D.self)")
            }
            return duration
        }
    }
}
