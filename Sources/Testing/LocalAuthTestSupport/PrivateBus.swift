// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthDBus
import Synchronization

/// A `dbus-daemon` of our own for one test, so tests run in parallel and never touch the
/// machine's buses.
///
/// `Foundation.Process` may hand its child a signal mask that blocks SIGTERM, so the daemon is
/// stopped with SIGKILL.
public final class PrivateBus: Sendable {
    public let address: String
    private let pid: Int32
    private let process: Mutex<Process?>
    /// Files the bus reads while it runs (its `system.d`), removed when it stops; nil for none.
    private let files: URL?

    /// A session-type bus that every local user may connect to, so tests can call as another uid.
    static let everyUserConfiguration = """
        <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
        <busconfig>
          <type>session</type>
          <listen>unix:tmpdir=/tmp</listen>
          <auth>EXTERNAL</auth>
          <policy context="default">
            <allow user="*"/>
            <allow send_destination="*" eavesdrop="true"/>
            <allow eavesdrop="true"/>
            <allow own="*"/>
          </policy>
        </busconfig>
        """

    /// Starts `dbus-daemon --session --nofork --print-address=1` and reads its address.
    /// - Parameter allowingEveryUser: let processes of other uids connect too.
    public convenience init(allowingEveryUser: Bool = false) throws {
        try self.init(configuration: allowingEveryUser ? Self.everyUserConfiguration : nil)
    }

    /// Starts a `dbus-daemon` with the given configuration text (nil: the standard session bus).
    public convenience init(configuration: String?) throws {
        try self.init(configuration: configuration, files: nil)
    }

    /// A system-type bus that loads `policies` as the system bus loads `system.d`: the machine's
    /// `system.conf` rules (deny owning names and method calls by default, allow signals and
    /// requested replies, allow everyone to connect), then each file of an `<includedir>`.
    ///
    /// - Parameter socketDirectory: where it listens (`unix:dir=`), for clients that cannot reach
    ///   `/tmp`'s abstract sockets (a daemon in its own network namespace, with a private `/tmp`);
    ///   nil: `unix:tmpdir=/tmp`.
    public static func system(policies: [SystemPolicy], socketDirectory: String? = nil) throws -> PrivateBus {
        let files = FileManager.default.temporaryDirectory.appendingPathComponent("system-bus-\(UUID().uuidString)")
        let included = files.appendingPathComponent("system.d")
        try FileManager.default.createDirectory(at: included, withIntermediateDirectories: true)
        for policy in policies {
            try policy.text.write(to: included.appendingPathComponent(policy.name), atomically: true, encoding: .utf8)
        }
        let listen = socketDirectory.map { "unix:dir=\($0)" } ?? "unix:tmpdir=/tmp"
        do {
            return try PrivateBus(configuration: systemConfiguration(listen: listen, includedir: included.path), files: files)
        } catch {
            try? FileManager.default.removeItem(at: files)
            throw error
        }
    }

    /// `/usr/share/dbus-1/system.conf` of dbus 1.14 without what a test bus must not do (become
    /// `messagebus`, fork, write a pid file, log to syslog, activate services through the setuid
    /// helper, read the machine's `system.d`).
    /// The rules of the system bus's default policy (deny by default, as /usr/share/dbus-1/system.conf)
    /// that test buses written out by hand share, one per line, to go inside `<policy context="default">`.
    public static let defaultRules = """
        <allow user="*"/>
        <deny own="*"/>
        <deny send_type="method_call"/>
        <allow send_type="signal"/>
        <allow send_requested_reply="true" send_type="method_return"/>
        <allow send_requested_reply="true" send_type="error"/>
        <allow receive_type="method_call"/>
        <allow receive_type="method_return"/>
        <allow receive_type="error"/>
        <allow receive_type="signal"/>
        <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus"/>
        <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Introspectable"/>
        """

    static func systemConfiguration(listen: String, includedir: String) -> String {
        """
        <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
        <busconfig>
          <type>system</type>
          <auth>EXTERNAL</auth>
          <listen>\(listen)</listen>
          <policy context="default">
            \(defaultRules)
            <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Properties"/>
            <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Containers1"/>
            <deny send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus"
                  send_member="UpdateActivationEnvironment"/>
            <deny send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Debug.Stats"/>
            <deny send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.systemd1.Activator"/>
          </policy>
          <policy user="root">
            <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Monitoring"/>
          </policy>
          <includedir>\(includedir)</includedir>
        </busconfig>
        """
    }

    private init(configuration: String?, files: URL?) throws {
        self.files = files
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
        process.arguments = ["--nofork", "--print-address=1", "--nopidfile"]
        if let configuration {
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("bus-\(UUID().uuidString).conf").path
            try configuration.write(toFile: path, atomically: true, encoding: .utf8)
            process.arguments! += ["--config-file=\(path)"]
        } else {
            process.arguments! += ["--session"]
        }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        // dbus-daemon prints the address once it listens; EOF means it died.
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            guard !chunk.isEmpty else {
                ChildProcess.kill(process)
                throw BusStartError(message: "dbus-daemon exited before printing its address")
            }
            line.append(chunk)
        }
        address = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        pid = process.processIdentifier
        self.process = Mutex(process)
    }

    /// Stops the daemon (SIGSTOP) until ``resume()``: it reads and routes nothing meanwhile, so
    /// what connections send piles up in their sockets and queues.
    public func suspend() {
        kill(pid, SIGSTOP)
    }

    /// Lets a suspended daemon go on (SIGCONT).
    public func resume() {
        kill(pid, SIGCONT)
    }

    /// Kills the daemon; every connection to it sees `Disconnected`.
    public func stop() {
        guard let process = process.withLock({ p in defer { p = nil }; return p }) else { return }
        ChildProcess.kill(process)
        if let files { try? FileManager.default.removeItem(at: files) }
    }

    deinit { stop() }

    public func connect() async throws -> DBusConnection {
        try await DBusConnection.connect(to: .address(address))
    }

    public struct BusStartError: Error { public let message: String }
}

/// Runs `body` with a fresh private bus and stops the bus afterwards, even on failure.
public func withPrivateBus<T: Sendable>(allowingEveryUser: Bool = false, _ body: (PrivateBus) async throws -> T) async throws -> T {
    let bus = try PrivateBus(allowingEveryUser: allowingEveryUser)
    defer { bus.stop() }
    return try await body(bus)
}

/// Collects values delivered from handlers so a test can await them one by one, each with a
/// bound on the wait so a missing value fails the test instead of hanging it. The default bound is
/// a minute: the whole suite runs in parallel on two cores, where "about a second" can take 15.
public final class Inbox<Element: Sendable>: Sendable {
    private let stream: AsyncStream<Element>
    private let continuation: AsyncStream<Element>.Continuation
    private let log = Mutex<[Element]>([])

    public init() {
        (stream, continuation) = AsyncStream.makeStream()
    }

    public func put(_ element: Element) {
        log.withLock { $0.append(element) }
        continuation.yield(element)
    }

    /// Everything put so far, awaited or not.
    public var received: [Element] { log.withLock { $0 } }

    public func next(within timeout: Duration = .seconds(60)) async throws -> Element {
        let stream = stream
        let result = await withTaskGroup(of: Element?.self) { group in
            group.addTask {
                var iterator = stream.makeAsyncIterator()
                return await iterator.next()
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return nil
            }
            let first = await group.next()!
            group.cancelAll()
            return first
        }
        guard let result else { throw TimedOut(what: "\(Element.self) within \(timeout)") }
        return result
    }

    public struct TimedOut: Error {
        public let what: String
        public init(what: String) { self.what = what }
    }
}

/// Runs an external program (with no signal blocked: ``ChildProcess/run(_:)``), returning its exit
/// status and standard output (and error); killed after `timeout`. `environment` is added to the
/// test's own.
public func runTool(_ path: String, _ arguments: [String], environment: [String: String] = [:],
                    timeout: Duration = .seconds(10)) async throws -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    if !environment.isEmpty {
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    }
    let output = Pipe()
    process.standardOutput = output
    process.standardError = output
    let exited = Inbox<Int32>()
    try ChildProcess.run(process)
    ChildProcess.reportExit(of: process, into: exited)
    let status = try await ChildProcess.exitStatus(of: process, from: exited, within: timeout)
    let data = output.fileHandleForReading.readDataToEndOfFile()
    return (status, String(decoding: data, as: UTF8.self))
}
