// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthAPI
import LocalAuthDBus
import LocalAuthProxies
import LocalAuthTestSupport
import Testing

/// Attacks on rights, their keys and secrets and the stored login password, against the real
/// daemon: the login password's release and discard rules, and what an unprivileged user can
/// send to every Rights and Context member (malformed keys, sizes, requirements, random
/// arguments) without crashing the daemon, reaching root's right, or getting a secret logged.
@Suite("Rights attacks", .timeLimit(.minutes(3)))
struct RightsAttackTests {
    static let passcode = "4711-secret"
    static let configuration = "key_protection = wrapping-key\n"

    /// A requirement that took the passcode in any of its steps is no biometric match: the login
    /// password stays locked after "biometry and passcode" and "passcode and biometry", and is
    /// released after "biometry" (the same steps without the passcode).
    @Test(.enabled(if: getuid() == 0, "the login password is released to root only"))
    func theLoginPasswordIsNotReleasedAfterARequirementThatTookThePasscode() async throws {
        try await withDaemon(configuration: Self.configuration) { daemon, bus in
            let client = try await Client(bus)
            try await client.setUp(passcode: Self.passcode, fingers: ["left-thumb"])
            let password = "login-\(UInt64.random(in: 1...UInt64.max))"
            try await RightsProxy(client.connection).storeLoginPassword(.string(password))
            let touch: Step = .touch("left-thumb"), typed: Step = .passcode(Self.passcode)
            for (requirement, steps) in [("biometry and passcode", [touch, typed]), ("passcode and biometry", [typed, touch])] {
                let context = client.contextProxy(try await client.createContext(["User": .uint32(0)]))
                #expect(await Self.evaluate(client, context, .requirement(requirement), steps) == nil, "\(requirement)")
                #expect(await errorName { _ = try await context.releaseLoginPassword() } == LocalAuthErrorName.rightNotAuthorized.dbusName,
                        "released after \(requirement)")
            }
            let touched = client.contextProxy(try await client.createContext(["User": .uint32(0)]))
            #expect(await Self.evaluate(client, touched, .requirement("biometry"), [touch]) == nil)
            #expect(try await touched.releaseLoginPassword().withBytes { String(decoding: $0, as: UTF8.self) } == password)
            #expect(!daemon.logText.contains(password), "the password is never logged")
        }
    }

    /// A success the context reuses (a second EvaluatePolicy answered by the first's match, no
    /// touch) releases nothing, nor does a match older than 30 s; a fresh match does.
    @Test(.enabled(if: getuid() == 0, "the login password is released to root only"))
    func theLoginPasswordIsReleasedOnlyWithinThirtySecondsOfAFreshMatch() async throws {
        try await withDaemon(configuration: Self.configuration) { _, bus in
            let client = try await Client(bus)
            try await client.setUp(passcode: Self.passcode, fingers: ["left-thumb"])
            try await RightsProxy(client.connection).storeLoginPassword(.string("reused"))
            let reused = client.contextProxy(try await client.createContext(["User": .uint32(0)]))
            #expect(await Self.evaluate(client, reused, .policy, [.touch("left-thumb")]) == nil)
            #expect(await Self.evaluate(client, reused, .policy, []) == nil, "the earlier success, without a prompt")
            #expect(await errorName { _ = try await reused.releaseLoginPassword() } == LocalAuthErrorName.rightNotAuthorized.dbusName)

            let late = client.contextProxy(try await client.createContext(["User": .uint32(0)]))
            #expect(await Self.evaluate(client, late, .policy, [.touch("left-thumb")]) == nil)
            let matched = ContinuousClock.now
            try await Task.sleep(until: matched + .seconds(31))
            #expect(await errorName { _ = try await late.releaseLoginPassword() } == LocalAuthErrorName.rightNotAuthorized.dbusName)

            let fresh = client.contextProxy(try await client.createContext(["User": .uint32(0)]))
            #expect(await Self.evaluate(client, fresh, .policy, [.touch("left-thumb")]) == nil)
            #expect(try await fresh.releaseLoginPassword().withBytes { String(decoding: $0, as: UTF8.self) } == "reused")
        }
    }

    /// DiscardLoginPassword removes the password its context released, never one the user
    /// stored after it (the PAM module discards a password that failed; the user's new one stays).
    @Test(.enabled(if: getuid() == 0, "the login password is released to root only"))
    func discardRemovesOnlyThePasswordTheContextReleased() async throws {
        try await withDaemon(configuration: Self.configuration) { _, bus in
            let client = try await Client(bus)
            try await client.setUp(passcode: Self.passcode, fingers: ["left-thumb"])
            let rights = RightsProxy(client.connection)
            try await rights.storeLoginPassword(.string("old password"))
            let pam = client.contextProxy(try await client.createContext(["User": .uint32(0)]))
            #expect(await Self.evaluate(client, pam, .policy, [.touch("left-thumb")]) == nil)
            #expect(try await pam.releaseLoginPassword().withBytes { String(decoding: $0, as: UTF8.self) } == "old password")
            // Meanwhile the user enrolls the new password; then the old one fails and is discarded.
            try await rights.storeLoginPassword(.string("new password"))
            #expect(await errorName { try await pam.discardLoginPassword() } == LocalAuthErrorName.rightNotFound.dbusName)
            #expect(try await client.userState()["LoginPasswordStored"]?.bool == true, "the new password stays")
            let next = client.contextProxy(try await client.createContext(["User": .uint32(0)]))
            #expect(await Self.evaluate(client, next, .policy, [.touch("left-thumb")]) == nil)
            #expect(try await next.releaseLoginPassword().withBytes { String(decoding: $0, as: UTF8.self) } == "new password")
            // The context that released the stored password does discard it.
            try await next.discardLoginPassword()
            #expect(try await client.userState()["LoginPasswordStored"]?.bool == false)
        }
    }

    /// A user's rights are bounded in bytes, not only in number: 1 024 rights of the largest secret
    /// made a 37 MB file, read on the engine (every user waited 6 s) and rewritten at each save on
    /// the queue every user's state is saved on (each save 5 s). With 63 rights of 16 KiB stored,
    /// another 16 KiB secret is refused; a small one and a replacement that does not grow are not.
    @Test func aUsersRightsAreBoundedInBytes() async throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let daemon = try DaemonUnderTest(bus: bus, configuration: Self.configuration)
        let secretBytes = 16_384
        try Self.writeRights(count: 63, sealedSecretCount: secretBytes + 41, in: daemon.stateDirectory)
        let watcher = try await bus.connect()
        defer { watcher.close(); daemon.kill() }
        try await daemon.start(watcher: watcher)
        let client = try await Client(bus)
        try await client.setUp(passcode: Self.passcode)
        let rights = RightsProxy(client.connection)
        #expect(try await rights.rights().count == 63, "the stored rights were read: \(daemon.logText)")
        let big = [UInt8](repeating: 7, count: secretBytes)
        let refused = await #expect(throws: DBusError.self) { _ = try await rights.saveRight("one-more", requirement: "passcode", secret: big) }
        #expect(refused?.name == .limitsExceeded && refused?.message.contains("KiB") == true, "\(String(describing: refused))")
        _ = try await rights.saveRight("small", requirement: "passcode", secret: Array("a token".utf8))
        _ = try await rights.saveRight("r000", requirement: "passcode", secret: big)
        #expect(try await rights.rights().count == 64)
    }

    /// uid 65534 sets its own passcode, saves and authorizes a right, then sends every Rights and
    /// Context member random and malformed arguments (sizes at and past the limits, bad keys,
    /// requirements, options of the wrong type): every call is answered, the daemon lives, root's
    /// right and login password are untouched, no secret reaches the log, and the state files
    /// stay root's alone.
    @Test(.enabled(if: getuid() == 0, "needs root to run a client as uid 65534"))
    func anotherUserFuzzingEveryRightsMemberReachesNothing() async throws {
        let rootSecret = "root-secret-\(UInt64.random(in: 1...UInt64.max))", password = "login-\(UInt64.random(in: 1...UInt64.max))"
        let theirSecret = "their-secret-\(UInt64.random(in: 1...UInt64.max))"
        try await withDaemon(configuration: Self.configuration, allowingEveryUser: true) { daemon, bus in
            let client = try await Client(bus)
            try await client.setUp(passcode: Self.passcode, fingers: ["left-thumb"])
            let rights = RightsProxy(client.connection)
            let mine = try await rights.saveRight("mine", requirement: "biometry", secret: Array(rootSecret.utf8))
            try await rights.storeLoginPassword(.string(password))
            let run = try await runTool("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-c",
                                                             PythonDBusClient.prelude + Self.fuzzer, bus.address, theirSecret, "2026", "600"],
                                        timeout: .seconds(120))
            #expect(run.status == 0, "\(run.output)")
            #expect(run.output.contains("authorized ok") && run.output.contains("loaded their secret"), "\(run.output)")
            #expect(run.output.contains("fuzzed 600"), "\(run.output)")
            #expect(try await rights.right("mine") == mine, "root's right is untouched")
            #expect(try await client.userState()["LoginPasswordStored"]?.bool == true)
            let log = daemon.logText
            for secret in [rootSecret, password, theirSecret, "nobody-pass-1"] { #expect(!log.contains(secret), "\(secret) in the log") }
            for (path, mode) in [("rights", 0o700), ("rights/0", 0o600), ("rights/65534", 0o600), ("sealing", 0o700), ("sealing/wrapping-key", 0o600)] {
                let attributes = try FileManager.default.attributesOfItem(atPath: daemon.stateDirectory + "/" + path)
                #expect((attributes[.posixPermissions] as? Int) == mode && (attributes[.ownerAccountID] as? Int) == 0, "\(path): \(attributes)")
            }
        }
    }

    /// A process that forks, keeps the bus connection in the child and execs another app's
    /// executable in the parent (the connection's process) is taken for that app: the child
    /// reads and removes busctl's right. The identity is read from /proc/<pid> at the first call,
    /// after the exec (CallerDirectory.identity(of:_:) → identify(credentials.pid)); and a pid reused after
    /// the parent's exit gives the child whatever process took it (an unconfined one, from a
    /// sandbox). Needs the bus's ProcessFD (dbus ≥ 1.15.8) or SO_PEERPIDFD to pin the process.
    @Test(.disabled("bug: app identity read by pid at the first call, after a fork and exec of the connection's process (Sources/Daemon/LocalAuthService/CallerDirectory.swift:299)"))
    func aForkedChildIsNotTakenForTheAppItsParentExecs() async throws {
        try await withDaemon(configuration: Self.configuration) { _, bus in
            let client = try await Client(bus)
            try await client.setUp(passcode: Self.passcode)
            let saved = try await runTool("/usr/bin/busctl", ["--address=\(bus.address)", "call", LocalAuthBusNames.busName, LocalAuthBusNames.rightsPath,
                                                              LocalAuthBusNames.rightsInterface, "SaveRight", "ssaya{sv}", "victim", "default", "1", "7", "0"])
            #expect(saved.status == 0, "\(saved.output)")
            let script = PythonDBusClient.prelude + """
                import os, time
                pid = os.fork()
                if pid == 0:
                    time.sleep(2)
                    r = dbus.Interface(bus.get_object(N, M + '/rights', introspect=False), N + '.Rights')
                    attempt('GetRight', lambda: r.GetRight('victim'))
                    attempt('RemoveRight', lambda: r.RemoveRight('victim'))
                    sys.stdout.flush()
                    os._exit(0)
                os.execv('/usr/bin/busctl', ['busctl', '--address=' + sys.argv[1], 'monitor', 'org.example.Nothing'])
                """
            // SIGKILL: the test process blocks SIGTERM, and its children inherit that.
            let run = try await runTool("/usr/bin/timeout", ["-s", "KILL", "6", "/usr/bin/python3", "-c", script, bus.address], timeout: .seconds(60))
            let lines = run.output.split(separator: "\n").map(String.init)
            #expect(lines.contains("GetRight \(LocalAuthErrorName.rightNotFound.dbusName)"), "\(run.output)")
            #expect(lines.contains("RemoveRight \(LocalAuthErrorName.rightNotFound.dbusName)"), "\(run.output)")
        }
    }

    /// The X9.63 key derivation hashes all of SharedInfo again for every 32 bytes it derives: 64 KiB
    /// out of 64 KiB of SharedInfo hashed 128 MiB, 0.14 s of the engine every user waits on, ten
    /// times a second from one user (root waited 3.7 s behind 60 such calls). Refused now; either
    /// extreme alone is served.
    @Test func aKeyExchangeCannotMakeTheEngineHashWithoutBound() async throws {
        try await withDaemon(configuration: Self.configuration) { _, bus in
            let client = try await Client(bus)
            try await client.setUp(passcode: Self.passcode)
            let publicKey = try #require(try await RightsProxy(client.connection).saveRight("kx", requirement: "passcode")["PublicKey"]?.bytes)
            let context = client.contextProxy(try await client.createContext())
            #expect(await Self.evaluate(client, context, .right("kx"), [.passcode(Self.passcode)]) == nil)
            func exchange(size: UInt32, sharedInfo: Int) async throws -> Int {
                let reply = try await client.context(context.path, "ExchangeKeys", [
                    .string("kx"), .bytes(publicKey), .string("algid:keyexchange:ECDH:KDFX963:SHA256"),
                    .vardict(["RequestedSize": .uint32(size), "SharedInfo": .bytes([UInt8](repeating: 1, count: sharedInfo))]),
                ])
                return reply.first?.bytes?.count ?? -1
            }
            let refused = await #expect(throws: DBusError.self) { _ = try await exchange(size: 65_536, sharedInfo: 65_536) }
            #expect(refused?.name == .invalidArgs && refused?.message.contains("SharedInfo") == true, "\(String(describing: refused))")
            #expect(try await exchange(size: 65_536, sharedInfo: 0) == 65_536)
            #expect(try await exchange(size: 32, sharedInfo: 65_536) == 32)
        }
    }

    // MARK: Helpers

    /// One evaluation step of a test: a touch of the simulator's finger, or the passcode typed.
    enum Step: Sendable {
        case touch(String)
        case passcode(String)
    }

    /// What a test evaluates on a context.
    enum Evaluated: Sendable {
        /// EvaluatePolicy 1 (biometry).
        case policy
        /// EvaluateRequirement.
        case requirement(String)
        /// AuthorizeRight.
        case right(String)
    }

    /// Evaluates `what` on `context`, each step answered once the daemon prompts for it; the
    /// D-Bus error name it ended with, nil on success.
    static func evaluate(_ client: Client, _ context: ContextProxy, _ what: Evaluated, _ steps: [Step]) async -> String? {
        do {
            let prompts = Inbox<String>()
            let subscription = try await client.connection.subscribe(
                DBusMatchRule(path: context.path, interface: LocalAuthBusNames.contextInterface, member: "Prompt")) { signal in
                prompts.put(signal.arguments.first?.string ?? "")
            }
            defer { client.connection.unsubscribe(subscription) }
            let call = Task {
                await errorName {
                    switch what {
                    case .policy:
                        _ = try await client.context(context.path, "EvaluatePolicy", [.uint32(1), .string("attack")], timeout: .seconds(60))
                    case .requirement(let requirement):
                        try await context.evaluateRequirement(requirement, reason: "attack", timeout: .seconds(60))
                    case .right(let identifier):
                        try await context.authorizeRight(identifier, reason: "attack", timeout: .seconds(60))
                    }
                }
            }
            for step in steps {
                switch step {
                case .touch(let finger):
                    while try await prompts.next(within: .seconds(60)) == "passcode" {}
                    try await client.simulator("Touch", [.string(finger)])
                case .passcode(let passcode):
                    while try await prompts.next(within: .seconds(60)) != "passcode" {}
                    try await context.submitPasscode(.string(passcode))
                }
            }
            return await call.value
        } catch {
            return "\(error)"
        }
    }

    /// Writes `count` rights of this test's executable with sealed secrets of `sealedSecretCount`
    /// random bytes into uid 0's rights file under `stateDirectory` (the file's version 1 form);
    /// they list and count, and are never unsealed.
    static func writeRights(count: Int, sealedSecretCount: Int, in stateDirectory: String) throws {
        let application = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        func hex(_ count: Int) -> String { (0..<count).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined() }
        let rights: [[String: Any]] = (0..<count).map { index in
            ["identifier": String(format: "r%03d", index), "application": application, "requirement": "passcode",
             "generation": UInt64.random(in: 1...UInt64.max), "created": 0, "publicKey": hex(65), "sealedPrivateKey": hex(73),
             "sealedSecret": hex(sealedSecretCount)]
        }
        let directory = stateDirectory + "/rights"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: stateDirectory)
        let data = try JSONSerialization.data(withJSONObject: ["version": 1, "rights": rights])
        #expect(FileManager.default.createFile(atPath: directory + "/\(getuid())", contents: data, attributes: [.posixPermissions: 0o600]))
    }

    /// The fuzzer run as uid 65534 (`python3 -c prelude+fuzzer ADDRESS SECRET SEED COUNT`): sets
    /// its passcode, saves `SECRET` as right "big", authorizes it with the passcode, loads it, then
    /// sends COUNT random calls to the Rights and Context members (not those that wait for the
    /// user or remove its own rights) and prints `fuzzed COUNT` when every one was answered.
    static let fuzzer = #"""
    import random, time
    from dbus.mainloop.glib import DBusGMainLoop
    from gi.repository import GLib
    secret, rnd, count = sys.argv[2].encode(), random.Random(int(sys.argv[3])), int(sys.argv[4])
    abus = dbus.bus.BusConnection(sys.argv[1], mainloop=DBusGMainLoop())
    E = dbus.Dictionary({}, signature='sv')
    RI, CI = N + '.Rights', N + '.Context'
    m = dbus.Interface(abus.get_object(N, M), N + '.Manager')
    r = dbus.Interface(abus.get_object(N, M + '/rights'), RI)
    m.SetPasscode('', 'nobody-pass-1')
    r.SaveRight('big', 'passcode', dbus.ByteArray(secret), E)
    path = m.CreateContext(E)
    c = dbus.Interface(abus.get_object(N, path), CI)
    done = []
    c.AuthorizeRight('big', 'fuzz', reply_handler=lambda *a: done.append('ok'), error_handler=lambda e: done.append(e.get_dbus_name()), timeout=60)
    loop = GLib.MainContext.default()
    for i in range(300):
        loop.iteration(False)
        try:
            c.SubmitPasscode('nobody-pass-1'); break
        except dbus.DBusException:
            time.sleep(0.1)
    while not done: loop.iteration(True)
    print('authorized', done[0])
    if bytes(c.LoadSecret('big')) == secret: print('loaded their secret')
    pk = bytes(r.GetRight('big')['PublicKey'])
    members = {RI: [('SaveRight', 'ssaya{sv}'), ('GetRight', 's'), ('ListRights', 'b'), ('RemoveApplicationRight', 'sss'), ('Encrypt', 'aysay'),
                    ('Verify', 'aysayay'), ('StoreLoginPassword', 's'), ('RemoveLoginPassword', '')],
               CI: [('CheckCanAuthorizeRight', 's'), ('DeauthorizeRight', 's'), ('CanEvaluateRequirement', 'sa{sv}'), ('LoadSecret', 's'),
                    ('Sign', 'ssay'), ('Decrypt', 'ssay'), ('ExchangeKeys', 'saysa{sv}'), ('ReleaseLoginPassword', ''), ('DiscardLoginPassword', '')]}
    words = ['', 'big', 'mine', ' ', 'default', 'biometry or passcode', 'passcode and default', 'biometry-current-set', 'default or',
             'algid:sign:ECDSA:message-X962:SHA256', 'algid:sign:ECDSA:digest-X962:SHA256', 'algid:encrypt:ECIES:ECDH:KDFX963:SHA256:AESGCM-KDFIV',
             'algid:keyexchange:ECDH', 'algid:keyexchange:ECDHC:KDFX963:SHA256', 'localauthd:login-keyring', 'login-password', 'x' * 129, '\u202e', 'é' * 65]
    def text(): return rnd.choice(words) if rnd.random() < 0.8 else ''.join(chr(rnd.randint(1, 0x2fff)) for _ in range(rnd.randint(0, 40)))
    def data():
        k = rnd.randrange(5)
        if k == 0: return dbus.ByteArray(pk if rnd.random() < 0.5 else pk[:-1] + bytes([pk[-1] ^ 1]))
        if k == 1: return dbus.ByteArray(b'\x04' + bytes(rnd.getrandbits(8) for _ in range(64)))
        return dbus.ByteArray(bytes(rnd.getrandbits(8) for _ in range(rnd.choice([0, 1, 32, 81, 16384, 16385, 65536, 65537]))))
    def options():
        keys = ['RequestedSize', 'SharedInfo', 'DomainState', 'x']
        return dbus.Dictionary({rnd.choice(keys): rnd.choice([dbus.UInt32(rnd.choice([0, 1, 32, 65536, 65537, 2**32 - 1])), data(), dbus.String(text()), dbus.Int64(-1)])
                                for _ in range(rnd.randint(0, 3))}, signature='sv')
    def split(signature): return signature.replace('a{sv}', 'D').replace('ay', 'Y')
    make = {'s': lambda: dbus.String(text()), 'b': lambda: dbus.Boolean(rnd.random() < 0.5), 'Y': data, 'D': options}
    answered = 0
    for n in range(count):
        interface = rnd.choice([RI, CI]); name, signature = rnd.choice(members[interface])
        kinds = list(split(signature))
        if rnd.random() < 0.1: kinds = [rnd.choice('sbYD') for _ in range(rnd.randint(0, 5))]
        arguments = [make[k]() for k in kinds]
        wire = ''.join({'s': 's', 'b': 'b', 'Y': 'ay', 'D': 'a{sv}'}[k] for k in kinds)
        target = abus.get_object(N, M + '/rights' if interface == RI else path, introspect=False)
        try:
            target.get_dbus_method(name, interface)(*arguments, signature=wire, timeout=30)
            answered += 1
        except dbus.DBusException as e:
            if e.get_dbus_name() in ('org.freedesktop.DBus.Error.NoReply', 'org.freedesktop.DBus.Error.ServiceUnknown', 'org.freedesktop.DBus.Error.Disconnected'):
                print('unanswered', name, e.get_dbus_name()); sys.exit(1)
            answered += 1
    print('fuzzed', answered)
    """#
}
