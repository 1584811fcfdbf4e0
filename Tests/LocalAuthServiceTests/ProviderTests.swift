// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthAPI
import LocalAuthDBus
import LocalAuthTestSupport
import Testing

private typealias D = DaemonUnderTest
private typealias P = ReferenceProvider

/// The real daemon with the Python reference provider (a separate process the daemon starts from
/// its descriptor's Exec=), on a private bus: discovery, handshake, evaluation, enrollment with
/// progress and cancellation, template deletion, `Backends`.
@Suite("Biometric providers end to end", .timeLimit(.minutes(2)))
struct ProviderTests {
    @Test func aProviderIsDiscoveredStartedAndMatchesThroughTheDaemon() async throws {
        try await withReferenceProvider { rig in
            let details = try #require(try await P.backendDetails("reference", on: rig.client.connection))
            #expect(details["Kind"] == .string("provider") && details["ProviderVersion"] == .string("1.0.0"))
            #expect(details["Description"] == .string("Reference fingerprint provider (simulated sensor)"))
            _ = try await rig.client.manager("SetPasscode", [.string(""), .string("4711-secret")])
            try await rig.enroll("right-index-finger")
            let state = try await rig.client.userState()
            #expect(state["Enrollments"] == .array(elementSignature: "(ss)", [.structure([.string("fingerprint"), .string("right-index-finger")])]))

            let context = try await rig.client.createContext()
            let evaluation = try await rig.begin(context, policy: 1)
            #expect(try await P.simulator(rig.client.connection, "Touch", [.string("left-thumb")]).first == .string(""))
            #expect(try await P.simulator(rig.client.connection, "Retry", [.string("too-short")]).first == .string(""))
            #expect(try await P.simulator(rig.client.connection, "Touch", [.string("right-index-finger")]).first == .string(""))
            #expect(await evaluation.value == nil, "the enrolled finger matched through the provider")
            #expect(try await rig.client.userState()["BiometryFailures"] == .uint32(0), "a match resets the one no-match")
            #expect(try await rig.client.property(context, "EvaluatedPolicyDomainState").bytes?.isEmpty == false)
        }
    }

    @Test func enrollmentProgressGoesToTheCallerOnly() async throws {
        try await withReferenceProvider { rig in
            _ = try await rig.client.manager("SetPasscode", [.string(""), .string("4711-secret")])
            let progress = Inbox<[DBusValue]>()
            let mine = try await rig.client.connection.subscribe(
                DBusMatchRule(path: LocalAuthBusNames.managerPath, interface: LocalAuthBusNames.managerInterface, member: "EnrollProgress")) { progress.put($0.arguments) }
            defer { rig.client.connection.unsubscribe(mine) }
            let bystander = try await Client(rig.bus)
            let overheard = Inbox<[DBusValue]>()
            let theirs = try await bystander.connection.subscribe(
                DBusMatchRule(interface: LocalAuthBusNames.managerInterface, member: "EnrollProgress")) { overheard.put($0.arguments) }
            defer { bystander.connection.unsubscribe(theirs) }

            let enrollment = Task { await errorName { _ = try await rig.client.manager("Enroll", [.string("fingerprint"), .string("left-thumb"), .string("4711-secret")]) } }
            #expect(try await rig.listening.next().0 == "enrolling")
            try await P.simulator(rig.client.connection, "Touch", [.string("left-thumb")])
            #expect(try await progress.next() == [.string("fingerprint"), .string("stage-passed"), .uint32(1), .uint32(3), .string("")])
            try await P.simulator(rig.client.connection, "Retry", [.string("too-fast")])
            #expect(try await progress.next() == [.string("fingerprint"), .string("retry"), .uint32(1), .uint32(3), .string("too-fast")])
            try await P.simulator(rig.client.connection, "Touch", [.string("left-thumb")])
            try await P.simulator(rig.client.connection, "Touch", [.string("left-thumb")])
            #expect(await enrollment.value == nil)
            #expect(progress.received.count == 4)
            let templates = try #require(try await P.simulator(rig.client.connection, "Templates", [.uint32(getuid())]).first?.arrayElements)
            #expect(templates.count == 1, "the provider stored one template")
            #expect(overheard.received.isEmpty, "EnrollProgress is unicast: another connection saw \(overheard.received)")
        }
    }

    @Test func cancelEnrollmentEndsItWithUserCancelAndEnrollsNothing() async throws {
        try await withReferenceProvider { rig in
            _ = try await rig.client.manager("SetPasscode", [.string(""), .string("4711-secret")])
            let enrollment = Task { await errorName { _ = try await rig.client.manager("Enroll", [.string("fingerprint"), .string("left-thumb"), .string("4711-secret")]) } }
            #expect(try await rig.listening.next().0 == "enrolling")
            try await P.simulator(rig.client.connection, "Touch", [.string("left-thumb")])
            _ = try await rig.client.manager("CancelEnrollment")
            #expect(await enrollment.value == LocalAuthBusNames.errorPrefix + "UserCancel")
            #expect(try await rig.client.userState()["Enrollments"]?.arrayElements?.isEmpty == true)
            #expect(try await P.simulator(rig.client.connection, "Templates", [.uint32(getuid())]).first?.arrayElements?.isEmpty == true)
            // The sensor is free again: the next enrollment runs.
            try await rig.enroll("left-thumb")
        }
    }

    /// A provider holds its sensor while it enrolls; an enrollment that takes no capture for a
    /// turn (`sensor_turn_seconds`) is ended when an evaluation wants the sensor, so one that is
    /// started and never touched does not keep it from everyone until its timeout.
    @Test func anIdleEnrollmentYieldsTheSensorToAnEvaluationAfterATurn() async throws {
        try await withReferenceProvider(settings: "sensor_turn_seconds = 1\n") { rig in
            _ = try await rig.client.manager("SetPasscode", [.string(""), .string("4711-secret")])
            try await rig.enroll("right-index-finger")
            let enrollment = Task { await errorName { _ = try await rig.client.manager("Enroll", [.string("fingerprint"), .string("left-thumb"), .string("4711-secret")]) } }
            #expect(try await rig.listening.next().0 == "enrolling")
            try await Task.sleep(for: .milliseconds(1300))  // the rule under test: no capture for a turn
            let context = try await rig.client.createContext()
            let evaluation = try await rig.begin(context, policy: 1)
            #expect(await enrollment.value == LocalAuthBusNames.errorPrefix + "SystemCancel")
            try await rig.simulator("Touch", [.string("right-index-finger")])
            #expect(await evaluation.value == nil, "the evaluation got the sensor")
            let templates = try #require(try await rig.simulator("Templates", [.uint32(getuid())]).first?.arrayElements)
            #expect(templates.count == 1, "the ended enrollment kept nothing")
            #expect(try await rig.client.userState()["Enrollments"]?.arrayElements?.count == 1)
        }
    }

    @Test func theCallerLeavingCancelsItsEnrollment() async throws {
        try await withReferenceProvider { rig in
            let leaver = try await Client(rig.bus)
            _ = try await leaver.manager("SetPasscode", [.string(""), .string("4711-secret")])
            let enrollment = Task { await errorName { _ = try await leaver.manager("Enroll", [.string("fingerprint"), .string("left-thumb"), .string("4711-secret")]) } }
            #expect(try await rig.listening.next().0 == "enrolling")
            leaver.connection.close()
            _ = await enrollment.value
            // The provider was told to cancel: a new enrollment starts (it would be Busy otherwise).
            try await rig.enroll("right-thumb")
            #expect(try await rig.client.userState()["Enrollments"] == .array(elementSignature: "(ss)", [.structure([.string("fingerprint"), .string("right-thumb")])]))
        }
    }

    @Test func anEnrollmentTheSensorRefusesFailsWithAClearErrorAndEnrollsNothing() async throws {
        try await withReferenceProvider { rig in
            _ = try await rig.client.manager("SetPasscode", [.string(""), .string("4711-secret")])
            var outcomes: [String?] = []
            for reason in ["data-full", "duplicate", "bent-finger"] {
                let enrollment = Task {
                    do {
                        _ = try await rig.client.manager("Enroll", [.string("fingerprint"), .string("left-thumb"), .string("4711-secret")])
                        return "no error"
                    } catch let error as DBusError {
                        return "\(error.name.rawValue): \(error.message)"
                    } catch {
                        return "\(error)"
                    }
                }
                #expect(try await rig.listening.next().0 == "enrolling")
                try await P.simulator(rig.client.connection, "FailEnrollment", [.string(reason)])
                outcomes.append(await enrollment.value)
            }
            #expect(outcomes[0]?.hasPrefix("org.freedesktop.DBus.Error.LimitsExceeded: The sensor's storage is full") == true, "\(outcomes)")
            #expect(outcomes[1]?.hasPrefix("org.freedesktop.DBus.Error.InvalidArgs: The sensor already holds") == true, "\(outcomes)")
            #expect(outcomes[2]?.contains("could not enroll (bent-finger)") == true, "\(outcomes)")
            #expect(try await rig.client.userState()["Enrollments"]?.arrayElements?.isEmpty == true)
        }
    }

    @Test func unenrollingDeletesTheProviderTemplate() async throws {
        try await withReferenceProvider { rig in
            _ = try await rig.client.manager("SetPasscode", [.string(""), .string("4711-secret")])
            try await rig.enroll("left-thumb")
            try await rig.enroll("left-thumb")
            let templates = try #require(try await P.simulator(rig.client.connection, "Templates", [.uint32(getuid())]).first?.arrayElements)
            #expect(templates.count == 1, "re-enrolling replaced the template: \(templates)")
            _ = try await rig.client.manager("Unenroll", [.string("fingerprint"), .string("left-thumb"), .string("4711-secret")])
            #expect(try await P.simulator(rig.client.connection, "Templates", [.uint32(getuid())]).first?.arrayElements?.isEmpty == true)
        }
    }

    @Test func backendsShowsTheProviderAndAnnouncesItsAvailability() async throws {
        try await withReferenceProvider(others: ["face"]) { rig in
            let changes = Inbox<[String: DBusValue]>()
            let subscription = try await rig.client.connection.subscribe(
                DBusMatchRule(path: LocalAuthBusNames.managerPath, interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged")) { signal in
                if let changed = signal.arguments.dropFirst().first?.vardict { changes.put(changed) }
            }
            defer { rig.client.connection.unsubscribe(subscription) }
            #expect(try await P.simulator(rig.client.connection, "SetAvailable", [.bool(false)]).first == .string(""))
            let changed = try #require(try await changes.next()["Backends"]?.arrayElements)
            #expect(changed.first?.structure?.prefix(3) == [.string("reference"), .string("fingerprint"), .bool(false)])
            #expect(changed.first?.structure?.last?.vardict?["State"] == .string("unavailable"))
            #expect(changed.dropFirst().first?.structure?.last?.vardict?["Kind"] == .string("simulator"))
            try await P.simulator(rig.client.connection, "SetAvailable", [.bool(true)])
            #expect(try await changes.next()["Backends"]?.arrayElements?.first?.structure?[2] == .bool(true))
        }
    }

    @Test func anUnknownBackendIdIsAConfigurationError() async throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("provider-config-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        try "backends = fingerprint, iris, passcode\nprovider_directories = \(scratch)\n".write(toFile: "\(scratch)/localauthd.conf", atomically: true, encoding: .utf8)
        let result = try await runTool(D.binary, ["--config", "\(scratch)/localauthd.conf", "--state-dir", scratch])
        #expect(result.status == 78)
        #expect(result.output.contains("\(scratch)/localauthd.conf:1: backends: unknown backend \"iris\""), "\(result.output)")
        #expect(result.output.contains("no iris.provider is in \(scratch)"), "\(result.output)")
        #expect(result.output.contains("it is not built in (fingerprint, fingerprint-sim, face, face-sim, passcode)"), "names the registry's ids: \(result.output)")
    }
}
