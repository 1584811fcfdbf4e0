// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthDBus
import LocalAuthTestSupport
import Testing

/// localauthd's installed bus policy (`dbus/org.localauth.LocalAuthentication1.conf`) on a
/// system-type bus, with the real daemon: what another user may and may not send.
@Suite(.timeLimit(.minutes(3)))
struct LocalAuthInstalledPolicyTests {
    /// uid 65534 (setpriv) uses the Manager, a context of its own, Properties, Introspectable and
    /// Peer; it may neither take the daemon's name nor call an agent as if it were the daemon.
    @Test(.enabled(if: getuid() == 0, "needs root to run a client as uid 65534"))
    func anotherUserMayCallTheServiceButNeitherOwnItsNameNorCallAnAgent() async throws {
        try await withDaemon(installedPolicy: true) { _, bus in
            let agent = try await TestAgent(bus)
            defer { agent.close() }
            let agentName = agent.connection.uniqueName
            let script = PythonDBusClient.prelude + #"""
            def proxy(path, interface):
                return dbus.Interface(bus.get_object(N, path, introspect=False), interface)
            m = proxy(M, N + '.Manager')
            made = []
            attempt('CreateContext', lambda: made.append(m.CreateContext(dbus.Dictionary({}, signature='sv'))))
            attempt('GetUserState', lambda: m.GetUserState())
            attempt('CanEvaluatePolicy', lambda: proxy(made[0], N + '.Context').CanEvaluatePolicy(dbus.UInt32(2)))
            attempt('GetAll', lambda: proxy(made[0], 'org.freedesktop.DBus.Properties').GetAll(N + '.Context'))
            attempt('Introspect', lambda: proxy(M, 'org.freedesktop.DBus.Introspectable').Introspect())
            attempt('Ping', lambda: proxy(M, 'org.freedesktop.DBus.Peer').Ping())
            attempt('RequestName', lambda: bus.request_name(N, dbus.bus.NAME_FLAG_DO_NOT_QUEUE))
            attempt('BeginAuthentication', lambda: bus.get_object(sys.argv[2], M + '/Agent', introspect=False).BeginAuthentication(
                'handle', 'cookie', dbus.Dictionary({}, signature='sv'), dbus_interface=N + '.Agent'))
            """#
            let run = try await runTool("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-c", script,
                                                             bus.address, agentName], timeout: .seconds(60))
            let lines = run.output.split(separator: "\n").map(String.init)
            let denied = "org.freedesktop.DBus.Error.AccessDenied"
            #expect(lines.count == 8, "\(run.output)")
            for allowed in ["CreateContext", "GetUserState", "GetAll", "Introspect", "Ping"] {
                #expect(lines.contains("\(allowed) allowed"), "\(allowed): \(run.output)")
            }
            let check = lines.first { $0.hasPrefix("CanEvaluatePolicy ") }
            #expect(check != nil && check?.hasSuffix(denied) == false, "the daemon answers, whatever it says: \(check ?? run.output)")
            #expect(lines.contains("RequestName \(denied)"), "\(run.output)")
            #expect(lines.contains("BeginAuthentication \(denied)"), "\(run.output)")
            #expect(agent.events.received.isEmpty, "the agent was not called")
        }
    }

    /// The reference provider (Examples/providers, policy included) started by the daemon, on the
    /// installed-policy bus: the handshake, an enrollment and a match go through both policies.
    @Test func theReferenceProviderEnrollsAndMatchesThroughTheInstalledPolicies() async throws {
        let provider = try ReferenceProvider()
        try await withDaemon(configuration: provider.configuration(timeout: 30), installedPolicy: true) { daemon, bus in
            let client = try await Client(bus)
            let listening = Inbox<String>()
            let subscription = try await client.connection.subscribe(
                DBusMatchRule(path: ReferenceProvider.simulatorPath, interface: ReferenceProvider.simulatorInterface, member: "Listening")) { signal in
                listening.put(signal.arguments.first?.string ?? "")
            }
            defer { client.connection.unsubscribe(subscription) }
            try await ReferenceProvider.waitForBackend(provider.id, on: client.connection, within: .seconds(60)) { $0 == "available" }
            try await client.setUp(passcode: "4711-secret")
            let enrollment = Task { await errorName { _ = try await client.manager("Enroll", [.string("fingerprint"), .string("left-thumb"), .string("4711-secret")]) } }
            #expect(try await listening.next() == "enrolling")
            for _ in 0..<3 { try await ReferenceProvider.simulator(client.connection, "Touch", [.string("left-thumb")]) }
            #expect(await enrollment.value == nil, "\(daemon.logText)")
            let context = try await client.createContext()
            let evaluation = try await client.begin(context, policy: 1)
            #expect(try await listening.next() == "armed")
            try await ReferenceProvider.simulator(client.connection, "Touch", [.string("left-thumb")])
            #expect(await evaluation.value == nil, "the enrolled finger matched through the provider")
        }
    }
}
