// SPDX-License-Identifier: Apache-2.0
import Dispatch
import LocalAuthCore
import LocalAuthSystem
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The daemon's own start mode (a descriptor with `Exec=`): starts the provider on the daemon's
/// bus, restarts it with backoff when it exits, and ends it on shutdown. The provider learns the
/// bus from `DBUS_STARTER_ADDRESS`, as a bus-activated one does, so both modes run the same program.
///
/// Spawned with `posix_spawn`, an empty signal mask and default signal actions (the daemon ignores
/// SIGTERM/SIGHUP/SIGPIPE for its own handling; a child must not inherit that). A serial queue of
/// its own blocks in `waitpid` and notices the exit. All state is behind `state`'s mutex.
final class ProviderProcess: Sendable {
    /// Where restarts wait: a serial queue, never `.global()` (docs/architecture.md, "Threads").
    private static let restarts = DispatchQueue(label: "localauthd.provider-restarts")
    typealias Log = @Sendable (AuditEntry.Severity, String) -> Void

    /// First restart delay; doubled after each exit that follows a start by less than
    /// ``stableAfter``, up to ``maximumDelay``.
    static let initialDelay = 0.5
    static let maximumDelay = 30.0
    static let stableAfter = 30.0

    private struct State {
        var pid: pid_t?
        var started = ContinuousClock.now
        var delay = ProviderProcess.initialDelay
        var stopped = false
    }

    private let descriptor: ProviderDescriptor
    private let busAddress: String
    private let log: Log
    private let state = Mutex(State())
    /// Blocks in `waitpid` for the running child.
    private let reaper: DispatchQueue

    init(descriptor: ProviderDescriptor, busAddress: String, log: @escaping Log) {
        self.descriptor = descriptor
        self.busAddress = busAddress
        self.log = log
        reaper = DispatchQueue(label: "localauthd.provider.\(descriptor.id).wait")
    }

    /// The running child's pid, if any.
    var pid: pid_t? { state.withLock { $0.pid } }

    /// Starts the provider (once; afterwards it is restarted on exit until ``stop()``).
    func start() {
        spawn()
    }

    /// Ends a provider that stopped answering; it is restarted like one that crashed.
    func kill(because reason: String) {
        guard let pid = state.withLock({ $0.pid }) else { return }
        log(.warning, "provider \(descriptor.id): killing pid \(pid) (\(reason))")
        Glibc.kill(pid, SIGKILL)
    }

    /// Stops restarting and ends the provider: SIGTERM, then SIGKILL after a second.
    func stop() {
        let pid = state.withLock { state -> pid_t? in
            state.stopped = true
            return state.pid
        }
        guard let pid else { return }
        Glibc.kill(pid, SIGTERM)
        for _ in 0..<20 {
            if state.withLock({ $0.pid }) == nil { return }
            usleep(50_000)
        }
        Glibc.kill(pid, SIGKILL)
    }

    private func spawn() {
        guard let command = descriptor.exec, !state.withLock({ $0.stopped }) else { return }
        let added = ["DBUS_STARTER_ADDRESS": busAddress, "DBUS_STARTER_BUS_TYPE": "system", "LOCALAUTH_PROVIDER_ID": descriptor.id]
        var environment = Self.inheritedEnvironment().filter { entry in !added.keys.contains { entry.hasPrefix($0 + "=") } }
        environment += added.map { "\($0.key)=\($0.value)" }
        let pid: pid_t
        do { pid = try Self.spawn(command, environment: environment) } catch {
            log(.error, "provider \(descriptor.id): cannot start \(command[0]): \(error.message); check Exec= in \(descriptor.path)")
            scheduleRestart(after: state.withLock { $0.delay })
            return
        }
        state.withLock { state in
            state.pid = pid
            state.started = .now
        }
        log(.notice, "provider \(descriptor.id): started \(command.joined(separator: " ")) as pid \(pid)")
        let id = descriptor.id
        reaper.async { [weak self] in
            var status: Int32 = 0
            while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
            self?.exited(pid, status: status, id: id)
        }
    }

    private func exited(_ pid: pid_t, status: Int32, id: String) {
        let signal = status & 0x7f
        let how = signal == 0 ? "exited with status \((status >> 8) & 0xff)" : "was killed by signal \(signal)"
        let (stopped, delay): (Bool, Double) = state.withLock { state in
            state.pid = nil
            let ran = ContinuousClock.now - state.started
            if ran > .seconds(Self.stableAfter) { state.delay = Self.initialDelay }
            let delay = state.delay
            state.delay = min(state.delay * 2, Self.maximumDelay)
            return (state.stopped, delay)
        }
        guard !stopped else {
            log(.info, "provider \(id): pid \(pid) \(how) at shutdown")
            return
        }
        log(.warning, "provider \(id): pid \(pid) \(how); restarting in \(delay) s")
        scheduleRestart(after: delay)
    }

    private func scheduleRestart(after delay: Double) {
        Self.restarts.asyncAfter(deadline: .now() + delay) { [weak self] in self?.spawn() }
    }

    struct SpawnError: Error {
        let message: String
    }

    /// The daemon's environment as `NAME=value` strings.
    private static func inheritedEnvironment() -> [String] {
        var result: [String] = []
        var entry = environ
        while let pointer = entry.pointee {
            result.append(String(cString: pointer))
            entry += 1
        }
        return result
    }

    private static func spawn(_ command: [String], environment: [String]) throws(SpawnError) -> pid_t {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t(), all = sigset_t()
        sigemptyset(&empty)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        let arguments = command.map { strdup($0) } + [nil]
        let variables = environment.map { strdup($0) } + [nil]
        defer {
            arguments.forEach { free($0) }
            variables.forEach { free($0) }
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, command[0], &actions, &attributes, arguments, variables)
        guard result == 0 else { throw SpawnError(message: String(cString: strerror(result))) }
        return pid
    }
}
