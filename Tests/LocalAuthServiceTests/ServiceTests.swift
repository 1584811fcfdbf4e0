// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthAPI
import LocalAuthDBus
import LocalAuthTestSupport
import Synchronization
import Testing

/// The daemon end to end over the bus, driven by the project's own D-Bus layer.
@Suite("localauthd over D-Bus", .timeLimit(.minutes(2)))
struct ServiceTests {
    typealias D = DaemonUnderTest
    let lockout = LocalAuthBusNames.errorPrefix + "BiometryLockout"

    @Test func fingerprintEvaluationEndToEnd() async throws {
        try await withDaemon { _, bus in
            let client = try await Client(bus)
            try await client.setUp(fingers: ["right-index-finger"])
            let context = try await client.createContext()
            #expect(context.hasPrefix("/org/localauth/LocalAuthentication1/context/"))
            _ = try await client.context(context, "CanEvaluatePolicy", [.uint32(1)])
            #expect(try await client.property(context, "BiometryType") == .uint32(2))
            #expect(try await client.property(context, "EvaluatedPolicyDomainState").bytes?.count == 32)
            async let evaluation = client.context(context, "EvaluatePolicy", [.uint32(1), .string("log in")])
            try await client.simulator("Touch", [.string("right-index-finger")])
            _ = try await evaluation
            #expect(try await client.property(context, "State") == .string("idle"))
        }
    }

    /// The daemon's deadline timer ends an unanswered evaluation with SystemCancel once
    /// `evaluation_timeout` has passed (measured on the boot clock), and not before.
    @Test func anUnansweredEvaluationTimesOut() async throws {
        try await withDaemon(configuration: "evaluation_timeout = 0.5\n") { _, bus in
            let client = try await Client(bus)
            try await client.setUp(fingers: ["right-index-finger"])
            let context = try await client.createContext()
            let started = ContinuousClock.now
            let outcome = await errorName { _ = try await client.context(context, "EvaluatePolicy", [.uint32(1), .string("log in")]) }
            let waited = ContinuousClock.now - started
            #expect(outcome == LocalAuthBusNames.errorPrefix + "SystemCancel")
            #expect(waited >= .milliseconds(500) && waited < .seconds(20), "waited \(waited)")
        }
    }

    @Test func faceEvaluationAndPasscodeWhileBiometryListens() async throws {
        try await withDaemon { _, bus in
            let client = try await Client(bus)
            try await client.setUp(faces: ["primary"])
            let byFace = try await client.createContext()
            async let faceEvaluation = client.context(byFace, "EvaluatePolicy", [.uint32(1), .string("log in")])
            try await client.simulator("PresentFace", [.string("primary"), .bool(true)])
            _ = try await faceEvaluation

            let byPasscode = try await client.createContext()
            let prompts = Inbox<[DBusValue]>()
            let subscription = try await client.connection.subscribe(
                DBusMatchRule(path: byPasscode, interface: LocalAuthBusNames.contextInterface, member: "Prompt")) { prompts.put($0.arguments) }
            defer { client.connection.unsubscribe(subscription) }
            async let passcodeEvaluation = client.context(byPasscode, "EvaluatePolicy", [.uint32(2), .string("unlock")])
            #expect(try await prompts.next().first == .string("biometry"), "biometrics listen first")
            #expect(await errorName { _ = try await client.context(byPasscode, "SubmitPasscode", [.string("wrong1")]) } == LocalAuthBusNames.errorPrefix + "AuthenticationFailed")
            #expect(try await prompts.next().first == .string("passcode-wrong"))
            _ = try await client.context(byPasscode, "SubmitPasscode", [.string("4711-secret")])
            _ = try await passcodeEvaluation
            #expect(try await client.userState()["PasscodeFailures"] == .uint32(0))
        }
    }

    @Test func lockoutIsSharedAcrossTwoClientsContexts() async throws {
        try await withDaemon { _, bus in
            let first = try await Client(bus), second = try await Client(bus)
            try await first.setUp(fingers: ["right-index-finger"])
            let one = try await first.createContext()
            async let failed = errorName { _ = try await first.context(one, "EvaluatePolicy", [.uint32(1), .string("a")]) }
            for _ in 1...3 { try await first.simulator("Touch", [.string("left-thumb")]) }
            #expect(await failed == LocalAuthBusNames.errorPrefix + "AuthenticationFailed")

            let two = try await second.createContext()
            async let locked = errorName { _ = try await second.context(two, "EvaluatePolicy", [.uint32(1), .string("b")]) }
            for _ in 1...2 { try await second.simulator("Touch", [.string("left-thumb")]) }
            #expect(await locked == lockout)
            #expect(await errorName { _ = try await first.context(one, "CanEvaluatePolicy", [.uint32(1)]) } == lockout)
            let state = try await second.userState()
            #expect(state["BiometryFailures"] == .uint32(5) && state["BiometryLockedOut"] == .bool(true))
        }
    }

    @Test func restartKeepsTheLockout() async throws {
        try await withPrivateBus { bus in
            let watcher = try await bus.connect()
            defer { watcher.close() }
            let first = try DaemonUnderTest(bus: bus)
            try await first.start(watcher: watcher)
            let client = try await Client(bus)
            try await client.setUp(fingers: ["right-index-finger"])
            for round in 0..<2 {
                let context = try await client.createContext()
                async let outcome = errorName { _ = try await client.context(context, "EvaluatePolicy", [.uint32(1), .string("x")]) }
                for _ in 0..<(round == 0 ? 3 : 2) { try await client.simulator("Touch", [.string("left-thumb")]) }
                _ = await outcome
            }
            first.kill()  // as a crash would

            let second = try DaemonUnderTest(bus: bus, stateDirectory: first.stateDirectory)
            defer { second.kill() }
            try await second.start(watcher: watcher)
            let again = try await Client(bus)
            let context = try await again.createContext()
            #expect(await errorName { _ = try await again.context(context, "CanEvaluatePolicy", [.uint32(1)]) } == lockout)
            #expect(try await again.userState()["BiometryLockedOut"] == .bool(true))
        }
    }

    /// Another connection, even of the same user, finds no such object: not even its existence shows.
    @Test func onlyTheOwnerMayCallOrReadAContext() async throws {
        try await withDaemon { _, bus in
            let owner = try await Client(bus), stranger = try await Client(bus)
            let context = try await owner.createContext()
            let denied = "org.freedesktop.DBus.Error.UnknownObject"
            #expect(await errorName { _ = try await stranger.context(context, "CanEvaluatePolicy", [.uint32(2)]) } == denied)
            #expect(await errorName { _ = try await stranger.context(context, "Invalidate") } == denied)
            #expect(await errorName { _ = try await stranger.property(context, "State") } == denied)
            #expect(await errorName {
                try await stranger.connection.setProperty("LocalizedCancelTitle", to: .string("x"), interface: LocalAuthBusNames.contextInterface,
                                                          path: context, destination: LocalAuthBusNames.busName)
            } == denied)
            #expect(try await owner.property(context, "LocalizedCancelTitle") == .string("Cancel"))
        }
    }

    @Test func signalsReachOnlyTheOwner() async throws {
        try await withDaemon { _, bus in
            let owner = try await Client(bus), bystander = try await Client(bus)
            try await owner.setUp(fingers: ["right-index-finger"])
            let ownerPrompts = Inbox<String>(), bystanderPrompts = Inbox<String>()
            let rule = DBusMatchRule(interface: LocalAuthBusNames.contextInterface, member: "Prompt")
            _ = try await owner.connection.subscribe(rule) { ownerPrompts.put($0.path) }
            _ = try await bystander.connection.subscribe(rule) { bystanderPrompts.put($0.path) }
            let ownerChanges = Inbox<[DBusValue]>(), bystanderChanges = Inbox<String>()
            let changes = DBusMatchRule(interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged")
            _ = try await owner.connection.subscribe(changes) { ownerChanges.put($0.arguments) }
            _ = try await bystander.connection.subscribe(changes) { bystanderChanges.put($0.path) }

            let context = try await owner.createContext()
            async let evaluation = owner.context(context, "EvaluatePolicy", [.uint32(1), .string("x")])
            #expect(try await ownerPrompts.next() == context)
            #expect(try await ownerChanges.next()[1].vardict?["State"] == .string("biometry"))
            // The bystander's own evaluation (waiting for the sensor the owner holds) prompts it;
            // by then it has seen whatever it could have seen of the owner's.
            let own = try await bystander.createContext()
            let waiting = try await bystander.begin(own, policy: 1)
            #expect(try await bystanderPrompts.next() == own)
            _ = try await bystander.context(own, "Cancel")
            #expect(await waiting.value == LocalAuthBusNames.errorPrefix + "UserCancel")
            try await owner.simulator("Touch", [.string("right-index-finger")])
            _ = try await evaluation
            _ = try await owner.context(context, "Invalidate")
            _ = try await bystander.context(own, "Invalidate")  // a reply after every signal the daemon sent before it
            #expect(bystanderPrompts.received.allSatisfy { $0 == own })
            #expect(!bystanderChanges.received.isEmpty && bystanderChanges.received.allSatisfy { $0 == own })
            #expect(ownerPrompts.received.allSatisfy { $0 == context })
        }
    }

    @Test func disconnectMidEvaluationCleansUpAndCountsNothing() async throws {
        try await withDaemon { _, bus in
            let leaving = try await Client(bus)
            try await leaving.setUp(fingers: ["right-index-finger"])
            let context = try await leaving.createContext()
            let started = Inbox<[DBusValue]>()
            _ = try await leaving.connection.subscribe(DBusMatchRule(path: context, interface: LocalAuthBusNames.contextInterface, member: "Prompt")) { started.put($0.arguments) }
            Task { _ = try? await leaving.context(context, "EvaluatePolicy", [.uint32(1), .string("x")]) }
            _ = try await started.next()
            leaving.connection.close()

            let next = try await Client(bus)
            // The sensor is free again: the next evaluation takes it and the touch counts for it.
            let other = try await next.createContext()
            async let evaluation = next.context(other, "EvaluatePolicy", [.uint32(1), .string("y")])
            try await next.simulator("Touch", [.string("right-index-finger")])
            _ = try await evaluation
            #expect(try await next.userState()["BiometryFailures"] == .uint32(0))
            #expect(await errorName { _ = try await next.context(context, "Cancel") } == "org.freedesktop.DBus.Error.UnknownObject")
        }
    }

    @Test func invalidateCancelFallbackAndBusy() async throws {
        try await withDaemon { _, bus in
            let client = try await Client(bus)
            try await client.setUp(fingers: ["right-index-finger"])
            let context = try await client.createContext()
            let cancelled = try await client.begin(context, policy: 1)
            #expect(await errorName { _ = try await client.context(context, "EvaluatePolicy", [.uint32(1), .string("x")]) } == LocalAuthBusNames.errorPrefix + "Busy")
            _ = try await client.context(context, "Cancel")
            #expect(await cancelled.value == LocalAuthBusNames.errorPrefix + "UserCancel")

            let fellBack = try await client.begin(context, policy: 1)
            _ = try await client.context(context, "Fallback")
            #expect(await fellBack.value == LocalAuthBusNames.errorPrefix + "UserFallback")

            try await client.connection.setProperty("LocalizedFallbackTitle", to: .string(""), interface: LocalAuthBusNames.contextInterface, path: context, destination: LocalAuthBusNames.busName)
            #expect(await errorName { _ = try await client.context(context, "Fallback") } == "org.freedesktop.DBus.Error.NotSupported")

            let appCancelled = try await client.begin(context, policy: 1)
            _ = try await client.context(context, "Invalidate")
            #expect(await appCancelled.value == LocalAuthBusNames.errorPrefix + "AppCancel")
            #expect(await errorName { _ = try await client.context(context, "CanEvaluatePolicy", [.uint32(2)]) } == LocalAuthBusNames.errorPrefix + "InvalidContext")
            _ = try await client.context(context, "Invalidate")
        }
    }

    @Test func badArgumentsAreInvalidArgsAndChangeNothing() async throws {
        try await withDaemon { _, bus in
            let client = try await Client(bus)
            let invalid = "org.freedesktop.DBus.Error.InvalidArgs"
            let context = try await client.createContext()
            #expect(await errorName { _ = try await client.context(context, "CanEvaluatePolicy", [.uint32(9)]) } == invalid)
            #expect(await errorName { _ = try await client.context(context, "CanEvaluatePolicy", [.string("1")]) } == invalid)
            #expect(await errorName { _ = try await client.context(context, "EvaluatePolicy", [.uint32(2), .string("")]) } == invalid)
            #expect(await errorName { _ = try await client.createContext(["AllowableReuseDuration": .string("5")]) } == invalid)
            #expect(await errorName { _ = try await client.createContext(["Colour": .string("blue")]) } == invalid)
            #expect(await errorName { _ = try await client.manager("SetPasscode", [.string(""), .string("abc")]) } == invalid)
            #expect(await errorName { _ = try await client.manager("Enroll", [.string("iris"), .string("x"), .string("1234")]) } == invalid)
            #expect(await errorName { try await client.simulator("Touch", [.string("right-toe")]) } == invalid)
            #expect(await errorName { _ = try await client.manager("NoSuchMethod") } == "org.freedesktop.DBus.Error.UnknownMethod")
            #expect(await errorName { _ = try await client.context("/org/localauth/LocalAuthentication1/context/999", "Cancel") } == "org.freedesktop.DBus.Error.UnknownObject")
            let state = try await client.userState()
            #expect(state["PasscodeSet"] == .bool(false) && state["PasscodeFailures"] == .uint32(0))
        }
    }

    @Test func contextLimitAndTheSimulatorQueueLimit() async throws {
        try await withDaemon(configuration: "max_contexts_per_client = 3\nsimulator_event_ttl = 600\n") { _, bus in
            let client = try await Client(bus)
            let limit = "org.freedesktop.DBus.Error.LimitsExceeded"
            for _ in 1...3 { _ = try await client.createContext() }
            #expect(await errorName { _ = try await client.createContext() } == limit)
            // The simulator queue holds 256 inputs (SimulatorEventQueue.defaultCapacity) for everyone.
            for _ in 1...256 { try await client.simulator("Touch", [.string("left-thumb")]) }
            #expect(await errorName { try await client.simulator("Touch", [.string("left-thumb")]) } == limit)
            let pending = try await client.connection.property("Pending", interface: LocalAuthBusNames.simulatorInterface, path: LocalAuthBusNames.simulatorPath, destination: LocalAuthBusNames.busName)
            #expect(pending == .uint32(256))
            try await client.simulator("Reset")
            #expect(try await client.connection.property("Pending", interface: LocalAuthBusNames.simulatorInterface, path: LocalAuthBusNames.simulatorPath, destination: LocalAuthBusNames.busName) == .uint32(0))
        }
    }

    @Test func retriesAndADisconnectedSensorOverTheBus() async throws {
        try await withDaemon { _, bus in
            let client = try await Client(bus)
            try await client.setUp(fingers: ["right-index-finger"])
            let context = try await client.createContext()
            let prompts = Inbox<String>()
            _ = try await client.connection.subscribe(DBusMatchRule(path: context, interface: LocalAuthBusNames.contextInterface, member: "Prompt")) {
                prompts.put($0.arguments.first?.string ?? "")
            }
            let evaluation = try await client.begin(context, policy: 1)
            #expect(try await prompts.next() == "biometry")
            try await client.simulator("FingerprintRetry", [.string("too-fast")])
            #expect(try await prompts.next() == "retry")
            #expect(await errorName { try await client.simulator("FingerprintRetry", [.string("too-slow")]) } == "org.freedesktop.DBus.Error.InvalidArgs")
            try await client.simulator("SetConnected", [.string("fingerprint"), .bool(false)])
            #expect(await evaluation.value == LocalAuthBusNames.errorPrefix + "BiometryNotAvailable")
            let backends = try await client.connection.property("Backends", interface: LocalAuthBusNames.managerInterface, path: LocalAuthBusNames.managerPath, destination: LocalAuthBusNames.busName)
            #expect(backends.arrayElements?.first?.structure?.prefix(3) == [.string("fingerprint"), .string("fingerprint"), .bool(false)])
            #expect(backends.arrayElements?.first?.structure?.last?.vardict?["State"] == .string("disconnected"))
            #expect(try await client.userState()["BiometryFailures"] == .uint32(0), "retries are never counted")
            try await client.simulator("SetConnected", [.string("fingerprint"), .bool(true)])
            _ = try await client.context(context, "CanEvaluatePolicy", [.uint32(1)])
        }
    }

    /// `fingerprint-sim` and `face-sim` name the built-in simulators (the backend registry's
    /// aliases): the same backends as `fingerprint` and `face`, listed under their ids.
    @Test func theSimulatorsAnswerToTheirSimNames() async throws {
        try await withDaemon(configuration: "backends = face-sim, fingerprint-sim, passcode\n") { _, bus in
            let client = try await Client(bus)
            let backends = try await client.connection.property("Backends", interface: LocalAuthBusNames.managerInterface, path: LocalAuthBusNames.managerPath, destination: LocalAuthBusNames.busName)
            #expect(backends.arrayElements?.compactMap { $0.structure?.first } == [.string("face"), .string("fingerprint"), .string("passcode")])
            #expect(backends.arrayElements?.first?.structure?.last?.vardict?["Description"] == .string("Built-in face simulator"))
            try await client.setUp(fingers: ["right-index-finger"])
            let context = try await client.createContext()
            async let evaluation = client.context(context, "EvaluatePolicy", [.uint32(1), .string("log in")])
            try await client.simulator("Touch", [.string("right-index-finger")])
            _ = try await evaluation
        }
    }

    /// One simulator under two of its names is a configuration error, saying which.
    @Test func aBackendListedUnderTwoNamesIsRefused() async throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("alias-config-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        try "backends = fingerprint, fingerprint-sim\n".write(toFile: "\(scratch)/localauthd.conf", atomically: true, encoding: .utf8)
        let result = try await runTool(D.binary, ["--config", "\(scratch)/localauthd.conf", "--state-dir", scratch,
                                                     "--address", "unix:path=\(scratch)/no-bus"])
        #expect(result.status == 78)
        #expect(result.output.contains("localauthd.conf: backends: Backend \"fingerprint\" is enabled twice (as \"fingerprint-sim\")"), "\(result.output)")
    }

    @Test func managerPropertiesAndUserState() async throws {
        try await withDaemon(configuration: "backends = fingerprint, passcode\n") { _, bus in
            let client = try await Client(bus)
            let all = try await client.connection.allProperties(interface: LocalAuthBusNames.managerInterface, path: LocalAuthBusNames.managerPath, destination: LocalAuthBusNames.busName)
            #expect(all["Version"] == .string("1.0.0"))
            func detail(_ kind: String, _ description: String) -> DBusValue {
                .vardict(["Kind": .string(kind), "ProviderVersion": .string(""), "State": .string("available"), "Description": .string(description)])
            }
            #expect(all["Backends"] == .array(elementSignature: "(ssba{sv})", [
                .structure([.string("fingerprint"), .string("fingerprint"), .bool(true), detail("simulator", "Built-in fingerprint simulator")]),
                .structure([.string("passcode"), .string("passcode"), .bool(true), detail("built-in", "Passcode (Argon2id)")]),
            ]))
            try await client.setUp(fingers: ["left-thumb"])
            _ = try await client.manager("SetRequireAttention", [.bool(false), .string("4711-secret")])
            let state = try await client.userState()
            #expect(state["Enrollments"] == .array(elementSignature: "(ss)", [.structure([.string("fingerprint"), .string("left-thumb")])]))
            #expect(state["RequireAttention"] == .bool(false) && state["PasscodeRetryAfter"] == .uint64(0))
            #expect(await errorName { try await client.simulator("PresentFace", [.string("primary"), .bool(true)]) } == "org.freedesktop.DBus.Error.NotSupported")
            _ = try await client.manager("Unenroll", [.string("fingerprint"), .string("left-thumb"), .string("4711-secret")])
            _ = try await client.manager("RemovePasscode", [.string("4711-secret")])
            _ = try await client.manager("ResetLockout", [.uint32(0)])  // the tests run as root
            #expect(try await client.userState()["PasscodeSet"] == .bool(false))
        }
    }
}
