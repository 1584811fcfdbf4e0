// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthAPI
import LocalAuthDBus
import LocalAuthTestSupport
import Testing

private typealias D = DaemonUnderTest
private typealias P = ReferenceProvider

/// Faults of a biometric provider, each with the real daemon and a real provider process (the
/// Python reference provider) on a private bus: a crash, a hang, malformed reports, reports for
/// another session, another protocol version, and impostors. The daemon must refuse each with a
/// log line, count nothing, lose no context, and keep serving everyone else.
@Suite("Provider faults", .timeLimit(.minutes(2)))
struct ProviderFaultTests {
    static let passcode = "4711-secret"

    /// The stored ledger of this process's uid, byte for byte (nil when none was written).
    static func ledger(_ rig: ProviderRig) -> Data? {
        FileManager.default.contents(atPath: "\(rig.daemon.stateDirectory)/users/\(getuid())/ledger.json")
    }

    /// Every `State` of backend `id` that `PropertiesChanged` announced, in order.
    static func watchStates(_ id: String, _ connection: DBusConnection) async throws -> (Inbox<String>, DBusSubscription) {
        let states = Inbox<String>()
        let subscription = try await connection.subscribe(
            DBusMatchRule(path: LocalAuthBusNames.managerPath, interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged")) { signal in
            guard let backends = signal.arguments.dropFirst().first?.vardict?["Backends"]?.arrayElements else { return }
            for element in backends {
                if let fields = element.structure, fields.first == .string(id), let state = fields.last?.vardict?["State"]?.string { states.put(state) }
            }
        }
        return (states, subscription)
    }

    static func setUp(_ rig: ProviderRig) async throws {
        _ = try await rig.client.manager("SetPasscode", [.string(""), .string(passcode)])
        try await rig.enroll("right-index-finger")
    }

    @Test func aProviderKilledDuringAnEvaluationLooksLikeADisconnectedSensorAndIsRestarted() async throws {
        try await withReferenceProvider { rig in
            try await Self.setUp(rig)
            let context = try await rig.client.createContext()
            let evaluation = try await rig.begin(context, policy: 1)
            let ledger = Self.ledger(rig)
            let (states, subscription) = try await Self.watchStates("reference", rig.client.connection)
            defer { rig.client.connection.unsubscribe(subscription) }
            let pid = try await P.pid(rig.client.connection)

            kill(pid, SIGKILL)
            #expect(await evaluation.value == LocalAuthBusNames.errorPrefix + "BiometryNotAvailable", "the same as a simulator's disconnect")
            #expect(try await states.next().hasPrefix("down: "), "the backend shows unavailable")
            #expect(try await rig.client.userState()["BiometryFailures"] == .uint32(0), "nothing counted")
            #expect(Self.ledger(rig) == ledger, "the ledger is untouched")
            #expect(try await rig.client.property(context, "State") == .string("idle"), "the context survives")

            #expect(try await states.next() == "available", "restarted with backoff and handshaken again")
            let restarted = try await P.pid(rig.client.connection)
            #expect(restarted != pid)
            let again = try await rig.begin(context, policy: 1)
            try await rig.simulator("Touch", [.string("right-index-finger")])
            #expect(await again.value == nil, "the next evaluation on the same context works")
            let log = rig.daemon.logText
            #expect(log.contains("provider reference: pid \(pid) was killed by signal 9; restarting in 0.5 s"), "\(log)")
            #expect(log.contains("provider reference: lost: "), "\(log)")
        }
    }

    @Test func aHangingProviderTimesOutAndIsRestarted() async throws {
        try await withReferenceProvider(timeout: 1) { rig in
            try await Self.setUp(rig)
            try await rig.simulator("Hang")
            let pid = try await P.pid(rig.client.connection)
            let context = try await rig.client.createContext()
            let started = ContinuousClock.now
            let evaluation = try await rig.begin(context, policy: 1)
            #expect(await evaluation.value == LocalAuthBusNames.errorPrefix + "BiometryNotAvailable")
            let waited = ContinuousClock.now - started
            #expect(waited >= .milliseconds(900) && waited < .seconds(15), "ended by the 1 s provider_timeout, after \(waited)")
            try await P.waitForBackend("reference", on: rig.client.connection) { $0 == "available" }
            #expect(try await P.pid(rig.client.connection) != pid, "the hung provider was killed and restarted")
            #expect(try await rig.client.userState()["BiometryFailures"] == .uint32(0))
            #expect(try await rig.client.property(context, "State") == .string("idle"), "the context survives")
            let log = rig.daemon.logText
            #expect(log.contains("provider reference: killing pid \(pid) (it did not answer Arm within 1.0 seconds)"), "\(log)")
        }
    }

    @Test func theDaemonServesEveryoneElseWhileAProviderHangs() async throws {
        // A timeout far beyond the test: whatever is served below is served while the call hangs.
        try await withReferenceProvider(others: ["face"], timeout: 600) { rig in
            try await Self.setUp(rig)
            let other = try await Client(rig.bus)
            try await rig.simulator("Hang")
            let context = try await rig.client.createContext()
            let hung = try await rig.begin(context, policy: 1)

            // The face simulator, the passcode and the Manager keep serving another connection.
            _ = try await other.manager("Enroll", [.string("face"), .string("primary"), .string(Self.passcode)])
            let otherContext = try await other.createContext()
            let faceEvaluation = try await other.begin(otherContext, policy: 1)
            try await other.simulator("PresentFace", [.string("primary"), .bool(true)])
            #expect(await faceEvaluation.value == nil)
            let ownerContext = try await other.createContext()
            let owner = try await other.begin(ownerContext, policy: 2)
            _ = try await other.context(ownerContext, "Fallback")
            _ = try await other.context(ownerContext, "SubmitPasscode", [.string(Self.passcode)])
            #expect(await owner.value == nil)

            #expect(try await rig.client.property(context, "State") == .string("biometry"), "the hung Arm is still outstanding")
            _ = try await rig.client.context(context, "Cancel")
            #expect(await hung.value == LocalAuthBusNames.errorPrefix + "UserCancel", "a context whose provider hangs can still be cancelled")
        }
    }

    @Test func malformedReportsAreRefusedAndChangeNothing() async throws {
        try await withReferenceProvider { rig in
            try await Self.setUp(rig)
            let context = try await rig.client.createContext()
            let evaluation = try await rig.begin(context, policy: 1)
            let session = try #require(try await rig.simulator("ArmedSession").first?.uint64)
            let ledger = Self.ledger(rig)
            for (result, detail) in [("explode", ""), ("retry", "too-wet"), ("retry", "no-face"), ("match", ""), ("match", "ref-0000000000000000")] {
                let answer = try await rig.simulator("Report", [.uint64(session), .string(result), .string(detail)])
                #expect(answer.first == .string("org.freedesktop.DBus.Error.InvalidArgs"), "\(result) \(detail): \(answer)")
            }
            #expect(Self.ledger(rig) == ledger)
            #expect(try await rig.client.userState()["BiometryFailures"] == .uint32(0))
            try await rig.simulator("Touch", [.string("right-index-finger")])
            #expect(await evaluation.value == nil, "the evaluation went on and a real match ended it")
            let log = rig.daemon.logText
            #expect(log.contains("provider reference: ReportAttempt refused: Unknown attempt result \"explode\""), "\(log)")
            #expect(log.contains("was not among the templates armed for session \(session)"), "\(log)")
            #expect(log.contains("Retry reason no-face is not among those the provider announced"), "a fingerprint provider announced no face reasons: \(log)")
        }
    }

    @Test func aReportForASessionTheProviderDoesNotHoldIsIgnored() async throws {
        try await withReferenceProvider { rig in
            try await Self.setUp(rig)
            let template = try #require(try await rig.simulator("Templates", [.uint32(getuid())]).first?.strings?.first)
            let context = try await rig.client.createContext()
            let evaluation = try await rig.begin(context, policy: 1)
            let session = try #require(try await rig.simulator("ArmedSession").first?.uint64)
            for other in [session + 1000, session - 1] {
                #expect(try await rig.simulator("Report", [.uint64(other), .string("match"), .string(template)]).first == .string(""))
                #expect(try await rig.simulator("Report", [.uint64(other), .string("no-match"), .string("")]).first == .string(""))
            }
            #expect(try await rig.client.userState()["BiometryFailures"] == .uint32(0), "no-matches for other sessions are not counted")
            #expect(try await rig.client.property(context, "State") == .string("biometry"), "a match for another session did not end it")
            _ = try await rig.client.context(context, "Cancel")
            #expect(await evaluation.value == LocalAuthBusNames.errorPrefix + "UserCancel")
            #expect(rig.daemon.logText.contains("provider reference: ignored match for session \(session + 1000), which is not armed on it"))
        }
    }

    @Test func aProviderSpeakingAnotherProtocolVersionIsRefused() async throws {
        let provider = try ReferenceProvider(arguments: ["--protocol-version", "2"])
        try await withDaemon(configuration: provider.configuration()) { daemon, bus in
            let client = try await Client(bus)
            let state = try await P.waitForBackend("reference", on: client.connection) { $0.hasPrefix("refused") }
            #expect(state.contains("it speaks provider protocol version 2; this localauthd speaks version 1"), "\(state)")
            #expect(daemon.logText.contains("provider reference: refused: it speaks provider protocol version 2"))
            _ = try await client.manager("SetPasscode", [.string(""), .string(Self.passcode)])
            let enroll = await errorName { _ = try await client.manager("Enroll", [.string("fingerprint"), .string("left-thumb"), .string(Self.passcode)]) }
            #expect(enroll == LocalAuthBusNames.errorPrefix + "BiometryNotAvailable")
            let context = try await client.createContext()
            #expect(await errorName { _ = try await client.context(context, "CanEvaluatePolicy", [.uint32(1)]) } == LocalAuthBusNames.errorPrefix + "BiometryNotAvailable")
            // Nothing it reports is believed.
            #expect(try await P.simulator(client.connection, "Report", [.uint64(1), .string("match"), .string("x")]).first
                        == .string("org.freedesktop.DBus.Error.AccessDenied"))
        }
    }

    /// Another connection, root's or another user's, calling ProviderHost as if it were the provider.
    static let impostorScript = PythonDBusClient.prelude + #"""
host = bus.get_object(N, M + '/providers', introspect=False)
session = dbus.UInt64(int(sys.argv[2]))
attempt('report-match', lambda: host.ReportAttempt(session, 'match', sys.argv[3], dbus_interface=N + '.ProviderHost'))
attempt('report-no-match', lambda: host.ReportAttempt(session, 'no-match', '', dbus_interface=N + '.ProviderHost'))
attempt('report-availability', lambda: host.ReportAvailability(False, dbus_interface=N + '.ProviderHost'))
attempt('report-enrollment', lambda: host.ReportEnrollment(dbus.UInt64(1), 'completed', dbus.UInt32(3), 'x', dbus_interface=N + '.ProviderHost'))
provider = bus.get_object('org.localauth.Provider.Reference', '/org/localauth/Provider1', introspect=False)
attempt('provider-disarm', lambda: provider.Disarm(session, dbus_interface='org.localauth.Provider1'))
attempt('provider-delete', lambda: provider.DeleteTemplate(dbus.UInt32(0), sys.argv[3], dbus_interface='org.localauth.Provider1'))
manager = dbus.Interface(bus.get_object(N, M, introspect=False), N + '.Manager')
attempt('cancel-enrollment', lambda: manager.CancelEnrollment())
attempt('own-provider-name', lambda: bus.request_name('org.localauth.Provider.Reference', dbus.bus.NAME_FLAG_DO_NOT_QUEUE) == 1 or (_ for _ in ()).throw(dbus.DBusException('not primary owner', name='Queued')))
"""#

    @Test func impostorsReportingAttemptsAreRefusedAndLogged() async throws {
        try await withReferenceProvider(allowingEveryUser: true) { rig in
            try await Self.setUp(rig)
            let template = try #require(try await rig.simulator("Templates", [.uint32(getuid())]).first?.strings?.first)
            let context = try await rig.client.createContext()
            let evaluation = try await rig.begin(context, policy: 1)
            let session = try #require(try await rig.simulator("ArmedSession").first?.uint64)
            for runner in [[String](), ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]] {
                let command = runner + ["/usr/bin/python3", "-c", Self.impostorScript, rig.bus.address, "\(session)", template]
                let result = try await runTool(command[0], Array(command.dropFirst()))
                let who = runner.isEmpty ? "root" : "uid 65534"
                for line in ["report-match", "report-no-match", "report-availability", "report-enrollment", "provider-disarm", "provider-delete"] {
                    #expect(result.output.contains("\(line) org.freedesktop.DBus.Error.AccessDenied"), "\(who): \(result.output)")
                }
                #expect(result.output.contains("cancel-enrollment allowed"), "cancels only its own (none): \(result.output)")
                #expect(!result.output.contains("own-provider-name allowed"), "\(who) took the provider's name: \(result.output)")
            }
            #expect(try await rig.client.property(context, "State") == .string("biometry"), "no impostor's match ended the evaluation")
            #expect(try await rig.simulator("ArmedSession").first == .uint64(session), "nobody but localauthd disarmed the provider")
            #expect(try await rig.simulator("Templates", [.uint32(getuid())]).first?.strings == [template], "nobody deleted the template")
            #expect(try await rig.client.userState()["BiometryFailures"] == .uint32(0))
            #expect(try await P.backendState("reference", on: rig.client.connection) == "available")
            try await rig.simulator("Touch", [.string("right-index-finger")])
            #expect(await evaluation.value == nil)
            #expect(rig.daemon.logText.contains("ProviderHost.ReportAttempt from :1."), "\(rig.daemon.logText)")
        }
    }

    @Test func anImpostorOwningTheProvidersNameUnderAnotherUidIsRefused() async throws {
        let provider = try ReferenceProvider(exec: false)
        let impostorState = "/tmp/impostor-provider-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: impostorState) }
        try await withPrivateBus(allowingEveryUser: true) { bus in
            // The impostor: the same program, run as uid 65534 instead of the descriptor's User=.
            let watcher = try await bus.connect()
            defer { watcher.close() }
            let owned = Inbox<String>()
            let watch = try await watcher.watchNameOwners(P.busName) { change in if let owner = change.newOwner { owned.put(owner) } }
            defer { watcher.unsubscribe(watch) }
            let impostor = Process()
            impostor.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            impostor.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups"]
                + provider.command(address: bus.address, arguments: ["--state-dir", impostorState])
            impostor.standardError = FileHandle.nullDevice
            try impostor.run()
            defer { ChildProcess.kill(impostor) }
            let impostorName = try await owned.next()

            let daemon = try DaemonUnderTest(bus: bus, configuration: provider.configuration())
            defer { daemon.kill() }
            try await daemon.start(watcher: watcher)
            let client = try await Client(bus)
            let state = try await P.waitForBackend("reference", on: client.connection) { $0.hasPrefix("refused") }
            #expect(state.contains("owned by \(impostorName)") && state.contains("with uid 65534, not uid \(getuid())"), "\(state)")
            #expect(daemon.logText.contains("provider reference: refused: its bus name org.localauth.Provider.Reference is owned by \(impostorName)"))
            #expect(try await P.simulator(client.connection, "Report", [.uint64(1), .string("match"), .string("x")]).first
                        == .string("org.freedesktop.DBus.Error.AccessDenied"))
            let context = try await client.createContext()
            #expect(await errorName { _ = try await client.context(context, "CanEvaluatePolicy", [.uint32(1)]) } == LocalAuthBusNames.errorPrefix + "BiometryNotAvailable")
        }
    }
}
