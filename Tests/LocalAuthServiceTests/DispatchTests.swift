// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI
import LocalAuthDBus
import LocalAuthTestSupport
import Testing

/// The daemon's dispatch tables (``DBusVTable`` rows built from ``LocalAuthInterface``), through the
/// real binary on a private bus.
@Suite("Dispatch tables of the daemon", .timeLimit(.minutes(1)))
struct DispatchTests {
    /// Every member of every interface the daemon serves, called with one argument too many, is
    /// InvalidArgs from the table, and nothing changes.
    @Test func everyMemberRefusesAWrongSignatureAndNothingChanges() async throws {
        try await withDaemon { _, bus in
            let client = try await Client(bus)
            try await client.setUp(fingers: ["left-thumb"])
            let before = try await client.userState()
            let context = try await client.createContext()
            let objects = [(LocalAuthInterface.manager, LocalAuthBusNames.managerPath), (LocalAuthInterface.context, context),
                           (LocalAuthInterface.rights, LocalAuthBusNames.rightsPath), (LocalAuthInterface.simulator, LocalAuthBusNames.simulatorPath)]
            var refused = 0
            for (interface, path) in objects {
                for method in interface.methods {
                    let arguments = method.inputs.map { Self.sample($0.type) } + [.uint32(0)]
                    let name = await errorName {
                        _ = try await client.connection.call(destination: LocalAuthBusNames.busName, path: path, interface: interface.name,
                                                             member: method.name, arguments: arguments)
                    }
                    #expect(name == DBusError.Name.invalidArgs.rawValue, "\(interface.name).\(method.name)(\(method.inputSignature)u) answered \(name ?? "success")")
                    refused += 1
                }
            }
            #expect(refused == 15 + 17 + 10 + 7)
            #expect(try await client.userState() == before)
            #expect(try await client.property(context, "State") == .string("idle"))
        }
    }

    /// Each string property Set reaches the property it names (a Set of the fallback title once
    /// could only be told from the cancel title by its name).
    @Test func eachTitleSetReachesTheTitleItNames() async throws {
        try await withDaemon { _, bus in
            let client = try await Client(bus)
            let context = client.contextProxy(try await client.createContext())
            try await context.setProperty("LocalizedFallbackTitle", to: .string("Use Password"))
            #expect(try await context.property("LocalizedFallbackTitle") == .string("Use Password"))
            #expect(try await context.property("LocalizedCancelTitle") == .string("Cancel"))
            try await context.setProperty("LocalizedCancelTitle", to: .string("Not now"))
            #expect(try await context.property("LocalizedFallbackTitle") == .string("Use Password"))
            #expect(try await context.property("LocalizedCancelTitle") == .string("Not now"))
            let readOnly = await errorName {
                try await client.connection.setProperty("State", to: .string("idle"), interface: LocalAuthBusNames.contextInterface,
                                                        path: context.path, destination: LocalAuthBusNames.busName)
            }
            #expect(readOnly == DBusError.Name.propertyReadOnly.rawValue)
        }
    }

    /// `GetBackends` (the method added as one declaration line and one row) answers what the
    /// `Backends` property says.
    @Test func getBackendsIsTheBackendsProperty() async throws {
        try await withDaemon { _, bus in
            let client = try await Client(bus)
            let property = try await client.managerProxy.proxy.property("Backends")
            #expect(try await client.managerProxy.backends() == property)
            #expect(property.arrayElements?.count == 3, "passcode, fingerprint and face by default: \(property)")
        }
    }

    /// ProviderHost's stage runs before its table: a connection that is no provider's hears
    /// AccessDenied whatever member or arguments it sends, and learns nothing else.
    @Test func providerHostAdmitsNoStrangerWhateverItSends() async throws {
        try await withDaemon { _, bus in
            let client = try await Client(bus)
            for (member, arguments) in [("ReportAvailability", [DBusValue.bool(true)]), ("ReportAvailability", [.uint32(1)]),
                                        ("ReportAttempt", [.uint64(1), .string("match"), .string("")]), ("NoSuchMember", [])] {
                let name = await errorName {
                    _ = try await client.connection.call(destination: LocalAuthBusNames.busName, path: LocalAuthBusNames.providerHostPath,
                                                         interface: LocalAuthBusNames.providerHostInterface, member: member, arguments: arguments)
                }
                #expect(name == DBusError.Name.accessDenied.rawValue, "\(member)(\(DBusValue.signature(of: arguments))) answered \(name ?? "success")")
            }
        }
    }

    /// Calls sent back to back on one connection are answered in the order sent, whether each is
    /// queued (its sender's first call, a call waiting for the passcode hasher) or answered where it
    /// was read: a Cancel sent right after EvaluatePolicy finds the evaluation running.
    @Test func pipelinedCallsOfOneConnectionKeepTheirOrder() async throws {
        try await withDaemon { _, bus in
            let run = try await runTool("/usr/bin/python3", ["-c", Self.pipelined, bus.address], timeout: .seconds(30))
            #expect(run.status == 0, "\(run.output)")
            #expect(run.output.contains("fresh GetUserState,CreateContext,CreateContext,CanEvaluatePolicy"), "\(run.output)")
            #expect(run.output.contains("contexts distinct True"), "\(run.output)")
            #expect(run.output.contains("behind-hasher SetRequireAttention,CanEvaluatePolicy,Invalidate"), "\(run.output)")
            #expect(run.output.contains("cancel Cancel:ok,EvaluatePolicy:org.localauth.LocalAuthentication1.Error.UserCancel"), "\(run.output)")
        }
    }

    /// python3-dbus sends asynchronous calls in the order they are made and runs their handlers in
    /// the order the replies arrive.
    static let pipelined = """
    import sys, dbus
    from dbus.mainloop.glib import DBusGMainLoop
    from gi.repository import GLib
    DBusGMainLoop(set_as_default=True)
    bus = dbus.bus.BusConnection(sys.argv[1])
    N = 'org.localauth.LocalAuthentication1'
    M = '/org/localauth/LocalAuthentication1'
    manager = dbus.Interface(bus.get_object(N, M, introspect=False), N + '.Manager')
    def context(path):
        return dbus.Interface(bus.get_object(N, path, introspect=False), N + '.Context')
    def pipeline(calls):
        answers, loop = [], GLib.MainLoop()
        def handlers(name):
            def ok(*values):
                answers.append((name, 'ok', values))
                if len(answers) == len(calls): loop.quit()
            def failed(error):
                answers.append((name, error.get_dbus_name(), ()))
                if len(answers) == len(calls): loop.quit()
            return {'reply_handler': ok, 'error_handler': failed}
        for name, call in calls:
            call(**handlers(name))
        GLib.timeout_add_seconds(20, loop.quit)
        loop.run()
        return answers
    # The connection's first call waits for the bus to say who is calling; the rest are sent behind it.
    answers = pipeline([
        ('GetUserState', lambda **h: manager.GetUserState(**h)),
        ('CreateContext', lambda **h: manager.CreateContext(dbus.Dictionary({}, signature='sv'), **h)),
        ('CreateContext', lambda **h: manager.CreateContext(dbus.Dictionary({}, signature='sv'), **h)),
        ('CanEvaluatePolicy', lambda **h: context(M + '/context/999').CanEvaluatePolicy(dbus.UInt32(1), **h)),
    ])
    print('fresh', ','.join(a[0] for a in answers))
    paths = [a[2][0] for a in answers if a[0] == 'CreateContext']
    print('contexts distinct', len(paths) == 2 and paths[0] != paths[1])
    manager.SetPasscode('', 'py-passcode', timeout=60)
    manager.Enroll('fingerprint', 'left-thumb', 'py-passcode', timeout=60)
    path = paths[0]
    answers = pipeline([
        ('SetRequireAttention', lambda **h: manager.SetRequireAttention(False, 'py-passcode', timeout=60, **h)),
        ('CanEvaluatePolicy', lambda **h: context(path).CanEvaluatePolicy(dbus.UInt32(2), **h)),
        ('Invalidate', lambda **h: context(path).Invalidate(**h)),
    ])
    print('behind-hasher', ','.join(a[0] for a in answers))
    answers = pipeline([
        ('EvaluatePolicy', lambda **h: context(paths[1]).EvaluatePolicy(dbus.UInt32(1), 'pipelined', timeout=60, **h)),
        ('Cancel', lambda **h: context(paths[1]).Cancel(**h)),
    ])
    print('cancel', ','.join(sorted(a[0] + ':' + a[1] for a in answers)))
    """

    static func sample(_ type: String) -> DBusValue {
        switch type {
        case "s": .string("x")
        case "u": .uint32(1)
        case "b": .bool(false)
        case "a{sv}": .vardict([:])
        case "ay": .bytes([])
        default: preconditionFailure("no sample of \(type)")
        }
    }
}
