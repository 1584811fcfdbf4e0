// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthAPI
import LocalAuthDBus
import Synchronization

/// localauthd as a package install runs it: the built binary with `ExecStart=`'s arguments, under
/// the confinement of `systemd/localauthd.service` (``SandboxEmulation``), as root, on a private
/// system-type bus that loads the installed policy files (``PrivateBus/system(policies:socketDirectory:)``),
/// with the package's configuration file (`config/localauthd.conf`, where a test may change keys).
///
/// Its files live under `/run/localauthd-test-…` rather than `/tmp`: the unit gives the daemon a
/// private `/tmp` and network namespace, so the bus listens on a path socket there, as the system
/// bus does in `/run/dbus`. Needs root (namespaces, mounts, setpriv); ``unsupportedReason`` says
/// when it cannot run. Killed with SIGKILL unless a test asks for SIGTERM.
public final class ConfinedDaemon: Sendable {
    public static let unitName = "localauthd.service"

    /// Why the confined daemon cannot run here, nil when it can.
    public static var unsupportedReason: String? {
        if getuid() != 0 { return "emulating the unit's sandbox needs root (mount and pid namespaces, setpriv)" }
        for tool in ["/usr/bin/unshare", "/usr/bin/setpriv", "/usr/bin/env", "/bin/sh"] where !FileManager.default.isExecutableFile(atPath: tool) {
            return "\(tool) is missing"
        }
        return nil
    }

    /// This boot's id as the kernel gives it (`/proc/sys/kernel/random/boot_id`), for `%b`.
    public static var bootID: String {
        ((try? String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8)) ?? "")
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    public let bus: PrivateBus
    public let emulation: SandboxEmulation
    /// Holds the bus socket, the configuration directory, the state directory and the log.
    public let directory: URL
    public let stateDirectory: String
    public let configPath: String
    public let log: String
    private let process = Mutex<Process?>(nil)

    /// - Parameters:
    ///   - configuration: keys of `config/localauthd.conf` to change (or add), and their values.
    ///   - emulation: the sandbox; the shipped unit's unless a test changes it to show what a
    ///     directive does.
    public init(configuration: [String: String] = [:], emulation: SandboxEmulation? = nil) throws {
        self.emulation = try emulation ?? SandboxEmulation.localauthd()
        directory = URL(fileURLWithPath: "/run/localauthd-test-\(UUID().uuidString)")
        let socketDirectory = directory.appendingPathComponent("bus")
        let configurationDirectory = directory.appendingPathComponent("etc")
        for sub in [socketDirectory, configurationDirectory] {
            try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory.path)
        stateDirectory = directory.appendingPathComponent("state").path
        configPath = configurationDirectory.appendingPathComponent("localauthd.conf").path
        log = directory.appendingPathComponent("daemon.log").path
        let packaged = try String(contentsOf: SystemPolicy.repositoryRoot.appendingPathComponent("config/localauthd.conf"), encoding: .utf8)
        try Self.configuration(packaged, changing: configuration).write(toFile: configPath, atomically: true, encoding: .utf8)
        do {
            bus = try PrivateBus.system(policies: try SystemPolicy.installed(), socketDirectory: socketDirectory.path)
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
    }

    /// `packaged` with each `key = value` line of `changes` replaced, and the keys it lacks appended.
    static func configuration(_ packaged: String, changing changes: [String: String]) -> String {
        var remaining = changes
        var lines = packaged.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            let key = line.split(separator: "=", maxSplits: 1).first?.trimmingCharacters(in: .whitespaces) ?? ""
            guard !line.hasPrefix("#"), let value = remaining.removeValue(forKey: key) else { return String(line) }
            return "\(key) = \(value)"
        }
        lines += remaining.keys.sorted().map { "\($0) = \(remaining[$0]!)" }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The command line that starts the daemon: the unit's ExecStart with the built binary, and
    /// `--config` naming the test's file (a package's is `/etc/localauthd/localauthd.conf`).
    public var command: [String] {
        get throws {
            let arguments = Array(emulation.execStart.dropFirst()) + ["--config", configPath]
            return try emulation.launcher(
                daemon: DaemonUnderTest.binary, arguments: arguments, stateDirectory: stateDirectory,
                scratch: directory.path,
                environment: [
                    "STATE_DIRECTORY": stateDirectory,
                    "CONFIGURATION_DIRECTORY": URL(fileURLWithPath: configPath).deletingLastPathComponent().path,
                    "DBUS_SYSTEM_BUS_ADDRESS": bus.address,
                ],
                bootID: Self.bootID, unitName: Self.unitName)
        }
    }

    /// Starts the daemon (again, after `kill`) and waits until it owns its name; throws
    /// ``StartError`` with its log if it exits first or takes more than a minute.
    public func start(watcher: DBusConnection) async throws {
        let outcome = Inbox<String?>()
        let subscription = try await watcher.watchNameOwners(LocalAuthBusNames.busName) { change in
            if change.newOwner != nil { outcome.put(nil) }
        }
        defer { watcher.unsubscribe(subscription) }
        let command = try command
        let process = Process()
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        output.seekToEndOfFile()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        self.process.withLock { $0 = process }
        let exited = Inbox<Int32>()
        ChildProcess.reportExit(of: process, into: exited)
        Task { if let status = try? await exited.next(within: .seconds(3600)) { outcome.put("exited with status \(status)") } }
        let failure: String?
        do {
            failure = try await outcome.next(within: .seconds(60))
        } catch {
            failure = "did not take its name within 60 s"
        }
        if let failure { throw StartError(message: "the confined daemon \(failure); its log:\n\(logText)") }
    }

    /// The daemon's process id (the launcher execs into it), nil when it is not running.
    public var pid: Int32? { process.withLock { $0?.processIdentifier } }

    /// SIGKILL: a crash, as far as the daemon can tell.
    public func kill() {
        guard let process = process.withLock({ p in defer { p = nil }; return p }) else { return }
        ChildProcess.kill(process)
    }

    public var logText: String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }

    deinit {
        kill()
        bus.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    public struct StartError: Error, CustomStringConvertible {
        public let message: String
        public var description: String { message }
    }
}
