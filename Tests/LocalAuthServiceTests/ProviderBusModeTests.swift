// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthDBus
import LocalAuthTestSupport
import Testing

private typealias D = DaemonUnderTest
private typealias P = ReferenceProvider

/// The provider's other run mode: no Exec= in its descriptor, the bus starts it (activation) and
/// the bus policy a provider package ships fences it. The sender and uid checks are the ones
/// the Exec= mode uses.
@Suite("Bus-activated providers", .timeLimit(.minutes(2)))
struct ProviderBusModeTests {
    static let repository = P.repositoryRoot

    /// A deny-by-default bus like the system bus, with localauthd's policy, the reference
    /// provider's policy (its user made root, the only user here) and its activation file.
    static func busConfiguration(socket: String, services: String, providerPolicy: String) -> String {
        """
        <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
        <busconfig>
          <type>session</type>
          <listen>unix:path=\(socket)</listen>
          <auth>EXTERNAL</auth>
          <servicedir>\(services)</servicedir>
          <policy context="default">
            \(PrivateBus.defaultRules)
          </policy>
          <include>\(repository.appendingPathComponent("dbus/org.localauth.LocalAuthentication1.conf").path)</include>
          <include>\(providerPolicy)</include>
        </busconfig>
        """
    }

    /// As uid 65534: Provider1 and the name are fenced by the bus; ProviderHost is open and the daemon refuses.
    static let stranger = PythonDBusClient.prelude + """
    provider = bus.get_object('org.localauth.Provider.Reference', '/org/localauth/Provider1', introspect=False)
    attempt('provider-hello', lambda: provider.Hello(dbus.UInt32(1), dbus_interface='org.localauth.Provider1'))
    attempt('provider-arm', lambda: provider.Arm(dbus.UInt64(1), dbus.UInt32(0), dbus.Array([], signature='s'), dbus.Dictionary({}, signature='sv'), dbus_interface='org.localauth.Provider1'))
    attempt('own-provider-name', lambda: bus.request_name('org.localauth.Provider.Reference', dbus.bus.NAME_FLAG_DO_NOT_QUEUE))
    host = bus.get_object(N, M + '/providers', introspect=False)
    attempt('host-report', lambda: host.ReportAttempt(dbus.UInt64(1), 'match', 'x', dbus_interface=N + '.ProviderHost'))
    """

    @Test func theBusStartsTheProviderItsPolicyFencesItAndTheDaemonAsksAgainAfterACrash() async throws {
        let provider = try ReferenceProvider(exec: false)
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("busmode-\(UUID().uuidString)")
        let services = scratch.appendingPathComponent("services")
        try FileManager.default.createDirectory(at: services, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: scratch.path)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let examples = Self.repository.appendingPathComponent("Examples/providers")
        let activation = try String(contentsOf: examples.appendingPathComponent("org.localauth.Provider.Reference.service"), encoding: .utf8)
            .replacingOccurrences(of: "/usr/lib/localauthd/providers/reference-provider.py", with: "\(P.script) --state-dir \(provider.stateDirectory)")
        try activation.write(to: services.appendingPathComponent("org.localauth.Provider.Reference.service"), atomically: true, encoding: .utf8)
        let policy = scratch.appendingPathComponent("provider.conf").path
        try String(contentsOf: examples.appendingPathComponent("org.localauth.Provider.Reference.conf"), encoding: .utf8)
            .replacingOccurrences(of: "user=\"localauth-reference\"", with: "user=\"root\"")
            .write(toFile: policy, atomically: true, encoding: .utf8)

        let bus = try PrivateBus(configuration: Self.busConfiguration(socket: scratch.appendingPathComponent("bus").path,
                                                                     services: services.path, providerPolicy: policy))
        defer { bus.stop() }
        let watcher = try await bus.connect()
        defer { watcher.close() }
        let daemon = try DaemonUnderTest(bus: bus, configuration: provider.configuration())
        defer { daemon.kill() }
        try await daemon.start(watcher: watcher)
        let client = try await Client(bus)
        try await P.waitForBackend("reference", on: client.connection) { $0 == "available" }
        let pid = try await P.pid(client.connection)

        let result = try await runTool("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups",
                                                             "/usr/bin/python3", "-c", Self.stranger, bus.address], timeout: .seconds(30))
        let denied = "org.freedesktop.DBus.Error.AccessDenied"
        for line in ["provider-hello \(denied)", "provider-arm \(denied)", "own-provider-name \(denied)", "host-report \(denied)"] {
            #expect(result.output.contains(line), "expected \"\(line)\" in:\n\(result.output)")
        }
        #expect(daemon.logText.contains("ProviderHost.ReportAttempt from :1."), "the daemon, not the bus, refused the report")

        // Evaluation through the bus-activated provider.
        _ = try await client.manager("SetPasscode", [.string(""), .string("4711-secret")])
        let listening = Inbox<String>()
        let subscription = try await client.connection.subscribe(
            DBusMatchRule(path: P.simulatorPath, interface: P.simulatorInterface, member: "Listening")) { listening.put($0.arguments.first?.string ?? "") }
        defer { client.connection.unsubscribe(subscription) }
        let enrollment = Task { await errorName { _ = try await client.manager("Enroll", [.string("fingerprint"), .string("left-thumb"), .string("4711-secret")]) } }
        #expect(try await listening.next() == "enrolling")
        for _ in 0..<3 { try await P.simulator(client.connection, "Touch", [.string("left-thumb")]) }
        #expect(await enrollment.value == nil)

        // A crash: the daemon asks the bus again (with backoff) and the bus starts it anew.
        kill(pid, SIGKILL)
        try await P.waitForBackend("reference", on: client.connection) { $0.hasPrefix("down") }
        try await P.waitForBackend("reference", on: client.connection) { $0 == "available" }
        #expect(try await P.pid(client.connection) != pid)
        let context = try await client.createContext()
        let evaluation = try await client.begin(context, policy: 1)
        #expect(try await listening.next() == "armed")
        try await P.simulator(client.connection, "Touch", [.string("left-thumb")])
        #expect(await evaluation.value == nil)
    }

    @Test func theProviderUnitTemplateVerifies() async throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-analyze") else {
            print("skipped: systemd-analyze is not installed")
            return
        }
        let unit = try String(contentsOf: Self.repository.appendingPathComponent("Examples/providers/localauth-provider-reference.service"), encoding: .utf8)
        #expect(unit.contains("Type=dbus") && unit.contains("BusName=org.localauth.Provider.Reference") && unit.contains("User=localauth-reference"))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("provider-unit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let copy = directory.appendingPathComponent("localauth-provider-reference.service")
        try unit.write(to: copy, atomically: true, encoding: .utf8)
        let verify = try await runTool("/usr/bin/systemd-analyze", ["verify", "--man=no", copy.path], timeout: .seconds(30))
        #expect(verify.status == 0, "\(verify.output)")
    }
}
