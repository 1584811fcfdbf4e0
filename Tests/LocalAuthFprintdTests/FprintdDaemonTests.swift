// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthAPI
import LocalAuthDBus
import LocalAuthTestSupport
import Testing

private typealias D = DaemonUnderTest

/// The whole path a person with a fingerprint reader takes: the `localauth` CLI and clients, the
/// real localauthd, localauth-fprintd-provider as a package runs it (a descriptor without Exec=,
/// the provider started on the bus as the user that stands in for `localauth-fprintd`), and real
/// fprintd with libfprint's virtual reader, all on one private system-type bus that loads the
/// installed policy files.
@Suite(.enabled(if: FprintdUnderTest.isInstalled, "needs fprintd and python3-dbusmock (make deps)"), .serialized, .timeLimit(.minutes(3)))
struct FprintdDaemonTests {
    static let passcode = "4711-secret"
    static let finger = "right-index-finger"

    /// A daemon with the fprintd provider enabled and available, fprintd, and a client that has a
    /// passcode set.
    struct Rig: Sendable {
        let bus: PrivateBus
        let fprintd: FprintdUnderTest
        let daemon: DaemonUnderTest
        let client: Client

        /// Waits (bounded) until the reader is closed, then checks that another program can claim it.
        func expectReleased(_ comment: Comment, sourceLocation: SourceLocation = #_sourceLocation) async throws {
            let deadline = ContinuousClock.now + .seconds(60)
            while fprintd.isOpen, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
            #expect(try await !fprintd.isClaimed(user: ProviderRig.userName), comment, sourceLocation: sourceLocation)
        }

        /// Waits (bounded) until the provider has the reader open.
        func waitUntilClaimed() async throws {
            let deadline = ContinuousClock.now + .seconds(60)
            while !fprintd.isOpen, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        }

        /// Enrolls the finger through the daemon (Manager.Enroll) with `print` on each capture, and
        /// waits until the provider has released the reader.
        ///
        /// Enroll returns when the provider reports the last stage, before it releases the reader.
        /// ``waitUntilClaimed()`` would then take the enrollment's open reader for the next
        /// evaluation's, and commands sent to it were lost when it closed (the cause of
        /// `retriesAreNotCounted` waiting 60 s for a no-match under load).
        func enroll(print: String = "print-a") async throws {
            let enrollment = Task { await errorName { _ = try await client.manager("Enroll", [.string("fingerprint"), .string(FprintdDaemonTests.finger), .string(FprintdDaemonTests.passcode)]) } }
            for _ in 0..<5 { try await fprintd.send("SCAN \(print)") }
            #expect(await enrollment.value == nil)
            try await expectReleased("after the enrollment")
        }

        /// Starts a biometrics evaluation on a new context and returns once the reader is claimed
        /// (so commands to the virtual reader reach this evaluation).
        func begin(policy: UInt32 = 1) async throws -> (context: String, evaluation: Task<String?, Never>) {
            let context = try await client.createContext()
            let evaluation = try await client.begin(context, policy: policy)
            try await waitUntilClaimed()
            return (context, evaluation)
        }

        func failures() async throws -> UInt32? { try await client.userState()["BiometryFailures"]?.uint32 }

        /// The last lines of the daemon's, the provider's and fprintd's logs, for a failure's message.
        var logTails: String {
            let provider = (try? String(contentsOf: fprintd.directory.appendingPathComponent("provider.log"), encoding: .utf8)) ?? ""
            return [("localauthd", daemon.logText), ("provider", provider), ("fprintd", fprintd.logText)]
                .map { name, text in "\(name): …" + text.split(separator: "\n").suffix(15).joined(separator: "\n") }
                .joined(separator: "\n")
        }
    }

    static func withRig<T: Sendable>(configuration: String = "", _ body: (Rig) async throws -> T) async throws -> T {
        let bus = try PrivateBus.system(policies: try SystemPolicy.installed())
        defer { bus.stop() }
        let watcher = try await bus.connect()
        defer { watcher.close() }
        let fprintd = try await FprintdUnderTest(bus: bus, watcher: watcher)
        defer { fprintd.stop() }
        let provider = try await ProviderRig.launchProvider(
            bus: bus, watcher: watcher, fprintdTimeout: 30, log: fprintd.directory.appendingPathComponent("provider.log"))
        defer { ChildProcess.kill(provider) }
        let descriptors = fprintd.directory.appendingPathComponent("providers")
        try FileManager.default.createDirectory(at: descriptors, withIntermediateDirectories: true)
        try """
        [Provider]
        Id=fprintd
        Modality=fingerprint
        BusName=org.localauth.Provider.Fprintd
        User=\(getpwnam(SystemPolicy.fprintdProviderStandIn)!.pointee.pw_uid)
        ProtocolVersion=1
        Description=Fingerprint readers through fprintd
        """.write(to: descriptors.appendingPathComponent("fprintd.provider"), atomically: true, encoding: .utf8)
        let daemon = try DaemonUnderTest(bus: bus, configuration: """
            backends = fprintd, passcode
            provider_directories = \(descriptors.path)
            provider_timeout = 30
            \(configuration)
            """)
        defer { daemon.kill() }
        try await daemon.start(watcher: watcher)
        let client = try await Client(bus)
        try await ReferenceProvider.waitForBackend("fprintd", on: client.connection, within: .seconds(60)) { $0 == "available" }
        _ = try await client.manager("SetPasscode", [.string(""), .string(passcode)])
        return try await body(Rig(bus: bus, fprintd: fprintd, daemon: daemon, client: client))
    }

    @Test func enrollThroughTheCLIShowsEveryStage() async throws {
        try await Self.withRig { rig in
            let cli = Task {
                try await runCLI(rig.bus, ["--json", "enroll", "fingerprint", Self.finger, "--stdin"], stdin: Self.passcode + "\n")
            }
            try await rig.fprintd.send("SCAN print-a")
            try await rig.fprintd.send("RETRY 2")
            for _ in 0..<4 { try await rig.fprintd.send("SCAN print-a") }
            let result = try await cli.value
            #expect(result.status == 0, "\(result.output)")
            let progress = result.output.split(separator: "\n").filter { $0.contains("\"progress\"") }
            #expect(progress.count == 5, "four stages and one retry: \(progress)")
            #expect(progress.filter { $0.contains("\"stage-passed\"") }.count == 4)
            #expect(progress.contains { $0.contains("\"retry\"") && $0.contains("\"not-centered\"") })
            #expect(progress.allSatisfy { $0.contains("\"stages\":5") }, "\(progress)")
            #expect(try await rig.client.userState()["Enrollments"]
                == .array(elementSignature: "(ss)", [.structure([.string("fingerprint"), .string(Self.finger)])]))
            try await rig.expectReleased("after the enrollment")
        }
    }

    @Test func aMatchThroughTheCLI() async throws {
        try await Self.withRig { rig in
            try await rig.enroll()
            let cli = Task { try await runCLI(rig.bus, ["evaluate", "--policy", "biometrics", "--reason", "unlock the vault"]) }
            try await rig.fprintd.send("SCAN print-a")  // retried until the provider claimed the reader
            let result = try await cli.value
            #expect(result.status == 0, "\(result.output)")
            try await rig.expectReleased("after the success")
        }
    }

    @Test func noMatchesAreCountedAndFiveLockBiometry() async throws {
        try await Self.withRig { rig in
            try await rig.enroll()
            let first = try await rig.begin()
            for _ in 0..<3 { try await rig.fprintd.send("SCAN someone-else") }
            // Read out first, so that a failure shows what came back and what the services logged.
            let firstResult = await first.evaluation.value
            #expect(firstResult == LocalAuthBusNames.errorPrefix + "AuthenticationFailed",
                    "three tries per evaluation; got \(firstResult ?? "success"); \(rig.logTails)")
            #expect(try await rig.failures() == 3)
            try await rig.expectReleased("after a failure")
            let second = try await rig.begin()
            for _ in 0..<2 { try await rig.fprintd.send("SCAN someone-else") }
            let secondResult = await second.evaluation.value
            #expect(secondResult == LocalAuthBusNames.errorPrefix + "BiometryLockout", "got \(secondResult ?? "success"); \(rig.logTails)")
            #expect(try await rig.failures() == 5)
            try await rig.expectReleased("after the lockout")
            // Locked out whatever fprintd thinks: the right finger is not even asked for.
            let context = try await rig.client.createContext()
            #expect(await errorName { _ = try await rig.client.context(context, "EvaluatePolicy", [.uint32(1), .string("test")]) }
                == LocalAuthBusNames.errorPrefix + "BiometryLockout")
            #expect(!rig.fprintd.isOpen)
        }
    }

    @Test func retriesAreNotCounted() async throws {
        try await Self.withRig { rig in
            try await rig.enroll()
            let (context, evaluation) = try await rig.begin()
            let prompts = Inbox<String>()
            let subscription = try await rig.client.connection.subscribe(
                DBusMatchRule(path: context, interface: LocalAuthBusNames.contextInterface, member: "Prompt")) { signal in
                prompts.put(signal.arguments.first?.string ?? "")
            }
            defer { rig.client.connection.unsubscribe(subscription) }
            for code in 0...3 { try await rig.fprintd.send("RETRY \(code)") }
            try await rig.fprintd.send("SCAN someone-else")  // a no-match after the four retries: the only failure
            var seen: [String] = []
            while seen.last != "no-match" { seen.append(try await prompts.next(within: .seconds(60))) }
            #expect(seen.filter { $0 == "retry" }.count == 4, "\(seen)")
            _ = try await rig.client.context(context, "Cancel")
            #expect(await evaluation.value == LocalAuthBusNames.errorPrefix + "UserCancel")
            #expect(try await rig.failures() == 1, "four retries and one no-match count as one failure")
            try await rig.expectReleased("after a cancel")
        }
    }

    @Test func unplugDuringAnEvaluation() async throws {
        try await Self.withRig { rig in
            try await rig.enroll()
            let (context, evaluation) = try await rig.begin()
            try await rig.fprintd.send("UNPLUG")
            #expect(await evaluation.value == LocalAuthBusNames.errorPrefix + "BiometryNotAvailable")
            #expect(try await rig.failures() == 0, "nothing counted")
            try await ReferenceProvider.waitForBackend("fprintd", on: rig.client.connection, within: .seconds(60)) { $0 != "available" }
            #expect(await errorName { _ = try await rig.client.context(context, "CanEvaluatePolicy", [.uint32(1)]) } == LocalAuthBusNames.errorPrefix + "BiometryNotAvailable")
        }
    }

    @Test func fprintdKilledDuringAnEvaluation() async throws {
        try await Self.withRig { rig in
            try await rig.enroll()
            let (_, evaluation) = try await rig.begin()
            rig.fprintd.killFprintd()
            #expect(await evaluation.value == LocalAuthBusNames.errorPrefix + "BiometryNotAvailable")
            #expect(try await rig.failures() == 0, "nothing counted")
            try await ReferenceProvider.waitForBackend("fprintd", on: rig.client.connection, within: .seconds(60)) { $0 != "available" }
            let watcher = try await rig.bus.connect()
            defer { watcher.close() }
            try await rig.fprintd.startFprintd(watcher: watcher)
            try await ReferenceProvider.waitForBackend("fprintd", on: rig.client.connection, within: .seconds(60)) { $0 == "available" }
            let (_, again) = try await rig.begin()
            try await rig.fprintd.send("SCAN print-a")
            #expect(await again.value == nil, "fprintd is back and the finger matches")
        }
    }

    @Test func theLockScreenHoldingTheReaderIsNotAFailure() async throws {
        try await Self.withRig { rig in
            try await rig.enroll()
            let lockScreen = try await rig.bus.connect()
            defer { lockScreen.close() }
            _ = try await lockScreen.call(
                destination: FprintdUnderTest.busName, path: "/net/reactivated/Fprint/Device/0", interface: "net.reactivated.Fprint.Device",
                member: "Claim", arguments: [.string(ProviderRig.userName)])
            let context = try await rig.client.createContext()
            #expect(await errorName { _ = try await rig.client.context(context, "EvaluatePolicy", [.uint32(1), .string("test")]) }
                == LocalAuthErrorName.biometryNotAvailable.dbusName, "the provider's Busy ends the evaluation without a hang")
            #expect(try await rig.failures() == 0, "nothing counted")
            lockScreen.close()
            // fprintd releases the vanished lock screen's claim by itself; until then the reader is
            // open and a touch would go to that claim.
            try await rig.expectReleased("the lock screen's claim ends with its connection")
            let (_, evaluation) = try await rig.begin()
            try await rig.fprintd.send("SCAN print-a")
            #expect(await evaluation.value == nil, "the reader is free again")
        }
    }

    @Test func theClaimIsReleasedAfterATimeoutAndAClientThatVanished() async throws {
        try await Self.withRig(configuration: "evaluation_timeout = 1") { rig in
            try await rig.enroll()
            let (_, timedOut) = try await rig.begin()
            #expect(rig.fprintd.isOpen)
            _ = await timedOut.value
            try await rig.expectReleased("after the evaluation timed out")

            let leaver = try await Client(rig.bus)
            let context = try await leaver.createContext()
            _ = try await leaver.begin(context, policy: 1)
            try await rig.waitUntilClaimed()
            #expect(rig.fprintd.isOpen)
            leaver.connection.close()
            try await rig.expectReleased("after the client vanished")
            #expect(try await rig.failures() == 0)
        }
    }
}

/// Runs the real `localauth` (next to the test bundle) on `bus` with `stdin`; output is stdout and
/// stderr together.
func runCLI(_ bus: PrivateBus, _ arguments: [String], stdin: String = "") async throws -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: D.binary).deletingLastPathComponent().appendingPathComponent("localauth")
    process.arguments = ["--address", bus.address] + arguments
    let input = Pipe(), output = Pipe()
    process.standardInput = input
    process.standardOutput = output
    process.standardError = output
    let exited = Inbox<Int32>()
    try process.run()
    ChildProcess.reportExit(of: process, into: exited)
    let collected = ChildOutput(output)
    ChildProcess.send(stdin, to: input)
    try input.fileHandleForWriting.close()
    let status = try await ChildProcess.exitStatus(of: process, from: exited, within: .seconds(60))
    try? await collected.end(within: .seconds(60))
    return (status, collected.text)
}
