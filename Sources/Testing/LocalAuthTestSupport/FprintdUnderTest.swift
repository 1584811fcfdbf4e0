// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthDBus
import Synchronization

/// Real fprintd (Debian's `fprintd`, `libfprint-2-2`) with libfprint's `virtual_device` driver on a
/// private bus, for tests without a fingerprint reader.
///
/// fprintd insists on the system bus, so it gets `DBUS_SYSTEM_BUS_ADDRESS` = the private bus (a
/// system-type one with the installed policies: ``PrivateBus/system(policies:socketDirectory:)``
/// with ``SystemPolicy/installed()``, which has fprintd's and polkit's own). polkit
/// is python3-dbusmock's `polkitd` template on the same bus, allowing fprintd's three actions unless
/// a test says otherwise. fprintd keeps prints under `STATE_DIRECTORY` in a temporary directory.
///
/// The virtual reader listens on a Unix socket (`FP_VIRTUAL_DEVICE`) only while a client has it
/// claimed (libfprint opens the device on Claim and closes it on Release). Each connection carries
/// one command (libfprint's `drivers/virtual-device.c`): `SCAN <print-id>` (a finger touches; the
/// same id enrolls and then matches), `RETRY <n>` (0 general → verify-retry-scan, 1 too short,
/// 2 not centred, 3 remove and retry), `ERROR <n>` (a device error; 0 → verify-unknown-error), `UNPLUG`
/// (the reader goes away), `LIST`.
public final class FprintdUnderTest: Sendable {
    public static let busName = "net.reactivated.Fprint"
    public static let binary = "/usr/libexec/fprintd"
    public static let actions = [
        "net.reactivated.fprint.device.verify", "net.reactivated.fprint.device.enroll", "net.reactivated.fprint.device.setusername",
    ]

    /// Whether Debian's fprintd and python3-dbusmock are installed (`make deps` installs them).
    public static var isInstalled: Bool {
        FileManager.default.isExecutableFile(atPath: binary)
            && FileManager.default.fileExists(atPath: "/usr/lib/python3/dist-packages/dbusmock/templates/polkitd.py")
    }

    public let bus: PrivateBus
    /// Holds the state directory, the runtime directory, the socket and the logs.
    public let directory: URL
    /// The virtual reader's command socket.
    public let socketPath: String
    private let fprintd = Mutex<Process?>(nil)
    private let polkit = Mutex<Process?>(nil)

    /// Starts polkit's mock and fprintd on `bus`; returns once both own their names.
    /// - Parameter allowed: the polkit actions the mock grants (all three of fprintd's by default).
    public init(bus: PrivateBus, watcher: DBusConnection, allowed: [String] = FprintdUnderTest.actions) async throws {
        self.bus = bus
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("fprintd-test-\(UUID().uuidString)")
        socketPath = directory.appendingPathComponent("virtual-device").path
        for sub in ["state", "run"] {
            try FileManager.default.createDirectory(at: directory.appendingPathComponent(sub), withIntermediateDirectories: true)
        }
        let mock = try await Self.launch(
            "/usr/bin/python3", ["-m", "dbusmock", "--system", "--template", "polkitd"],
            environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address], log: directory.appendingPathComponent("polkitd.log"),
            owning: "org.freedesktop.PolicyKit1", watcher: watcher)
        polkit.withLock { $0 = mock }
        _ = try await watcher.call(
            destination: "org.freedesktop.PolicyKit1", path: "/org/freedesktop/PolicyKit1/Authority",
            interface: "org.freedesktop.DBus.Mock", member: "SetAllowed", arguments: [.strings(allowed)])
        try await startFprintd(watcher: watcher)
    }

    /// Starts fprintd (again, after `killFprintd`) and waits until it owns its name.
    public func startFprintd(watcher: DBusConnection) async throws {
        let process = try await Self.launch(
            Self.binary, ["--no-timeout"],
            environment: [
                "DBUS_SYSTEM_BUS_ADDRESS": bus.address,
                "FP_VIRTUAL_DEVICE": socketPath,
                "FP_DRIVERS_WHITELIST": "virtual_device",
                "STATE_DIRECTORY": directory.appendingPathComponent("state").path,
                "RUNTIME_DIRECTORY": directory.appendingPathComponent("run").path,
                "G_MESSAGES_DEBUG": "all",
            ],
            log: directory.appendingPathComponent("fprintd.log"), owning: Self.busName, watcher: watcher)
        fprintd.withLock { $0 = process }
    }

    /// Sends `signal` to fprintd (SIGSTOP: it hangs; SIGCONT: it goes on).
    public func signalFprintd(_ signal: Int32) {
        guard let process = fprintd.withLock({ $0 }) else { return }
        kill(process.processIdentifier, signal)
    }

    /// SIGKILL: fprintd crashes; its claims die with it.
    public func killFprintd() {
        guard let process = fprintd.withLock({ p in defer { p = nil }; return p }) else { return }
        ChildProcess.kill(process)
    }

    /// Sends one command to the virtual reader and returns its answer (only LIST answers). The
    /// socket exists only while the reader is claimed; a refused connection is retried for up to a
    /// minute (a loaded machine), so a test may send a touch before the client under test has
    /// claimed the reader. Between tries it sleeps as a task, not its thread: on two cores the
    /// cooperative pool has two threads, and the claim it waits for may need the other one.
    @discardableResult
    public func send(_ command: String) async throws -> String {
        let deadline = ContinuousClock.now + .seconds(60)
        while true {
            do {
                return try Self.exchange(command, at: socketPath)
            } catch let error as VirtualDeviceError where error.retryable && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(10))
            }
        }
    }

    /// Whether libfprint has the reader open, which fprintd does exactly while a client holds the
    /// claim: the virtual reader's socket accepts connections only then. Unlike `isClaimed` this
    /// takes nothing from the client under test, so a test may poll it.
    public var isOpen: Bool {
        (try? Self.exchange("", at: socketPath)) != nil
    }

    /// Whether some client holds the reader: tries to claim it from a connection of its own (and
    /// releases at once). fprintd answers AlreadyInUse while another client holds the claim.
    public func isClaimed(user: String) async throws -> Bool {
        let connection = try await bus.connect()
        defer { connection.close() }
        let device = try await connection.call(
            destination: Self.busName, path: "/net/reactivated/Fprint/Manager", interface: "net.reactivated.Fprint.Manager",
            member: "GetDefaultDevice"
        ).first?.objectPath ?? ""
        do {
            _ = try await connection.call(
                destination: Self.busName, path: device, interface: "net.reactivated.Fprint.Device", member: "Claim", arguments: [.string(user)])
        } catch let error as DBusError where error.name.rawValue == "net.reactivated.Fprint.Error.AlreadyInUse" {
            return true
        }
        _ = try await connection.call(destination: Self.busName, path: device, interface: "net.reactivated.Fprint.Device", member: "Release")
        return false
    }

    public var logText: String {
        (try? String(contentsOf: directory.appendingPathComponent("fprintd.log"), encoding: .utf8)) ?? ""
    }

    public func stop() {
        killFprintd()
        if let process = polkit.withLock({ p in defer { p = nil }; return p }) { ChildProcess.kill(process) }
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: directory)
    }

    public struct VirtualDeviceError: Error, CustomStringConvertible {
        public let description: String
        let retryable: Bool
    }

    private static func exchange(_ command: String, at path: String) throws -> String {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw VirtualDeviceError(description: "socket: errno \(errno)", retryable: false) }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            throw VirtualDeviceError(description: "socket path too long: \(path)", retryable: false)
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else {
            let code = errno
            throw VirtualDeviceError(
                description: "the virtual reader at \(path) refused \(command) (errno \(code)); is it claimed?",
                retryable: code == ENOENT || code == ECONNREFUSED)
        }
        let message = Array(command.utf8)
        guard message.isEmpty || write(fd, message, message.count) == message.count else {
            throw VirtualDeviceError(description: "writing \(command): errno \(errno)", retryable: false)
        }
        shutdown(fd, Int32(SHUT_WR))
        // libfprint answers and closes at once; bounded, so that a reader that never does fails
        // the test with a reason instead of holding its thread.
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 512)
        while true {
            let count = read(fd, &buffer, buffer.count)
            if count == 0 { break }
            guard count > 0 else {
                let code = errno
                if code == EINTR { continue }
                throw VirtualDeviceError(description: "the virtual reader at \(path) did not answer \(command) within 30 s (errno \(code))", retryable: false)
            }
            answer += buffer[0..<count]
        }
        return String(decoding: answer, as: UTF8.self)
    }

    private static func launch(
        _ path: String, _ arguments: [String], environment: [String: String], log: URL, owning name: String, watcher: DBusConnection
    ) async throws -> Process {
        let owned = Inbox<String>()
        let subscription = try await watcher.watchNameOwners(name) { change in
            if let owner = change.newOwner { owned.put(owner) }
        }
        defer { watcher.unsubscribe(subscription) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let output = try FileHandle(forWritingTo: log)
        output.seekToEndOfFile()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        do {
            _ = try await owned.next(within: .seconds(60))
        } catch {
            ChildProcess.kill(process)
            throw error
        }
        return process
    }
}
