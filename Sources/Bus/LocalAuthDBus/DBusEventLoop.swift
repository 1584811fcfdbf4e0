// SPDX-License-Identifier: Apache-2.0
import CDBus
import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The thread that owns one connection: it waits in `poll(2)` on the connection's socket, lets
/// libdbus read, write and time out, dispatches what arrived, and runs work handed to it from any
/// thread, in order.
///
/// It replaces a dispatch queue with dispatch sources, which cost every incoming message a wake-up
/// of libdispatch's manager thread, an `epoll_ctl` to disarm and one to re-arm the source, and a
/// hand-off to a worker thread. Here a message costs the `poll` that returns and the reads, and a
/// reply sent from the loop's own thread is written at once. It is also a `TaskExecutor`: tasks
/// that prefer it run their non-isolated code on this thread. And ``makeSerialExecutor()`` makes
/// it an actor's serial executor (the daemon's engine): code already on the loop, such as a method
/// handler, may then start a task isolated to that actor with `Task.immediate`, which runs at once
/// on this thread until it first waits, so a request read, checked, answered and written costs no
/// thread hand-off at all.
///
/// libdbus's watches and timeouts are kept in `watches` and `timeouts`, which only the loop's
/// thread touches (libdbus calls the watch and timeout functions on it: every libdbus call for the
/// connection happens here). `pending` is the one piece shared with other threads, under a mutex.
/// The thread ends when this object is released and nothing remains to run.
public final class DBusEventLoop: @unchecked Sendable {
    private let runner: Runner

    /// Starts the loop's thread; `name` names the thread (visible in `top -H`, 15 bytes at most).
    public init(name: String = "dbus-loop") {
        runner = Runner()
        runner.taskExecutor = asUnownedTaskExecutor()
        runner.start(name: name)
    }

    /// The loop as the serial executor of an actor (its `unownedExecutor`): the actor's jobs run
    /// on the loop's thread, in order with everything else handed to it. The executor keeps the
    /// loop running while the actor holds it; make one per actor and keep it.
    public func makeSerialExecutor() -> Isolation { Isolation(loop: self) }

    deinit {
        runner.stop()
    }

    /// Whether the calling thread is the loop's.
    public var isCurrent: Bool { runner.isCurrent }

    /// Runs `work` on the loop's thread after everything already handed to it.
    public func async(execute work: @escaping @Sendable () -> Void) {
        runner.submit(.block(work))
    }

    /// Runs `work` on the loop's thread and waits for it: inline when already there.
    public func sync<T>(execute work: () throws -> T) rethrows -> T {
        if isCurrent { return try work() }
        return try withoutActuallyEscaping(work) { work in
            let slot = SyncSlot<T>(work)
            runner.submit(.block { slot.run() })
            slot.done.wait()
            return try slot.result!.get()
        }
    }

    /// Stops the process unless called on the loop's thread outside the job of an actor isolated
    /// to it: what runs here may enter that actor synchronously (`assumeIsolated`) without
    /// interrupting it halfway.
    func preconditionOutsideIsolatedJob() {
        precondition()
        Swift.precondition(!runner.runningIsolatedJob, "libdbus dispatched inside a job of an actor isolated to its loop")
    }

    /// Stops the process with `message` unless called on the loop's thread.
    func precondition(_ message: @autoclosure () -> String = "libdbus used off its connection's thread") {
        Swift.precondition(isCurrent, message())
    }

    // MARK: libdbus's watches and timeouts (only on the loop's thread)

    func addWatch(_ watch: OpaquePointer) { precondition(); runner.watches.insert(watch) }
    func removeWatch(_ watch: OpaquePointer) { precondition(); runner.watches.remove(watch) }
    func addTimeout(_ timeout: OpaquePointer) { precondition(); runner.restart(timeout) }
    func removeTimeout(_ timeout: OpaquePointer) { precondition(); runner.timeouts[timeout] = nil }
    func toggleTimeout(_ timeout: OpaquePointer) { precondition(); runner.restart(timeout) }

    /// Dispatches what libdbus read, every turn of the loop; returns whether more is waiting.
    /// `recheck`, asked before the loop sleeps, bounds the sleep: the connection holds messages
    /// back and must look again within that time even if nothing happens. Set on the loop's
    /// thread when the connection opens; nil once it closes.
    func serve(_ dispatch: (() -> Bool)?, recheck: (() -> Duration?)? = nil) {
        precondition()
        runner.dispatch = dispatch
        runner.recheck = recheck
    }

    /// `sync`'s work while its caller waits: the loop runs it and lets go of it before the caller
    /// goes on, since the work is the caller's non-escaping closure.
    private final class SyncSlot<T>: @unchecked Sendable {
        private var work: (() throws -> T)?
        var result: Result<T, any Error>?
        let done = DispatchSemaphore(value: 0)

        init(_ work: @escaping () throws -> T) { self.work = work }

        func run() {
            result = Result { try work!() }
            work = nil
            done.signal()
        }
    }
}

extension DBusEventLoop: TaskExecutor {
    public func enqueue(_ job: consuming ExecutorJob) {
        runner.submit(.job(UnownedJob(job)))
    }
}

extension DBusEventLoop {
    /// Runs `job` as the loop's task executor once `due` has passed (a delayed job, such as
    /// `Task.sleep`'s, when the loop is the process's default executor): the loop keeps it and
    /// bounds its `poll` by the earliest, so a sleeping task costs no thread and no timer.
    public func enqueue(_ job: consuming ExecutorJob, at due: ContinuousClock.Instant) {
        runner.submit(.job(UnownedJob(job)), at: due)
    }
}

extension DBusEventLoop {
    /// ``DBusEventLoop/makeSerialExecutor()``: the loop's thread is the actor's whole isolation. Whatever
    /// runs there (a job, a handed-over block, a libdbus callback) runs alone, so being on the
    /// thread is being isolated — as long as nothing re-enters the actor from inside one of its
    /// own synchronous calls, which only method handlers do, and libdbus calls them only between jobs.
    public final class Isolation: SerialExecutor {
        private let loop: DBusEventLoop

        init(loop: DBusEventLoop) {
            self.loop = loop
        }

        public func enqueue(_ job: consuming ExecutorJob) {
            loop.runner.submit(.isolated(UnownedJob(job), asUnownedSerialExecutor()))
        }

        /// Being on the loop's thread is being isolated. Answering here (not only trapping in
        /// ``checkIsolated()``) is what lets `Task.immediate` with a closure isolated to the actor,
        /// started on the loop, run at once where it was started instead of being enqueued.
        public func isIsolatingCurrentContext() -> Bool? { loop.isCurrent }

        public func checkIsolated() {
            loop.precondition("an actor isolated to a D-Bus connection's loop used off the loop's thread")
        }
    }
}

extension DBusEventLoop {
    enum Work {
        case block(@Sendable () -> Void)
        /// A task that prefers the loop as its task executor, in no actor's isolation.
        case job(UnownedJob)
        /// A job of an actor whose serial executor is the loop (``DBusEventLoop/makeSerialExecutor()``).
        case isolated(UnownedJob, UnownedSerialExecutor)
    }

    /// The loop itself; its thread holds it until the loop stops.
    final class Runner: @unchecked Sendable {
        /// What other threads hand over, and whether the loop sleeps in `poll` (then they wake it).
        private struct Shared {
            var pending: [Work] = []
            /// Work due later, earliest first.
            var scheduled: [(due: ContinuousClock.Instant, work: Work)] = []
            var sleeping = false
            var stopping = false
        }

        private let shared = Mutex(Shared())
        /// Written by other threads to wake the loop from `poll`.
        private let wakeFD: Int32
        /// The loop's thread, set by that thread before anything is handed to it.
        private let thread = Atomic<UInt>(0)

        /// The loop as a task executor, for the jobs it runs; set before the thread starts.
        var taskExecutor: UnownedTaskExecutor?

        // Only on the loop's thread:
        var watches = Set<OpaquePointer>()
        var timeouts: [OpaquePointer: ContinuousClock.Instant] = [:]
        var dispatch: (() -> Bool)?
        var recheck: (() -> Duration?)?
        /// Set while a job of an actor isolated to the loop runs: libdbus's handlers, which may
        /// enter that actor synchronously, must not run then (``DBusEventLoop/preconditionOutsideIsolatedJob()``).
        var runningIsolatedJob = false

        init() {
            wakeFD = localauth_loop_eventfd()
            Swift.precondition(wakeFD >= 0, "cannot create an eventfd for a D-Bus connection's loop (errno \(errno))")
        }

        deinit {
            close(wakeFD)
        }

        var isCurrent: Bool {
            let current = thread.load(ordering: .relaxed)
            return current != 0 && current == UInt(pthread_self())
        }

        func start(name: String) {
            let started = DispatchSemaphore(value: 0)
            let context = Unmanaged.passRetained(StartContext(runner: self, name: name, started: started)).toOpaque()
            var attributes = pthread_attr_t()
            pthread_attr_init(&attributes)
            pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
            defer { pthread_attr_destroy(&attributes) }
            var handle = pthread_t()
            let status = pthread_create(&handle, &attributes, { context in
                let start = Unmanaged<StartContext>.fromOpaque(context!).takeRetainedValue()
                start.name.withCString { localauth_name_thread($0) }
                start.runner.thread.store(UInt(pthread_self()), ordering: .relaxed)
                start.started.signal()
                start.runner.run()
                return nil
            }, context)
            Swift.precondition(status == 0, "cannot start a D-Bus connection's thread (error \(status))")
            started.wait()
        }

        private final class StartContext {
            let runner: Runner
            let name: String
            let started: DispatchSemaphore
            init(runner: Runner, name: String, started: DispatchSemaphore) {
                (self.runner, self.name, self.started) = (runner, name, started)
            }
        }

        func submit(_ work: Work) {
            let wake = shared.withLock { shared -> Bool in
                shared.pending.append(work)
                defer { shared.sleeping = false }
                return shared.sleeping
            }
            if wake { self.wake() }
        }

        /// Hands over `work` to run once `due` has passed.
        func submit(_ work: Work, at due: ContinuousClock.Instant) {
            let wake = shared.withLock { shared -> Bool in
                let index = shared.scheduled.firstIndex { $0.due > due } ?? shared.scheduled.endIndex
                shared.scheduled.insert((due, work), at: index)
                // Only a new earliest deadline changes how long the loop may sleep.
                guard index == 0 else { return false }
                defer { shared.sleeping = false }
                return shared.sleeping
            }
            if wake { self.wake() }
        }

        func stop() {
            let wake = shared.withLock { shared -> Bool in
                shared.stopping = true
                return shared.sleeping
            }
            if wake { self.wake() }
        }

        private func wake() {
            var one: UInt64 = 1
            _ = write(wakeFD, &one, 8)
        }

        func restart(_ timeout: OpaquePointer) {
            guard dbus_timeout_get_enabled(timeout) != 0 else {
                timeouts[timeout] = nil
                return
            }
            timeouts[timeout] = .now + .milliseconds(max(1, Int(dbus_timeout_get_interval(timeout))))
        }

        /// Until stopped with nothing left: run what was handed over, dispatch what libdbus read,
        /// wait in `poll` for the socket, a wake-up or the next timeout, let libdbus handle what
        /// happened.
        private func run() {
            // `polled[i]` is the watch `descriptors[i]` polls (nil for the wake-up descriptor).
            var descriptors: [pollfd] = []
            var polled: [OpaquePointer?] = []
            while true {
                let more = dispatch?() ?? false
                runPending()
                let (sleep, stopping, nextDue) = shared.withLock { shared -> (Bool, Bool, ContinuousClock.Instant?) in
                    shared.sleeping = !more && shared.pending.isEmpty
                    return (shared.sleeping, shared.stopping, shared.scheduled.first?.due)
                }
                if stopping && sleep && nextDue == nil { return }
                // Rebuilt every turn, reusing the arrays' elements: emptying them was a
                // `replaceSubrange` each, a turn.
                var count = 0
                func add(_ descriptor: pollfd, _ watch: OpaquePointer?) {
                    if count < descriptors.count {
                        (descriptors[count], polled[count]) = (descriptor, watch)
                    } else {
                        descriptors.append(descriptor)
                        polled.append(watch)
                    }
                    count += 1
                }
                add(pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0), nil)
                for watch in watches where dbus_watch_get_enabled(watch) != 0 {
                    let flags = dbus_watch_get_flags(watch)
                    var events: Int16 = 0
                    if flags & DBUS_WATCH_READABLE.rawValue != 0 { events |= Int16(POLLIN) }
                    if flags & DBUS_WATCH_WRITABLE.rawValue != 0 { events |= Int16(POLLOUT) }
                    add(pollfd(fd: dbus_watch_get_unix_fd(watch), events: events, revents: 0), watch)
                }
                let timeout = sleep ? pollTimeout(within: recheck?(), due: nextDue) : 0
                let ready = poll(&descriptors, nfds_t(count), timeout)
                shared.withLock { $0.sleeping = false }
                if ready > 0 {
                    if descriptors[0].revents != 0 {
                        var count: UInt64 = 0
                        _ = read(wakeFD, &count, 8)
                    }
                    for index in 1..<count {
                        let (watch, revents) = (polled[index]!, descriptors[index].revents)
                        // libdbus may have removed the watch while handling an earlier one.
                        guard revents != 0, watches.contains(watch) else { continue }
                        var flags: UInt32 = 0
                        if revents & Int16(POLLIN) != 0 { flags |= DBUS_WATCH_READABLE.rawValue }
                        if revents & Int16(POLLOUT) != 0 { flags |= DBUS_WATCH_WRITABLE.rawValue }
                        if revents & Int16(POLLHUP) != 0 { flags |= DBUS_WATCH_HANGUP.rawValue }
                        if revents & Int16(POLLERR | POLLNVAL) != 0 { flags |= DBUS_WATCH_ERROR.rawValue }
                        handle(watch, flags)
                    }
                }
                fireTimeouts()
                moveDueWork()
            }
        }

        /// Moves the scheduled work whose time has come to the front of what runs next.
        private func moveDueWork() {
            let now = ContinuousClock.now
            shared.withLock { shared in
                let due = shared.scheduled.prefix { $0.due <= now }
                guard !due.isEmpty else { return }
                shared.pending.insert(contentsOf: due.map(\.work), at: 0)
                shared.scheduled.removeFirst(due.count)
            }
        }

        /// libdbus reads a few KiB per `dbus_watch_handle`; while more input waits, a readable
        /// event reads on, up to about 64 KiB, so a flood of large messages does not fill the bus's
        /// queue for this connection (the bus then refuses everyone's calls to it).
        ///
        /// libdbus reads until the socket says `EAGAIN` or it has read 2 KiB in this turn. Only in
        /// the second case can input still wait, so only then is the socket asked (`FIONREAD`):
        /// a call of the usual size costs no system call beyond libdbus's own. `errno` tells the
        /// two apart; if it ever misleads, the readable socket wakes the next `poll` at once.
        private func handle(_ watch: OpaquePointer, _ flags: UInt32) {
            for _ in 0..<32 {
                errno = 0
                _ = dbus_watch_handle(watch, flags)
                let drained = errno == EAGAIN || errno == EWOULDBLOCK
                // libdbus may remove the watch, or disable it (over its received-size limit).
                var waiting: Int32 = 0
                guard flags == DBUS_WATCH_READABLE.rawValue, !drained, watches.contains(watch), dbus_watch_get_enabled(watch) != 0,
                      ioctl(dbus_watch_get_unix_fd(watch), UInt(FIONREAD), &waiting) == 0, waiting > 0
                else { return }
            }
        }

        /// Runs what other threads handed over, in order, and what that work hands over in turn,
        /// up to a bound per turn so that reading the socket is never starved.
        private func runPending() {
            for _ in 0..<64 {
                let batch = shared.withLock { shared -> [Work] in
                    let batch = shared.pending
                    shared.pending = []
                    return batch
                }
                if batch.isEmpty { return }
                for work in batch {
                    switch work {
                    case .block(let block): block()
                    case .job(let job): job.runSynchronously(on: taskExecutor!)
                    case .isolated(let job, let executor):
                        runningIsolatedJob = true
                        job.runSynchronously(isolatedTo: executor, taskExecutor: taskExecutor!)
                        runningIsolatedJob = false
                    }
                }
            }
        }

        /// Until the next libdbus timeout or scheduled work, at most `bound`; -1 (forever) when none is set.
        private func pollTimeout(within bound: Duration?, due: ContinuousClock.Instant?) -> Int32 {
            let now = ContinuousClock.now
            var remaining = timeouts.values.min().map { $0 - now }
            if let due { remaining = min(remaining ?? (due - now), due - now) }
            if let bound { remaining = min(remaining ?? bound, bound) }
            guard let remaining else { return -1 }
            if remaining <= .zero { return 0 }
            let (seconds, attoseconds) = remaining.components
            return Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1)
        }

        private func fireTimeouts() {
            guard !timeouts.isEmpty else { return }
            let now = ContinuousClock.now
            for (timeout, deadline) in timeouts where deadline <= now {
                // libdbus may have removed it while handling another.
                guard timeouts[timeout] != nil else { continue }
                timeouts[timeout] = now + .milliseconds(max(1, Int(dbus_timeout_get_interval(timeout))))
                _ = dbus_timeout_handle(timeout)
            }
        }
    }
}
