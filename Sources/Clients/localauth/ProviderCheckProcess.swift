// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif

/// A child of `localauth provider check` (the private `dbus-daemon`, the provider under test),
/// started with `posix_spawn` like localauthd starts a provider: no shell, an empty signal mask
/// and default signal actions, the given environment added to ours.
final class ProviderCheckProcess {
    let pid: pid_t
    /// Set once waitpid has reaped it: its pid may belong to someone else after that.
    private var reaped = false

    /// Starts `command` (an absolute path, then its arguments). With `captureOutput` its stdout is
    /// a pipe read by ``readLine()`` and its stderr goes nowhere (the private dbus-daemon's chatter);
    /// otherwise it shares our stderr for both, so the vendor sees what the provider prints.
    init(_ command: [String], environment: [String: String] = [:], captureOutput: Bool = false) throws(CLIError) {
        guard let executable = command.first else { throw .usage("an empty command line") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
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
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

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

    /// SIGTERM, SIGKILL after a second if it is still there, and reaps it.
    func stop() {
        guard exited() == nil else { return }
        kill(pid, SIGTERM)
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
