// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthAPI
import LocalAuthDBus
import Synchronization
import Testing

/// The Python reference provider (`Examples/providers/reference-provider.py`) set up for one
/// test: a descriptor directory and a state directory of its own, the configuration lines that
/// enable it, and calls to its simulator input.
public final class ReferenceProvider: Sendable {
    public static let busName = "org.localauth.Provider.Reference"
    public static let simulatorPath = "/org/localauth/ReferenceProvider1"
    public static let simulatorInterface = "org.localauth.ReferenceProvider1.Simulator"

    /// The checkout root (``SystemPolicy/repositoryRoot``).
    public static var repositoryRoot: URL { SystemPolicy.repositoryRoot }
    public static var script: String { repositoryRoot.appendingPathComponent("Examples/providers/reference-provider.py").path }

    public let id: String
    public let directory: String
    public let stateDirectory: String
    private let scratch: URL

    /// - Parameters:
    ///   - arguments: extra arguments for the provider (`--protocol-version 2`, `--stages 2`).
    ///   - exec: whether the daemon starts it (Exec=); otherwise the test or the bus does.
    ///   - user: the descriptor's User= (default: this process's uid).
    public init(id: String = "reference", modality: String = "fingerprint", arguments: [String] = [], exec: Bool = true, user: String? = nil) throws {
        self.id = id
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("provider-test-\(UUID().uuidString)")
        directory = scratch.appendingPathComponent("providers").path
        stateDirectory = scratch.appendingPathComponent("state").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let command = (["/usr/bin/python3", Self.script, "--state-dir", stateDirectory, "--modality", modality] + arguments).joined(separator: " ")
        try """
        [Provider]
        Id=\(id)
        Modality=\(modality)
        BusName=\(Self.busName)
        \(exec ? "Exec=\(command)" : "# started by the test")
        User=\(user ?? String(getuid()))
        ProtocolVersion=1
        Description=Reference provider under test
        """.write(toFile: "\(directory)/\(id).provider", atomically: true, encoding: .utf8)
    }

    /// The command line that runs this provider outside the daemon (bus mode).
    public func command(address: String, arguments: [String] = []) -> [String] {
        ["/usr/bin/python3", Self.script, "--address", address, "--state-dir", stateDirectory] + arguments
    }

    /// Lines for localauthd.conf that enable the provider (with the passcode backend, and `others`).
    /// `timeout` (`provider_timeout`) is generous by default: on a loaded machine a slow Python
    /// provider must not be taken for a hung one (the daemon would restart it mid-test); tests
    /// of a hang pass a short one.
    public func configuration(others: [String] = [], timeout: Double = 10) -> String {
        "backends = \(([id] + others + ["passcode"]).joined(separator: ", "))\nprovider_directories = \(directory)\nprovider_timeout = \(timeout)\n"
    }

    /// Calls the provider's simulator input; most members return "" or the D-Bus error name
    /// localauthd answered the provider's report with.
    @discardableResult
    public static func simulator(_ connection: DBusConnection, _ member: String, _ arguments: [DBusValue] = []) async throws -> [DBusValue] {
        try await connection.call(destination: busName, path: simulatorPath, interface: simulatorInterface, member: member, arguments: arguments)
    }

    /// The pid of the connection that owns the provider's bus name now.
    public static func pid(_ connection: DBusConnection) async throws -> Int32 {
        let reply = try await connection.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                                              member: "GetConnectionUnixProcessID", arguments: [.string(busName)])
        return Int32(try #require(reply.first?.uint32))
    }

    /// Waits until `Backends` shows backend `id` in a state for which `accept` is true, reading
    /// it again at every PropertiesChanged of the Manager; returns that state.
    @discardableResult
    public static func waitForBackend(_ id: String, on connection: DBusConnection, within timeout: Duration = .seconds(20),
                                      _ accept: @escaping @Sendable (String) -> Bool) async throws -> String {
        let changes = Inbox<Int>()
        let subscription = try await connection.subscribe(
            DBusMatchRule(path: LocalAuthBusNames.managerPath, interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged")) { _ in
            changes.put(0)
        }
        defer { connection.unsubscribe(subscription) }
        let deadline = ContinuousClock.now + timeout
        while true {
            let state = try await backendState(id, on: connection)
            if let state, accept(state) { return state }
            let left = deadline - .now
            guard left > .zero else { throw Inbox<String>.TimedOut(what: "backend \(id) in the wanted state (last: \(state ?? "absent"))") }
            _ = try? await changes.next(within: left)
        }
    }

    /// The `State` `Backends` shows for backend `id`, nil when it is not listed.
    public static func backendState(_ id: String, on connection: DBusConnection) async throws -> String? {
        try await backendDetails(id, on: connection)?["State"]?.string
    }

    /// The details dictionary `Backends` shows for backend `id`.
    public static func backendDetails(_ id: String, on connection: DBusConnection) async throws -> [String: DBusValue]? {
        let value = try await connection.property("Backends", interface: LocalAuthBusNames.managerInterface, path: LocalAuthBusNames.managerPath,
                                                  destination: LocalAuthBusNames.busName)
        for element in value.arrayElements ?? [] {
            guard let fields = element.structure, fields.count == 4, fields[0].string == id else { continue }
            return fields[3].vardict
        }
        return nil
    }

    deinit {
        try? FileManager.default.removeItem(at: scratch)
    }
}

/// A daemon with the reference provider enabled and ready (its handshake done), and a client.
public struct ProviderRig: Sendable {
    public let daemon: DaemonUnderTest
    public let bus: PrivateBus
    public let provider: ReferenceProvider
    public let client: Client
    /// What the provider's simulator says it started listening for ("armed" / "enrolling", id).
    public let listening: Inbox<(String, UInt64)>

    /// Enrolls `finger` through the provider (touching it `stages` times); a passcode must be set.
    public func enroll(_ finger: String, stages: Int = 3, passcode: String = "4711-secret") async throws {
        let enrollment = Task { await errorName { _ = try await client.manager("Enroll", [.string("fingerprint"), .string(finger), .string(passcode)]) } }
        let (what, _) = try await listening.next()
        #expect(what == "enrolling")
        for _ in 0..<stages {
            #expect(try await ReferenceProvider.simulator(client.connection, "Touch", [.string(finger)]).first == .string(""))
        }
        #expect(await enrollment.value == nil)
    }

    /// Starts an evaluation and returns once the provider listens for it.
    public func begin(_ context: String, policy: UInt32) async throws -> Task<String?, Never> {
        let evaluation = try await client.begin(context, policy: policy)
        let (what, _) = try await listening.next()
        #expect(what == "armed")
        return evaluation
    }

    /// The provider's simulator input (see ``ReferenceProvider/simulator(_:_:_:)``).
    @discardableResult
    public func simulator(_ member: String, _ arguments: [DBusValue] = []) async throws -> [DBusValue] {
        try await ReferenceProvider.simulator(client.connection, member, arguments)
    }
}

/// Starts a private bus, the daemon with the reference provider (started by the daemon through
/// Exec=), waits for the provider's handshake, and runs `body`.
public func withReferenceProvider<T: Sendable>(arguments: [String] = [], others: [String] = [], timeout: Double = 10,
                                               settings: String = "", allowingEveryUser: Bool = false,
                                               _ body: (ProviderRig) async throws -> T) async throws -> T {
    let provider = try ReferenceProvider(arguments: arguments)
    return try await withDaemon(configuration: provider.configuration(others: others, timeout: timeout) + settings,
                                allowingEveryUser: allowingEveryUser) { daemon, bus in
        let client = try await Client(bus)
        let listening = Inbox<(String, UInt64)>()
        let subscription = try await client.connection.subscribe(
            DBusMatchRule(path: ReferenceProvider.simulatorPath, interface: ReferenceProvider.simulatorInterface, member: "Listening")) { signal in
            listening.put((signal.arguments.first?.string ?? "", signal.arguments.dropFirst().first?.uint64 ?? 0))
        }
        defer { client.connection.unsubscribe(subscription) }
        try await ReferenceProvider.waitForBackend(provider.id, on: client.connection) { $0 == "available" }
        do {
            return try await body(ProviderRig(daemon: daemon, bus: bus, provider: provider, client: client, listening: listening))
        } catch {
            // The daemon's side of what went wrong; its log goes with its scratch directory.
            Issue.record("the daemon's log:\n\(daemon.logText.suffix(6000))")
            throw error
        }
    }
}
