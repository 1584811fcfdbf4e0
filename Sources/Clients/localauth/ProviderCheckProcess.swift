// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif

/// A child of `localauth provider check` (the private `dbus-daemon`, the provider under test),
/// started with `posix_spawn` like localauthd starts a provider: no shell, standard input from
/// /dev/null, an empty signal mask and default signal actions, the given environment added to ours.
/// An empty mask matters: a `localauth` started by a program whose threads block SIGTERM (Foundation's
/// `Process` passes its thread's mask on) would otherwise hand a dbus-daemon that SIGTERM cannot stop.
final class ProviderCheckProcess {
    let pid: pid_t
    /// Set once waitpid has reaped it: its pid may belong to someone else after that.
    private var reaped = false

    /// Starts `command` (an absolute path, then its arguments). With `captureOutput` its stdout is
    /// a pipe read by ``readLine()`` and its stderr goes nowhere (the private dbus-daemon's chatter);
    /// otherwise it shares our stderr for both, so the vendor sees what the provider prints.
    /// `group` is the process group it joins (0: a new one that it leads); `input`, when not -1, is
    /// the descriptor it gets as standard input instead of /dev/null.
    init(_ command: [String], environment: [String: String] = [:], captureOutput: Bool = false,
         group: pid_t = 0, input: Int32 = -1) throws(CLIError) {
        guard let executable = command.first else { throw .usage("an empty command line") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if input >= 0 {
            posix_spawn_file_actions_adddup2(&actions, input, 0)
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        var pipeEnds: [Int32] = [-1, -1]
        if captureOutput {
            guard pipe(&pipeEnds) == 0 else { throw .failed("cannot make a pipe: \(String(cString: strerror(errno)))") }
            // Only the child's stdout: the read end must not leak into the provider.
            _ = fcntl(pipeEnds[0], F_SETFD, FD_CLOEXEC)
            posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 1)
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        } else {
            posix_spawn_file_actions_adddup2(&actions, 2, 1)
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t(), all = sigset_t()
        sigemptyset(&empty)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setpgroup(&attributes, group)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))

        var variables: [String: String] = [:]
        var entry = environ
        while let pointer = entry.pointee {
            let text = String(cString: pointer)
            if let equals = text.firstIndex(of: "=") { variables[String(text[..<equals])] = String(text[text.index(after: equals)...]) }
            entry += 1
        }
        variables.merge(environment) { $1 }
        let argv = command.map { strdup($0) } + [nil]
        let envp = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var child: pid_t = 0
        let status = posix_spawn(&child, executable, &actions, &attributes, argv, envp)
        if captureOutput { close(pipeEnds[1]) }
        guard status == 0 else {
            if captureOutput { close(pipeEnds[0]) }
            throw .failed("cannot run \(executable): \(String(cString: strerror(status)))")
        }
        pid = child
        output = captureOutput ? pipeEnds[0] : -1
    }

    /// The read end of the child's stdout, or -1.
    private let output: Int32

    /// The next line the child writes to stdout (blocking); nil at end of file.
    func readLine() -> String? {
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            let count = read(output, &byte, 1)
            if count < 0, errno == EINTR { continue }
            guard count == 1 else { return line.isEmpty ? nil : String(decoding: line, as: UTF8.self) }
            if byte == UInt8(ascii: "\n") { return String(decoding: line, as: UTF8.self) }
            line.append(byte)
        }
    }

    /// Whether it has exited (reaping it if so); its wait status then.
    func exited() -> Int32? {
        guard !reaped else { return 0 }
        var status: Int32 = 0
        guard waitpid(pid, &status, WNOHANG) == pid else { return nil }
        reaped = true
        return status
    }

    /// SIGTERM (unless `terminate` is false: it is ending by itself), SIGKILL after a second if it
    /// is still there, and reaps it.
    func stop(terminate: Bool = true) {
        guard exited() == nil else { return }
        if terminate { kill(pid, SIGTERM) }
        for _ in 0..<20 {
            if exited() != nil { return }
            usleep(50_000)
        }
        kill(pid, SIGKILL)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        reaped = true
    }

    deinit {
        if output >= 0 { close(output) }
    }
}

/// Everything `localauth provider check` starts (the private bus, the provider under test), in a
/// process group of their own led by a sentry: a `/bin/sh` that reads a pipe whose writing end only
/// this process holds, then kills its whole group. ``stop()`` ends the children in order (the check's
/// teardown, Ctrl-C, SIGTERM); when this process ends any other way (SIGKILL, a crash, an `exit()`
/// that skips the teardown) the kernel closes the pipe and the sentry ends them, so no dbus-daemon
/// or provider outlives the command. A group, unlike a pid that was reaped, cannot come to name
/// someone else's processes while its leader, the sentry, lives.
@MainActor
final class ProviderCheckChildren {
    private var processes: [ProviderCheckProcess] = []
    private var sentry: ProviderCheckProcess?
    /// The writing end of the sentry's standard input (close-on-exec: no child holds it); -1 without a sentry.
    private var sentryInput: Int32 = -1

    /// Starts `command` in the group (see ``ProviderCheckProcess/init(_:environment:captureOutput:group:input:)``),
    /// the sentry first if there is none yet.
    func start(_ command: [String], environment: [String: String] = [:], captureOutput: Bool = false) throws(CLIError) -> ProviderCheckProcess {
        let group: pid_t
        if let sentry { group = sentry.pid } else { group = try startSentry() }
        let process = try ProviderCheckProcess(command, environment: environment, captureOutput: captureOutput, group: group)
        processes.append(process)
        return process
    }

    private func startSentry() throws(CLIError) -> pid_t {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw .failed("cannot make a pipe: \(String(cString: strerror(errno)))") }
        // Only the sentry may hold the reading end (as its standard input), only we the writing end.
        // (No pipe2 in Glibc's module; the check starts its children from the main actor alone.)
        ends.forEach { _ = fcntl($0, F_SETFD, FD_CLOEXEC) }
        defer { close(ends[0]) }
        let sentry: ProviderCheckProcess
        do {
            sentry = try ProviderCheckProcess(["/bin/sh", "-c", "while read -r line; do :; done; kill -KILL 0"], input: ends[0])
        } catch {
            close(ends[1])
            throw error
        }
        self.sentry = sentry
        sentryInput = ends[1]
        return sentry.pid
    }

    /// Stops the children, last started first, then lets the sentry end whatever is left of the group.
    func stop() {
        processes.reversed().forEach { $0.stop() }
        processes.removeAll()
        guard let sentry else { return }
        close(sentryInput)
        sentryInput = -1
        sentry.stop(terminate: false)
        self.sentry = nil
    }
}
