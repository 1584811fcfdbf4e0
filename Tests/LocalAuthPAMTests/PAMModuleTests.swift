// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthAPI
import LocalAuthDBus
import LocalAuthTestSupport
import Synchronization
import Testing

/// `pam_localauth.so` under pam_wrapper against the real daemon on a private bus. The PAM user is
/// root, the uid the test's own client sets up, so the module's unlock context is for that user.
/// Simulator touches are queued for the next evaluation, so no test waits for the module to listen.
@Suite("pam_localauth.so", .timeLimit(.minutes(2)))
struct PAMModuleTests {
    typealias D = DaemonUnderTest
    static let finger = "right-index-finger"
    static let passcode = "4711-secret"
    /// Simulator input may wait in the queue longer than the default 10 s on a loaded machine.
    static let configuration = "simulator_event_ttl = 600\n"
    /// pypamtest's expected return values (Linux-PAM numbers).
    static let authError: Int32 = 7, authinfoUnavailable: Int32 = 9, maxTries: Int32 = 11

    private func withEnrolledDaemon(passcodeOnly: Bool = false,
                                    _ body: (Client, PrivateBus) async throws -> Void) async throws {
        try await withEnrolledDaemon(passcodeOnly: passcodeOnly) { client, bus, _ in try await body(client, bus) }
    }

    private func withEnrolledDaemon(passcodeOnly: Bool = false, allowingEveryUser: Bool = false,
                                    _ body: (Client, PrivateBus, DaemonUnderTest) async throws -> Void) async throws {
        try await withDaemon(configuration: Self.configuration, allowingEveryUser: allowingEveryUser) { daemon, bus in
            let client = try await Client(bus)
            try await client.setUp(passcode: Self.passcode, fingers: passcodeOnly ? [] : [Self.finger])
            try await body(client, bus, daemon)
        }
    }

    @Test func aMatchAuthenticates() async throws {
        try await withEnrolledDaemon { client, bus in
            let pam = try PAMHarness(bus: bus)
            // Touch after the prompt: queued input that decides the evaluation at once is read without one.
            let tester = try pam.pamtester("solo")
            try await tester.waitForLine(containing: "Touch the fingerprint sensor to sign in as root (solo).")
            try await client.simulator("Touch", [.string(Self.finger)])
            let result = try await tester.finish()
            #expect(result.status == 0 && result.output.contains(PAMOutcome.success), "\(result.output)")
            #expect(try await client.userState()["BiometryFailures"] == .uint32(0))
        }
    }

    @Test func aNoMatchEndsWithMaxTriesAndThePasswordStillWorks() async throws {
        try await withEnrolledDaemon { client, bus in
            let pam = try PAMHarness(bus: bus)
            try await client.simulator("Touch", [.string("left-thumb")])
            let alone = try await pam.run("solo")
            #expect(alone.status != 0 && alone.output.contains(PAMOutcome.maxTries), "\(alone.output)")

            try await client.simulator("Touch", [.string("left-thumb")])
            let stacked = try await pam.run("stack", input: PAMHarness.password + "\n")
            #expect(stacked.status == 0 && stacked.output.contains(PAMOutcome.success), "\(stacked.output)")
            #expect(stacked.output.contains("Fingerprint not recognized") && stacked.output.contains("Password:"))
            #expect(try await client.userState()["BiometryFailures"] == .uint32(2), "every no-match counts in the daemon")
        }
    }

    @Test func daemonDownGoesStraightToThePassword() async throws {
        try await withPrivateBus { bus in
            // A wait for the timeout would outlast the suite's time limit.
            let pam = try PAMHarness(bus: bus, arguments: "timeout=600")
            let alone = try await pam.run("solo")
            #expect(alone.output.contains(PAMOutcome.authinfoUnavailable), "\(alone.output)")
            let stacked = try await pam.run("stack", input: PAMHarness.password + "\n")
            #expect(stacked.status == 0 && !stacked.output.contains("Touch") && !stacked.output.contains("Timed out"), "\(stacked.output)")
        }
    }

    @Test func aRemoteHostSkipsBiometrics() async throws {
        try await withEnrolledDaemon { client, bus in
            let pam = try PAMHarness(bus: bus)
            try await client.simulator("Touch", [.string(Self.finger)])
            let remote = try await pam.run("solo", items: ["rhost=laptop.example.org"])
            #expect(remote.output.contains(PAMOutcome.authinfoUnavailable) && !remote.output.contains("Touch"), "\(remote.output)")
            let stacked = try await pam.run("stack", input: PAMHarness.password + "\n", items: ["rhost=laptop.example.org"])
            #expect(stacked.status == 0, "\(stacked.output)")
            let pending = try await client.connection.property("Pending", interface: LocalAuthBusNames.simulatorInterface, path: LocalAuthBusNames.simulatorPath, destination: LocalAuthBusNames.busName)
            #expect(pending == .uint32(1), "the touch was not read")
            // rhost=localhost is local.
            let local = try await pam.run("solo", items: ["rhost=localhost"])
            #expect(local.status == 0, "\(local.output)")
        }
    }

    @Test func nothingEnrolledFallsThroughSilently() async throws {
        try await withEnrolledDaemon(passcodeOnly: true) { _, bus in
            let pam = try PAMHarness(bus: bus)
            let alone = try await pam.run("solo")
            #expect(alone.output.contains(PAMOutcome.authinfoUnavailable) && !alone.output.contains("Touch"), "\(alone.output)")
        }
    }

    @Test func theTimeoutCancelsAndFallsThrough() async throws {
        try await withEnrolledDaemon { client, bus in
            let pam = try PAMHarness(bus: bus, arguments: "timeout=1")
            let alone = try await pam.run("solo")
            #expect(alone.output.contains("Timed out; use your password.") && alone.output.contains(PAMOutcome.authinfoUnavailable), "\(alone.output)")
            // The sensor is free again: the next evaluation listens at once.
            let context = try await client.createContext()
            let evaluation = try await client.begin(context, policy: 1)
            try await client.simulator("Touch", [.string(Self.finger)])
            #expect(await evaluation.value == nil)
        }
    }

    @Test func fiveFailuresAcrossPAMAndAnAppLockBiometryForBoth() async throws {
        try await withEnrolledDaemon { client, bus in
            let pam = try PAMHarness(bus: bus)
            for _ in 1...3 {
                try await client.simulator("Touch", [.string("left-thumb")])
                let result = try await pam.run("solo")
                #expect(result.output.contains(PAMOutcome.maxTries), "\(result.output)")
            }
            let app = try await client.createContext()
            let evaluation = try await client.begin(app, policy: 1)
            for _ in 1...2 { try await client.simulator("Touch", [.string("left-thumb")]) }
            #expect(await evaluation.value == LocalAuthBusNames.errorPrefix + "BiometryLockout")

            try await client.simulator("Touch", [.string(Self.finger)])
            let locked = try await pam.run("solo")
            #expect(locked.output.contains("Biometry is locked after too many failed attempts; use your password."), "\(locked.output)")
            #expect(locked.output.contains(PAMOutcome.authinfoUnavailable))
            let stacked = try await pam.run("stack", input: PAMHarness.password + "\n")
            #expect(stacked.status == 0, "\(stacked.output)")
            let later = try await client.createContext()
            #expect(await errorName { _ = try await client.context(later, "CanEvaluatePolicy", [.uint32(1)]) } == LocalAuthBusNames.errorPrefix + "BiometryLockout")
        }
    }

    @Test func conversationTextsUseTheDaemonsPrompts() async throws {
        try await withEnrolledDaemon { client, bus in
            let waiting = try PAMHarness(bus: bus, arguments: "timeout=1")
            let timedOut = try await waiting.pypamtest("solo", expecting: Self.authinfoUnavailable)
            #expect(timedOut.info == ["Touch the fingerprint sensor to sign in as root (solo). Press Ctrl-C to cancel."])
            #expect(timedOut.errors == ["Timed out; use your password."])

            let pam = try PAMHarness(bus: bus, arguments: "max-tries=2")
            try await client.simulator("Touch", [.string("left-thumb")])
            try await client.simulator("FingerprintRetry", [.string("too-short")])
            try await client.simulator("Touch", [.string("left-thumb")])
            let failed = try await pam.pypamtest("solo", expecting: Self.maxTries)
            let noMatch = "Fingerprint not recognized; try again. Press Ctrl-C to cancel."
            #expect(failed.errors == [noMatch, "The swipe was too short; try again.", noMatch])
        }
    }

    @Test func ctrlCCancelsTheEvaluationAndFallsThrough() async throws {
        try await withEnrolledDaemon { client, bus, daemon in
            let pam = try PAMHarness(bus: bus, arguments: "timeout=60")
            let tester = try pam.pamtester("stack", interruptible: true)
            try await tester.waitForLine(containing: "Touch the fingerprint sensor")
            tester.interrupt()
            try await tester.waitForLine(containing: "Cancelled; use your password.")
            // pamtester is still running (at pam_matrix's prompt): the daemon's evaluation has ended,
            // so a new one gets the sensor at once instead of waiting for it.
            let context = try await client.createContext()
            let prompts = Inbox<String>()
            let subscription = try await client.connection.subscribe(
                DBusMatchRule(path: context, interface: LocalAuthBusNames.contextInterface, member: "Prompt")) { prompts.put($0.arguments.first?.string ?? "") }
            defer { client.connection.unsubscribe(subscription) }
            async let evaluation = errorName { _ = try await client.context(context, "EvaluatePolicy", [.uint32(1), .string("check")]) }
            #expect(try await prompts.next(within: .seconds(20)) == "biometry")
            try await client.simulator("Touch", [.string(Self.finger)])
            #expect(await evaluation == nil)
            // The module cancelled it (UserCancel), not merely dropped its context or connection.
            let audit = daemon.logText.split(separator: "\n").filter { $0.contains("evaluation uid=0") }
            #expect(audit.count == 2 && audit.first?.contains("policy=1 result=UserCancel") == true, "\(daemon.logText)")

            tester.write(PAMHarness.password + "\n")
            let result = try await tester.finish()
            #expect(result.status == 0 && result.output.contains(PAMOutcome.success), "\(result.output)")
            #expect(try await client.userState()["BiometryFailures"] == .uint32(0), "a cancel is not a failure")
        }
    }

    @Test func ownerPolicyTakesTheRightPasscode() async throws {
        try await withEnrolledDaemon(passcodeOnly: true) { client, bus in
            let pam = try PAMHarness(bus: bus, arguments: "policy=owner")
            let result = try await pam.run("solo", input: Self.passcode + "\n")
            #expect(result.status == 0 && result.output.contains(PAMOutcome.success), "\(result.output)")
            #expect(result.output.contains("Enter your passcode to sign in as root (solo)."), "\(result.output)")
            #expect(try await client.userState()["PasscodeFailures"] == .uint32(0))
        }
    }

    @Test func ownerPolicyAsksForThePasscodeAfterANoMatch() async throws {
        try await withEnrolledDaemon { client, bus in
            let pam = try PAMHarness(bus: bus, arguments: "policy=owner")
            try await client.simulator("Touch", [.string("left-thumb")])
            let texts = try await pam.pypamtest("solo", expecting: 0, passwords: [Self.passcode])
            #expect(texts.errors.first?.hasPrefix("Fingerprint not recognized") == true, "\(texts.errors)")
            #expect(texts.info.contains { $0.contains("Enter your passcode to sign in as root (solo).") }, "\(texts.info)")
            // The no-match was counted; the passcode success then cleared it, as on Apple devices.
            #expect(try await client.userState()["BiometryFailures"] == .uint32(0))
        }
    }

    @Test func ownerPolicyAsksForThePasscodeWhenNoTouchComesInTime() async throws {
        try await withEnrolledDaemon { client, bus in
            let pam = try PAMHarness(bus: bus, arguments: "policy=owner timeout=1")
            let texts = try await pam.pypamtest("solo", expecting: 0, passwords: [Self.passcode])
            #expect(texts.info.count == 2 && texts.info.last == "Enter your passcode to sign in as root (solo). Press Ctrl-C to cancel.", "\(texts.info)")
            #expect(texts.errors.isEmpty, "\(texts.errors)")
            #expect(try await client.userState()["BiometryFailures"] == .uint32(0), "a timeout is not a failure")
        }
    }

    @Test func ownerPolicyWithAWrongPasscodeFailsAndIsCounted() async throws {
        try await withEnrolledDaemon(passcodeOnly: true) { client, bus in
            let pam = try PAMHarness(bus: bus, arguments: "policy=owner")
            let alone = try await pam.run("solo", input: "wrong-one\n")
            #expect(alone.output.contains(PAMOutcome.authError), "\(alone.output)")
            #expect(try await client.userState()["PasscodeFailures"] == .uint32(1), "the daemon counted it")
            // pamtester's conversation reads standard input in one go, so two answers go through pypamtest.
            _ = try await pam.pypamtest("stack", expecting: 0, passwords: ["wrong-two", PAMHarness.password])
            #expect(try await client.userState()["PasscodeFailures"] == .uint32(2))
            // An empty answer skips to the password without counting.
            _ = try await pam.pypamtest("stack", expecting: 0, passwords: ["", PAMHarness.password])
            #expect(try await client.userState()["PasscodeFailures"] == .uint32(2))
        }
    }

    /// A passcode that is not UTF-8 would make libdbus abort the host process (sudo, login): it is
    /// refused before it reaches libdbus, the stack goes on to the password, nothing is counted.
    @Test func aPasscodeThatIsNotUTF8NeitherCrashesTheApplicationNorCounts() async throws {
        try await withEnrolledDaemon(passcodeOnly: true) { client, bus in
            let pam = try PAMHarness(bus: bus, arguments: "policy=owner")
            let tester = try pam.pamtester("solo")
            tester.write(Data([0xFF, 0xFE, 0x41, 0x42, 0x43, 0x44, 0x0A]))
            tester.closeInput()
            let result = try await tester.finish()
            #expect(result.status == 1 && result.output.contains(PAMOutcome.authinfoUnavailable), "pamtester ended normally: \(result.status) \(result.output)")
            #expect(result.output.contains("not valid UTF-8"), "\(result.output)")
            #expect(try await client.userState()["PasscodeFailures"] == .uint32(0), "nothing counted")
        }
    }

    /// The typed passcode is wiped from the application's memory (the conversation's answer and the
    /// D-Bus message body) as soon as the daemon has answered.
    @Test func aTypedPasscodeDoesNotStayInTheApplicationsMemory() async throws {
        try await withEnrolledDaemon(passcodeOnly: true) { client, bus in
            let pam = try PAMHarness(bus: bus, arguments: "policy=owner max-tries=2")
            let wrong = MaskedSecret(prefix: "pw-")
            let tester = try pam.pamtester("solo")
            try await tester.waitForLine(containing: "Enter your passcode")
            var line = wrong.plainData()
            line.append(UInt8(ascii: "\n"))
            tester.write(line)
            wipe(&line)
            // The module is now at its second "Passcode:" prompt: the first answer has been handled.
            try await tester.waitForLine(containing: "Wrong passcode; try again.")
            let hits = try MemoryScan.copies(of: [wrong], in: tester.process.processIdentifier)[0]
            #expect(hits.isEmpty, "copies of the passcode in pamtester: \(hits)")
            #expect(try await client.userState()["PasscodeFailures"] == .uint32(1))
            let result = try await tester.finish()
            #expect(result.output.contains(PAMOutcome.authinfoUnavailable), "an empty answer falls through: \(result.output)")
        }
    }

    @Test func onlyThePAMEntryPointsAreExported() async throws {
        try #require(FileManager.default.fileExists(atPath: PAMHarness.module),
                     "\(PAMHarness.module) is missing: run `make pam` (or `make test`) before `swift test`")
        let nm = try PAMTester(executable: "/usr/bin/nm", arguments: ["-D", "--defined-only", PAMHarness.module],
                               environment: ProcessInfo.processInfo.environment)
        let result = try await nm.finish()
        #expect(result.status == 0)
        let symbols = result.output.split(separator: "\n").compactMap { $0.split(separator: " ").last.map(String.init) }
        #expect(symbols.sorted() == ["pam_sm_authenticate", "pam_sm_setcred"], "\(result.output)")
    }
    private func pending(_ client: Client) async throws -> DBusValue {
        try await client.connection.property("Pending", interface: LocalAuthBusNames.simulatorInterface, path: LocalAuthBusNames.simulatorPath, destination: LocalAuthBusNames.busName)
    }

    @Test func aClosedLidWithoutADockSkipsBiometrics() async throws {
        try await withEnrolledDaemon { client, bus in
            // A logind of our own on the private bus, with the module's bus= pointing there too.
            let docked = Mutex(false)
            let logind = try await bus.connect()
            defer { logind.close() }
            try logind.register(path: "/org/freedesktop/login1") { call in
                guard case .get("org.freedesktop.login1.Manager", let name)? = try DBusPropertyRequest(call) else {
                    throw DBusError(.unknownMethod, "only Get of the Manager's properties")
                }
                switch name {
                case "LidClosed": return .values([.variant(.bool(true))])
                case "Docked": return .values([.variant(.bool(docked.withLock { $0 }))])
                default: throw DBusError(.invalidArgs, "no property \(name)")
                }
            }
            try await logind.requestName("org.freedesktop.login1")
            let pam = try PAMHarness(bus: bus)
            try await client.simulator("Touch", [.string(Self.finger)])
            let closed = try await pam.run("solo")
            #expect(closed.output.contains(PAMOutcome.authinfoUnavailable) && !closed.output.contains("Touch"), "\(closed.output)")
            #expect(try await pending(client) == .uint32(1), "the touch was not read")
            docked.withLock { $0 = true }
            let atTheDesk = try await pam.run("solo")
            #expect(atTheDesk.status == 0, "lid closed but docked: \(atTheDesk.output)")
        }
    }

    /// Security: another uid loading the module (a screen locker, or an attacker with pamtester)
    /// gets nothing for root, and an ordinary context for itself only.
    @Test func anotherUIDCannotAuthenticateAsRootButAsItself() async throws {
        try await withEnrolledDaemon(allowingEveryUser: true) { client, bus, _ in
            let pam = try PAMHarness(bus: bus)
            try await client.simulator("Touch", [.string(Self.finger)])
            let asRoot = try await pam.run("solo", asNobody: true)
            #expect(asRoot.output.contains(PAMOutcome.authinfoUnavailable) && !asRoot.output.contains("Touch"), "\(asRoot.output)")
            #expect(try await pending(client) == .uint32(1), "nothing evaluated for root")

            let setUp = """
                import sys, dbus
                bus = dbus.bus.BusConnection(sys.argv[1])
                N = 'org.localauth.LocalAuthentication1'
                manager = dbus.Interface(bus.get_object(N, '/org/localauth/LocalAuthentication1'), N + '.Manager')
                manager.SetPasscode('', 'nobody-passcode')
                manager.Enroll('fingerprint', 'left-thumb', 'nobody-passcode')
                """
            let enrolled = try await PAMTester(executable: "/usr/bin/setpriv", arguments: PAMHarness.nobody + ["/usr/bin/python3", "-c", setUp, bus.address],
                                               environment: ProcessInfo.processInfo.environment).finish()
            #expect(enrolled.status == 0, "\(enrolled.output)")
            try await client.simulator("Reset")
            try await client.simulator("Touch", [.string("left-thumb")])
            let asItself = try await pam.run("solo", user: "nobody", asNobody: true)
            #expect(asItself.status == 0 && asItself.output.contains(PAMOutcome.success), "\(asItself.output)")
            #expect(try await client.userState()["BiometryFailures"] == .uint32(0), "root's ledger untouched")
        }
    }
}
