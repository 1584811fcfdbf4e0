// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthAPI
import LocalAuthDBus
import LocalAuthProxies
import LocalAuthTestSupport
import Testing

/// What another application, another user or another connection can do with my right: nothing,
/// and it cannot tell the right exists (RightNotFound as for none). And the limits.
@Suite("Rights attacks and limits", .timeLimit(.minutes(3)))
struct RightsAttackTests {
    /// python3 (another executable of the same user) asking for the test's right: RightNotFound
    /// from every member, and its own right of the same name is another right.
    @Test func anotherApplicationOfTheSameUserFindsNothing() async throws {
        try await withDaemon(configuration: RightsTests.configuration) { _, bus in
            let client = try await Client(bus)
            try await client.setUp(fingers: ["left-thumb"])
            let mine = try await client.rightsProxy.saveRight("mine", requirement: "default", secret: Array("my secret".utf8))
            let script = """
                r = dbus.Interface(bus.get_object(N, M + '/rights'), N + '.Rights')
                m = dbus.Interface(bus.get_object(N, M), N + '.Manager')
                c = dbus.Interface(bus.get_object(N, m.CreateContext(dbus.Dictionary({}, signature='sv'))), N + '.Context')
                attempt('GetRight', lambda: r.GetRight('mine'))
                attempt('RemoveRight', lambda: r.RemoveRight('mine'))
                attempt('CheckCanAuthorizeRight', lambda: c.CheckCanAuthorizeRight('mine'))
                attempt('AuthorizeRight', lambda: c.AuthorizeRight('mine', 'steal', timeout=60))
                attempt('LoadSecret', lambda: c.LoadSecret('mine'))
                attempt('Sign', lambda: c.Sign('mine', '\(RightKeyAlgorithmName.signMessage)', dbus.ByteArray(b'x')))
                attempt('DeauthorizeRight', lambda: c.DeauthorizeRight('mine'))
                print('listed', len(r.ListRights(False)))
                print('own', bytes(r.SaveRight('mine', 'default', dbus.ByteArray(b'theirs'), dbus.Dictionary({}, signature='sv'))['PublicKey']).hex())
                """
            let run = try await RightsTests.python(bus, script)
            let lines = run.output.split(separator: "\n").map(String.init)
            let notFound = RightsTests.error(.rightNotFound)
            for member in ["GetRight", "RemoveRight", "CheckCanAuthorizeRight", "AuthorizeRight", "LoadSecret", "Sign", "DeauthorizeRight"] {
                #expect(lines.contains("\(member) \(notFound)"), "\(member): \(run.output)")
            }
            #expect(lines.contains("listed 0"), "\(run.output)")
            let theirs = try #require(lines.first { $0.hasPrefix("own ") }, "\(run.output)")
            let myKey = try #require(mine["PublicKey"]?.bytes)
            #expect(theirs != "own " + myKey.map { String(format: "%02x", $0) }.joined(), "its right has its own key")
            #expect(try await client.rightsProxy.right("mine") == mine, "mine is untouched")

            let gdbus = try await runTool("/usr/bin/gdbus", ["call", "--address", bus.address, "--dest", LocalAuthBusNames.busName,
                                                             "--object-path", LocalAuthBusNames.rightsPath, "--method", "\(LocalAuthBusNames.rightsInterface).GetRight", "mine"])
            #expect(gdbus.status != 0 && gdbus.output.contains(notFound), "\(gdbus.output)")
        }
    }

    /// uid 65534 asking for root's right, on a bus with the installed policy (which lets it call
    /// Rights): RightNotFound; it lists none; it may not have the login password released, nor
    /// remove root's rights.
    @Test(.enabled(if: getuid() == 0, "needs root to run a client as uid 65534"))
    func anotherUserFindsNothing() async throws {
        try await withDaemon(configuration: RightsTests.configuration, installedPolicy: true) { _, bus in
            let client = try await Client(bus)
            try await client.setUp(fingers: ["left-thumb"])
            _ = try await client.rightsProxy.saveRight("mine", requirement: "passcode", secret: [1, 2, 3])
            try await client.rightsProxy.storeLoginPassword(.string("root's password"))
            let script = """
                r = dbus.Interface(bus.get_object(N, M + '/rights'), N + '.Rights')
                m = dbus.Interface(bus.get_object(N, M), N + '.Manager')
                c = dbus.Interface(bus.get_object(N, m.CreateContext(dbus.Dictionary({}, signature='sv'))), N + '.Context')
                attempt('GetRight', lambda: r.GetRight('mine'))
                attempt('AuthorizeRight', lambda: c.AuthorizeRight('mine', 'steal', timeout=60))
                attempt('LoadSecret', lambda: c.LoadSecret('mine'))
                attempt('ReleaseLoginPassword', lambda: c.ReleaseLoginPassword())
                attempt('RemoveApplicationRight', lambda: r.RemoveApplicationRight(sys.argv[2], 'mine', '4711-secret'))
                print('listed', len(r.ListRights(True)))
                """
            let run = try await runTool("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-c",
                                                             PythonDBusClient.prelude + script, bus.address, RightsTests.testExecutable], timeout: .seconds(60))
            let lines = run.output.split(separator: "\n").map(String.init)
            let notFound = RightsTests.error(.rightNotFound)
            for member in ["GetRight", "AuthorizeRight", "LoadSecret"] {
                #expect(lines.contains("\(member) \(notFound)"), "\(member): \(run.output)")
            }
            let release = lines.first { $0.hasPrefix("ReleaseLoginPassword ") }
            #expect(release == "ReleaseLoginPassword \(DBusError.Name.accessDenied.rawValue)", "\(run.output)")
            let remove = lines.first { $0.hasPrefix("RemoveApplicationRight ") }
            #expect(remove != nil && remove != "RemoveApplicationRight allowed", "its own user has no such right and no passcode: \(run.output)")
            #expect(lines.contains("listed 0"), "\(run.output)")
            #expect(try await client.rightsProxy.rights().map(\.identifier) == ["mine"])
            #expect(try await client.userState()["LoginPasswordStored"]?.bool == true)
        }
    }

    /// A Flatpak app keeps rights of its own (`flatpak:<id>`), but may not list other apps'
    /// rights, remove them, nor store or remove the login password; the user sees its right.
    @Test(.enabled(if: getuid() == 0, "the sandbox emulation needs root (mount namespace, chroot)"))
    func aSandboxedAppKeepsItsOwnRightsAndReachesNoOthers() async throws {
        try await withDaemon(configuration: RightsTests.configuration) { _, bus in
            let user = try await Client(bus)
            try await user.setUp(fingers: ["left-thumb"])
            _ = try await user.rightsProxy.saveRight("users", requirement: "default")
            try await user.rightsProxy.storeLoginPassword(.string("login"))
            let app = PythonDBusClient.prelude + """
                r = dbus.Interface(bus.get_object(N, M + '/rights'), N + '.Rights')
                attempt('SaveRight', lambda: r.SaveRight('box', 'default', dbus.ByteArray(b'k'), dbus.Dictionary({}, signature='sv')))
                attempt('GetRight', lambda: r.GetRight('box'))
                attempt('ListOwn', lambda: r.ListRights(False))
                attempt('ListAll', lambda: r.ListRights(True))
                attempt('RemoveApplicationRight', lambda: r.RemoveApplicationRight(sys.argv[2], 'users', '\(RightsTests.passcode)'))
                attempt('StoreLoginPassword', lambda: r.StoreLoginPassword('stolen'))
                attempt('RemoveLoginPassword', lambda: r.RemoveLoginPassword())
                """
            let root = FileManager.default.temporaryDirectory.appendingPathComponent("flatpak-root-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: false)
            defer { try? FileManager.default.removeItem(at: root) }
            let result = try await runTool("/usr/bin/unshare", ["--mount", "--propagation", "private", "/bin/sh", "-c", AppIdentityUnderTheUnitTests.flatpakSandbox,
                                                                "sandbox", root.path, "/usr/bin/python3", "-c", app, bus.address, RightsTests.testExecutable],
                                           timeout: .seconds(60))
            let lines = result.output.split(separator: "\n").map(String.init)
            let denied = DBusError.Name.accessDenied.rawValue
            for line in ["SaveRight allowed", "GetRight allowed", "ListOwn allowed", "ListAll \(denied)", "RemoveApplicationRight \(denied)",
                         "StoreLoginPassword \(denied)", "RemoveLoginPassword \(denied)"] {
                #expect(lines.contains(line), "expected \"\(line)\" in:\n\(result.output)")
            }
            let all = try await user.rightsProxy.rights(allApplications: true).map { "\($0.application) \($0.identifier)" }
            #expect(all.contains("flatpak:org.example.Sandboxed box") && all.contains("\(RightsTests.testExecutable) users"), "\(all)")
            #expect(try await user.userState()["LoginPasswordStored"]?.bool == true, "still the user's")
            #expect(try await user.userState()["PasscodeFailures"]?.uint32 == 0, "refused before the passcode was checked")
        }
    }

    /// An app the daemon cannot identify (another user's, with the unit's CAP_SYS_PTRACE taken
    /// away) has no rights: AccessDenied, saying why.
    @Test(.enabled(if: getuid() == 0, "needs root to run a client as uid 65534"))
    func anUnidentifiedAppHasNoRights() async throws {
        try await withPrivateBus(allowingEveryUser: true) { bus in
            let watcher = try await bus.connect()
            defer { watcher.close() }
            let daemon = try DaemonUnderTest(bus: bus, configuration: RightsTests.configuration)
            defer { daemon.kill() }
            try await daemon.start(watcher: watcher, launcher: AppIdentityUnderTheUnitTests.launcher(keepingPtrace: false))
            let script = PythonDBusClient.prelude + """
                r = dbus.Interface(bus.get_object(N, M + '/rights'), N + '.Rights')
                m = dbus.Interface(bus.get_object(N, M), N + '.Manager')
                c = dbus.Interface(bus.get_object(N, m.CreateContext(dbus.Dictionary({}, signature='sv'))), N + '.Context')
                attempt('SaveRight', lambda: r.SaveRight('r', 'default', dbus.ByteArray(b''), dbus.Dictionary({}, signature='sv')))
                attempt('GetRight', lambda: r.GetRight('r'))
                attempt('ListRights', lambda: r.ListRights(False))
                attempt('RemoveAllRights', lambda: r.RemoveAllRights())
                attempt('AuthorizeRight', lambda: c.AuthorizeRight('r', 'reason', timeout=60))
                try:
                    r.GetRight('r')
                except dbus.DBusException as e:
                    print('message', e.get_dbus_message())
                """
            let result = try await runTool("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-c", script, bus.address],
                                           timeout: .seconds(60))
            let lines = result.output.split(separator: "\n").map(String.init)
            let denied = DBusError.Name.accessDenied.rawValue
            for member in ["SaveRight", "GetRight", "ListRights", "RemoveAllRights", "AuthorizeRight"] {
                #expect(lines.contains("\(member) \(denied)"), "\(member): \(result.output)")
            }
            #expect(lines.contains { $0.hasPrefix("message ") && $0.contains("could not tell which app") }, "\(result.output)")
        }
    }

    /// An authorized context is its owner's: another connection of the same process and user
    /// sees no such object.
    @Test func anAuthorizedContextServesOnlyItsOwner() async throws {
        try await withDaemon(configuration: RightsTests.configuration) { _, bus in
            let client = try await Client(bus)
            try await client.setUp(fingers: ["left-thumb"])
            _ = try await client.rightsProxy.saveRight("owned", requirement: "biometry", secret: [9])
            let context = client.contextProxy(try await client.createContext())
            #expect(await client.authorize(context, "owned") { try await client.simulator("Touch", [.string("left-thumb")]) } == nil)
            let intruder = try await Client(bus)
            let stolen = intruder.contextProxy(context.path)
            #expect(await errorName { _ = try await stolen.loadSecret("owned") } == DBusError.Name.unknownObject.rawValue)
            #expect(await errorName { try await stolen.deauthorizeRight("owned") } == DBusError.Name.unknownObject.rawValue)
            #expect(try await context.loadSecret("owned") == [9])
            // Invalidating the context ends the authorization with it.
            try await context.invalidate()
            #expect(await errorName { _ = try await context.loadSecret("owned") } == RightsTests.error(.invalidContext))
        }
    }

    /// At most 30 saves and removals per user per minute; key operations in bursts of 100.
    @Test func savesAndKeyOperationsAreLimited() async throws {
        try await withDaemon(configuration: RightsTests.configuration) { _, bus in
            let client = try await Client(bus)
            try await client.setUp()
            let rights = client.rightsProxy
            // A bucket of 30 refilling one every 2 s: saves in a row are refused from the 31st on
            // (later when the machine is slow and the bucket refilled meanwhile).
            var publicKey: [UInt8] = []
            var saves = 0
            while saves < 200 {
                do {
                    publicKey = try #require(try await rights.saveRight("r\(saves)", requirement: "default")["PublicKey"]?.bytes)
                    saves += 1
                } catch let error as DBusError {
                    #expect(error.name == .limitsExceeded, "\(error)")
                    // Beyond 64 rights of one app the refusal is that limit's, which no wait lifts.
                    if saves < 64 { #expect(error.message.contains("try again in"), "says when to retry: \(error.message)") }
                    break
                }
            }
            #expect(saves >= 30 && saves < 200, "\(saves) saves in a row were allowed")
            #expect(try await rights.rights().count == saves, "nothing refused was saved")
            var removals = 0
            while removals < 20, await errorName({ try await rights.removeRight("r\(removals)") }) == nil { removals += 1 }
            #expect(removals < 20, "removals count against the same limit")

            var refusedAt: Int?
            for attempt in 0..<2_000 {
                if let name = await errorName({ _ = try await rights.encrypt(publicKey: publicKey, algorithm: RightKeyAlgorithmName.eciesStandard, plaintext: [1]) }) {
                    #expect(name == DBusError.Name.limitsExceeded.rawValue)
                    refusedAt = attempt
                    break
                }
            }
            let refused = try #require(refusedAt, "2 000 key operations in a row were all served")
            #expect(refused >= 100, "a burst of 100 is allowed")
        }
    }
}
