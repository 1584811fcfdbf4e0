// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthDBus
import LocalAuthTestSupport
import Synchronization
import Testing

/// What the provider told localauthd's ProviderHost.
enum HostReport: Equatable, Sendable {
    case attempt(session: UInt64, result: String, detail: String)
    case enrollment(id: UInt64, status: String, completedStages: UInt32, detail: String)
    case availability(Bool)
}

/// One test's world: a private system-type bus with the installed policy files (ours, fprintd's,
/// polkit's), real fprintd with the virtual reader, the real `localauth-fprintd-provider` as the
/// user that stands in for `localauth-fprintd`, and the test in localauthd's place — it owns
/// org.localauth.LocalAuthentication1 (as root, like localauthd) and records every ProviderHost call.
final class ProviderRig: Sendable {
    static let providerName = "org.localauth.Provider.Fprintd"
    static let providerPath = "/org/localauth/Provider1"
    static let providerInterface = "org.localauth.Provider1"
    static let hostName = "org.localauth.LocalAuthentication1"
    static let hostPath = "/org/localauth/LocalAuthentication1/providers"
    static let hostInterface = "org.localauth.LocalAuthentication1.ProviderHost"

    /// The test bundle's directory, where SwiftPM puts the provider too.
    static var binary: String {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        if directory.lastPathComponent.hasSuffix(".xctest") { directory.deleteLastPathComponent() }
        return directory.appendingPathComponent("localauth-fprintd-provider").path
    }

    /// The test's own user: fprintd's prints are kept per user name.
    static let uid = getuid()
    static let userName = String(cString: getpwuid(getuid())!.pointee.pw_name)

    let bus: PrivateBus
    let host: DBusConnection
    let reports = Inbox<HostReport>()
    /// nil when the test runs without fprintd.
    let fprintd: FprintdUnderTest?
    private let provider = Mutex<Process?>(nil)
    let log: URL

    private let fprintdTimeout: Int

    /// - Parameter fprintdTimeout: the provider's bound on each fprintd call, in seconds.
    init(withFprintd: Bool = true, allowed: [String] = FprintdUnderTest.actions, fprintdTimeout: Int = 30) async throws {
        self.fprintdTimeout = fprintdTimeout
        bus = try PrivateBus.system(policies: try SystemPolicy.installed())
        host = try await bus.connect()
        log = FileManager.default.temporaryDirectory.appendingPathComponent("fprintd-provider-\(UUID().uuidString).log")
        fprintd = withFprintd ? try await FprintdUnderTest(bus: bus, watcher: host, allowed: allowed) : nil
        try await host.requestName(Self.hostName)
        let reports = reports
        try host.register(path: Self.hostPath) { call in
            var reader = call.reader
            switch call.member {
            case "ReportAttempt":
                reports.put(.attempt(session: try reader.uint64(), result: try reader.string(), detail: try reader.string()))
            case "ReportEnrollment":
                reports.put(.enrollment(id: try reader.uint64(), status: try reader.string(), completedStages: try reader.uint32(), detail: try reader.string()))
            case "ReportAvailability":
                reports.put(.availability(try reader.bool()))
            default:
                throw DBusError(.unknownMethod, call.member)
            }
            return .empty
        }
        try await startProvider()
    }

    /// Starts the provider as `localauth-fprintd`'s stand-in and waits until it owns its name.
    func startProvider() async throws {
        let process = try await Self.launchProvider(bus: bus, watcher: host, fprintdTimeout: fprintdTimeout, log: log)
        provider.withLock { $0 = process }
    }

    /// Starts `localauth-fprintd-provider` on `bus` as the user that stands in for
    /// `localauth-fprintd` (through setpriv when that is another user), as the bus would activate
    /// it, and waits until it owns its name.
    static func launchProvider(bus: PrivateBus, watcher: DBusConnection, fprintdTimeout: Int, log: URL) async throws -> Process {
        let owned = Inbox<String>()
        let subscription = try await watcher.watchNameOwners(providerName) { change in
            if let owner = change.newOwner { owned.put(owner) }
        }
        defer { watcher.unsubscribe(subscription) }
        let process = Process()
        let arguments = ["--address", bus.address, "--fprintd-timeout", "\(fprintdTimeout)"]
        if let standIn = getpwnam(SystemPolicy.fprintdProviderStandIn)?.pointee, standIn.pw_uid != getuid() {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            process.arguments = ["--reuid=\(standIn.pw_uid)", "--regid=\(standIn.pw_gid)", "--clear-groups", binary] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: binary)
            process.arguments = arguments
        }
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

    /// Calls the provider as localauthd.
    @discardableResult
    func call(_ member: String, _ arguments: [DBusValue] = [], from connection: DBusConnection? = nil) async throws -> [DBusValue] {
        try await (connection ?? host).call(
            destination: Self.providerName, path: Self.providerPath, interface: Self.providerInterface,
            member: member, arguments: arguments, timeout: .seconds(60))
    }

    func arm(_ session: UInt64, templates: [String]) async throws {
        try await call("Arm", [.uint64(session), .uint32(Self.uid), .strings(templates), .vardict([:])])
    }

    /// The D-Bus error name a call ends with, nil if it succeeds.
    func errorName(_ member: String, _ arguments: [DBusValue] = [], from connection: DBusConnection? = nil) async -> String? {
        await error(member, arguments, from: connection)?.name.rawValue
    }

    /// The D-Bus error a call ends with, nil if it succeeds.
    func error(_ member: String, _ arguments: [DBusValue] = [], from connection: DBusConnection? = nil) async -> DBusError? {
        do {
            try await call(member, arguments, from: connection)
            return nil
        } catch let error as DBusError {
            return error
        } catch {
            return DBusError(.failed, "\(error)")
        }
    }

    /// Enrolls `finger` through the provider with `print` on every capture; returns the stages.
    @discardableResult
    func enroll(_ finger: String, print: String, id: UInt64) async throws -> [HostReport] {
        let stages = try #require(try await call("EnrollStart", [.uint64(id), .uint32(Self.uid), .string(finger)]).first?.uint32)
        var seen: [HostReport] = []
        for _ in 0..<stages {
            try await fprintd!.send("SCAN \(print)")
            seen.append(try await reports.next())
        }
        return seen
    }

    var isClaimed: Bool {
        get async throws { try await fprintd!.isClaimed(user: Self.userName) }
    }

    /// Waits (bounded) until the reader is closed — the provider releases right after it reports —
    /// then checks that another program can claim it.
    func expectReleased(_ comment: Comment, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while fprintd!.isOpen, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(try await !isClaimed, comment, sourceLocation: sourceLocation)
    }

    var providerLog: String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }

    /// Sends `signal` to the provider.
    func signalProvider(_ signal: Int32) {
        if let process = provider.withLock({ $0 }) { kill(process.processIdentifier, signal) }
    }

    func killProvider() {
        if let process = provider.withLock({ p in defer { p = nil }; return p }) { ChildProcess.kill(process) }
    }

    deinit {
        killProvider()
        fprintd?.stop()
        host.close()
        bus.stop()
        try? FileManager.default.removeItem(at: log)
    }
}
