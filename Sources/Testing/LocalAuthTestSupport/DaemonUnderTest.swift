// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthAPI
import LocalAuthDBus
import LocalAuthProxies
import Synchronization
import Testing

/// The real `localauthd` binary on a private bus with a temporary state directory.
///
/// `start()` returns once the daemon owns its bus name (seen as a NameOwnerChanged signal, not by
/// sleeping). Stopped with SIGKILL unless a test asks for SIGTERM; state survives in `stateDirectory`
/// so a test can start a second daemon over it.
public final class DaemonUnderTest: Sendable {

    /// The directory of the test bundle, where SwiftPM puts the built `localauthd` too.
    public static var binary: String {
        let testBinary = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var directory = testBinary.deletingLastPathComponent()
        if directory.lastPathComponent.hasSuffix(".xctest") { directory.deleteLastPathComponent() }
        return directory.appendingPathComponent("localauthd").path
    }

    public let bus: PrivateBus
    public let stateDirectory: String
    public let configPath: String
    private let process: Mutex<Process?> = Mutex(nil)
    public let log: String
    /// Holds the configuration, the log and (unless given) the state; removed with this object.
    private let scratch: URL

    /// - Parameter configuration: lines for localauthd.conf.
    public init(bus: PrivateBus, stateDirectory: String? = nil, configuration: String = "") throws {
        self.bus = bus
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("localauthd-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        self.stateDirectory = stateDirectory ?? scratch.appendingPathComponent("state").path
        self.scratch = scratch
        configPath = scratch.appendingPathComponent("localauthd.conf").path
        log = scratch.appendingPathComponent("daemon.log").path
        // Tests written before agents drive passcodes from the app; tests of agents say `false`.
        var configuration = configuration.contains("app_passcode_entry") ? configuration : "app_passcode_entry = true\n" + configuration
        if !configuration.contains("face_consent") { configuration = "face_consent = false\n" + configuration }
        try configuration.write(toFile: configPath, atomically: true, encoding: .utf8)
    }

    /// Starts the daemon and waits until it owns its name.
    /// - Parameters: `environment` is added to the test's own; `arguments` follow the standard ones;
    ///   `launcher` runs the daemon (`setpriv` with its options, say), given its path and arguments.
    public func start(watcher: DBusConnection, environment: [String: String] = [:], arguments: [String] = [],
                      launcher: [String] = []) async throws {
        let owned = Inbox<String>()
        let subscription = try await watcher.watchNameOwners(LocalAuthBusNames.busName) { change in
            if let owner = change.newOwner { owned.put(owner) }
        }
        defer { watcher.unsubscribe(subscription) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: launcher.first ?? Self.binary)
        process.arguments = (launcher.isEmpty ? [] : launcher.dropFirst() + [Self.binary])
            + ["--address", bus.address, "--state-dir", stateDirectory, "--config", configPath] + arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        output.seekToEndOfFile()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        self.process.withLock { $0 = process }
        _ = try await owned.next(within: .seconds(60))
    }

    /// SIGKILL: a crash, as far as the daemon can tell.
    public func kill() {
        guard let process = process.withLock({ p in defer { p = nil }; return p }) else { return }
        ChildProcess.kill(process)
    }

    /// Sends `signal` (e.g. SIGHUP) to the running daemon.
    public func send(_ signal: Int32) {
        guard let process = process.withLock({ $0 }) else { return }
        Foundation.kill(process.processIdentifier, signal)
    }

    /// SIGTERM and wait for the exit status (bounded).
    public func terminate() async throws -> Int32 {
        guard let process = process.withLock({ $0 }) else { return -1 }
        let exited = Inbox<Int32>()
        if !process.isRunning { return process.terminationStatus }
        ChildProcess.reportExit(of: process, into: exited)
        Foundation.kill(process.processIdentifier, SIGTERM)
        let status = try await exited.next(within: .seconds(60))
        self.process.withLock { $0 = nil }
        return status
    }

    public var logText: String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }

    deinit {
        kill()
        try? FileManager.default.removeItem(at: scratch)
    }
}

/// A client of the daemon: one bus connection, the typed proxies of LocalAuthProxies, and raw
/// calls by member name for tests that probe what the daemon does with what a proxy would refuse.
public struct Client: Sendable {
    public let connection: DBusConnection

    public init(_ bus: PrivateBus) async throws {
        connection = try await bus.connect()
    }

    public var managerProxy: ManagerProxy { ManagerProxy(connection) }
    public var simulatorProxy: SimulatorProxy { SimulatorProxy(connection) }
    public func contextProxy(_ path: String) -> ContextProxy { ContextProxy(connection, path: path) }

    /// A Manager call by name, sent as given (not checked against the contract).
    public func manager(_ member: String, _ arguments: [DBusValue] = []) async throws -> [DBusValue] {
        try await connection.call(destination: LocalAuthBusNames.busName, path: LocalAuthBusNames.managerPath,
                                  interface: LocalAuthInterface.manager.name, member: member, arguments: arguments)
    }

    public func createContext(_ options: [String: DBusValue] = [:]) async throws -> String {
        try await managerProxy.createContext(options: options)
    }

    /// A Context call by name, sent as given (not checked against the contract).
    public func context(_ path: String, _ member: String, _ arguments: [DBusValue] = [], timeout: Duration = .seconds(25)) async throws -> [DBusValue] {
        try await connection.call(destination: LocalAuthBusNames.busName, path: path, interface: LocalAuthInterface.context.name,
                                  member: member, arguments: arguments, timeout: timeout)
    }

    /// A Simulator call by name, checked against the contract.
    public func simulator(_ member: String, _ arguments: [DBusValue] = []) async throws {
        _ = try await simulatorProxy.proxy.call(member, arguments)
    }

    /// A Context property, checked against the contract.
    public func property(_ path: String, _ name: String) async throws -> DBusValue {
        try await contextProxy(path).property(name)
    }

    /// Starts an evaluation and returns once the daemon has prompted for it (so later calls find it
    /// running); the task gives the D-Bus error name it ended with, nil on success.
    public func begin(_ context: String, policy: UInt32, reason: String = "test") async throws -> Task<String?, Never> {
        let prompted = Inbox<String>()
        let subscription = try await connection.subscribe(
            DBusMatchRule(path: context, interface: LocalAuthBusNames.contextInterface, member: "Prompt")) { signal in
            prompted.put(signal.arguments.first?.string ?? "")
        }
        defer { connection.unsubscribe(subscription) }
        let task = Task { await errorName { _ = try await self.context(context, "EvaluatePolicy", [.uint32(policy), .string(reason)]) } }
        _ = try await prompted.next(within: .seconds(60))
        return task
    }

    public func userState() async throws -> [String: DBusValue] {
        try await managerProxy.userState()
    }

    /// Sets a passcode and enrolls, through the API.
    public func setUp(passcode: String = "4711-secret", fingers: [String] = [], faces: [String] = []) async throws {
        let manager = managerProxy
        try await manager.setPasscode(current: .string(""), new: .string(passcode))
        for finger in fingers { try await manager.enroll(modality: "fingerprint", label: finger, passcode: .string(passcode)) }
        for face in faces { try await manager.enroll(modality: "face", label: face, passcode: .string(passcode)) }
    }
}

/// The D-Bus error name a call failed with, or nil if it succeeded.
public func errorName(_ body: () async throws -> Void) async -> String? {
    do {
        try await body()
        return nil
    } catch let error as DBusError {
        return error.name.rawValue
    } catch {
        return "\(error)"
    }
}

/// Starts a private bus and a daemon, runs `body`, and stops both.
/// - Parameter installedPolicy: a system-type bus with the installed policy files
///   (``PrivateBus/system(policies:socketDirectory:)``), which lets every user connect too.
public func withDaemon<T: Sendable>(configuration: String = "", allowingEveryUser: Bool = false, installedPolicy: Bool = false,
                              _ body: (DaemonUnderTest, PrivateBus) async throws -> T) async throws -> T {
    let bus = installedPolicy ? try PrivateBus.system(policies: try SystemPolicy.installed()) : try PrivateBus(allowingEveryUser: allowingEveryUser)
    defer { bus.stop() }
    let daemon = try DaemonUnderTest(bus: bus, configuration: configuration)
    let watcher = try await bus.connect()
    defer { watcher.close(); daemon.kill() }
    try await daemon.start(watcher: watcher)
    return try await body(daemon, bus)
}
