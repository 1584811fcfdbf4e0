// SPDX-License-Identifier: Apache-2.0
import Foundation

/// Ending child processes without `Process.waitUntilExit()`, and writing to their input without SIGPIPE.
///
/// With dozens of children exiting at once (parallel tests), corelibs Foundation can miss a
/// SIGCHLD and leave `waitUntilExit()` waiting forever on a zombie while it holds a cooperative
/// thread. A blocking `waitpid` on the one pid cannot miss it: it returns at once if Foundation
/// already reaped the child (ECHILD), and otherwise as soon as the killed child is gone.
public enum ChildProcess {
    /// Writes `text` to a child's standard input. A child that has already exited (or closed its
    /// input) gets nothing: the write fails with EPIPE instead of raising SIGPIPE, which would end
    /// the whole test process.
    public static func send(_ text: String, to input: Pipe) {
        send(Data(text.utf8), to: input.fileHandleForWriting)
    }

    /// The same for bytes and the writing end of a child's input. SIGPIPE is blocked on this thread
    /// for the write and a SIGPIPE it raised is taken back, rather than ignored process-wide: an
    /// ignored signal would be inherited by every child the tests start after it.
    public static func send(_ bytes: Data, to input: FileHandle) {
        var brokenPipe = sigset_t()
        sigemptyset(&brokenPipe)
        sigaddset(&brokenPipe, SIGPIPE)
        var previous = sigset_t()
        pthread_sigmask(SIG_BLOCK, &brokenPipe, &previous)
        defer {
            var pending = sigset_t()
            if sigpending(&pending) == 0, sigismember(&pending, SIGPIPE) == 1 {
                var now = timespec()
                _ = sigtimedwait(&brokenPipe, nil, &now)
            }
            pthread_sigmask(SIG_SETMASK, &previous, nil)
        }
        try? input.write(contentsOf: bytes)
    }

    /// Starts `process` with no signal blocked, as from a shell. Foundation's `Process` hands the
    /// child the signal mask of the thread that starts it, and a test runs on a Dispatch worker
    /// thread, which blocks SIGTERM, SIGINT, SIGHUP and more: a script's `kill` of its own
    /// background job then never arrives (scripts/demo.sh and the providers quickstart left their
    /// dbus-daemon running after every test run). A signal sent to the test process meanwhile is
    /// handled as on its main thread.
    public static func run(_ process: Process) throws {
        var empty = sigset_t(), previous = sigset_t()
        sigemptyset(&empty)
        pthread_sigmask(SIG_SETMASK, &empty, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        try process.run()
    }

    /// Sends SIGKILL and reaps the child.
    public static func kill(_ process: Process) {
        let pid = process.processIdentifier
        guard pid > 0 else { return }
        Foundation.kill(pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
    }
}

extension ChildProcess {
    /// Reports the child's exit into `inbox` (exit code, or the signal number for a signalled
    /// child, as Foundation's `terminationStatus`) from a thread blocked in `waitpid`. Use it
    /// instead of a `terminationHandler`, after `run()`: if Foundation reaps the child first,
    /// the thread waits for Foundation's own status instead, so no SIGCHLD can be missed and the
    /// status is reported once.
    public static func reportExit(of process: Process, into inbox: Inbox<Int32>) {
        let pid = process.processIdentifier
        guard pid > 0 else { return }
        Thread {
            var status: Int32 = 0
            var result: pid_t
            repeat { result = waitpid(pid, &status, 0) } while result == -1 && errno == EINTR
            guard result == pid else {
                // Foundation reaped it: its state is final, so this wait ends at once.
                process.waitUntilExit()
                inbox.put(process.terminationStatus)
                return
            }
            let signal = status & 0x7f
            inbox.put(signal == 0 ? (status >> 8) & 0xff : signal)
        }.start()
    }

    /// Waits for the exit status `reportExit` delivers; a child still running after `timeout` is
    /// killed and the wait fails.
    public static func exitStatus(of process: Process, from inbox: Inbox<Int32>, within timeout: Duration) async throws -> Int32 {
        do {
            return try await inbox.next(within: timeout)
        } catch {
            Foundation.kill(process.processIdentifier, SIGKILL)
            throw error
        }
    }
}
