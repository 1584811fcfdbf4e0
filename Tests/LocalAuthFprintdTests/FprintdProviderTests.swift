// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthDBus
import LocalAuthTestSupport
import Testing

/// localauth-fprintd-provider driven directly over org.localauth.Provider1, against real fprintd and
/// libfprint's virtual reader, with the test standing in for localauthd (it owns
/// org.localauth.LocalAuthentication1 and records the ProviderHost calls).
@Suite(.enabled(if: FprintdUnderTest.isInstalled, "needs fprintd and python3-dbusmock (make deps)"))
struct FprintdProviderTests {
    static let right = "right-index-finger"
    static let left = "left-index-finger"

    @Test func helloDescribesTheReader() async throws {
        let rig = try await ProviderRig()
        let reply = try await rig.call("Hello", [.uint32(1)])
        #expect(reply.first?.uint32 == 1)
        #expect(reply.dropFirst().first?.string == "fingerprint")
        let capabilities = try #require(reply.last?.vardict)
        #expect(capabilities["Available"]?.unwrapped.bool == true)
        #expect(capabilities["EnrollStages"]?.unwrapped.uint32 == 5, "libfprint's virtual device takes five captures")
        #expect(capabilities["Description"]?.unwrapped.string == "Fingerprint readers through fprintd (net.reactivated.Fprint)")
        #expect(capabilities["Identify"]?.unwrapped.bool == false)
        #expect(capabilities["RetryReasons"]?.unwrapped.strings == ["too-short", "not-centered", "remove-and-retry"])
    }

    @Test func enrollmentReportsEveryStageAndARetry() async throws {
        let rig = try await ProviderRig()
        let stages = try await rig.call("EnrollStart", [.uint64(7), .uint32(ProviderRig.uid), .string(Self.right)])
        #expect(stages.first?.uint32 == 5)
        try await rig.fprintd!.send("SCAN print-a")
        try await rig.fprintd!.send("RETRY 1")
        for _ in 0..<4 { try await rig.fprintd!.send("SCAN print-a") }
        var seen: [HostReport] = []
        for _ in 0..<6 { seen.append(try await rig.reports.next()) }
        #expect(seen == [
            .enrollment(id: 7, status: "stage-passed", completedStages: 1, detail: ""),
            .enrollment(id: 7, status: "retry", completedStages: 1, detail: "too-short"),
            .enrollment(id: 7, status: "stage-passed", completedStages: 2, detail: ""),
            .enrollment(id: 7, status: "stage-passed", completedStages: 3, detail: ""),
            .enrollment(id: 7, status: "stage-passed", completedStages: 4, detail: ""),
            .enrollment(id: 7, status: "completed", completedStages: 5, detail: Self.right),
        ])
        try await rig.expectReleased("the claim ends with the enrollment")
        #expect(try await rig.call("ListTemplates", [.uint32(ProviderRig.uid)]).first?.strings == [Self.right])
    }

    @Test func aMatchReportsTheFingerAndReleasesWithoutDisarm() async throws {
        let rig = try await ProviderRig()
        try await rig.enroll(Self.right, print: "print-a", id: 1)
        try await rig.arm(10, templates: [Self.right])
        #expect(try await rig.isClaimed, "armed: the provider holds the reader")
        try await rig.fprintd!.send("SCAN print-a")
        #expect(try await rig.reports.next() == .attempt(session: 10, result: "match", detail: Self.right))
        try await rig.expectReleased("released as soon as the match is reported")
        try await rig.call("Disarm", [.uint64(10)])
    }

    @Test func noMatchIsReportedAndListeningGoesOn() async throws {
        let rig = try await ProviderRig()
        try await rig.enroll(Self.right, print: "print-a", id: 1)
        try await rig.arm(11, templates: [Self.right])
        try await rig.fprintd!.send("SCAN someone-else")
        #expect(try await rig.reports.next() == .attempt(session: 11, result: "no-match", detail: ""))
        try await rig.fprintd!.send("SCAN someone-else")
        #expect(try await rig.reports.next() == .attempt(session: 11, result: "no-match", detail: ""), "fprintd's verification restarted")
        try await rig.fprintd!.send("SCAN print-a")
        #expect(try await rig.reports.next() == .attempt(session: 11, result: "match", detail: Self.right))
    }

    @Test func everyRetryReasonIsAReasonNotANoMatch() async throws {
        let rig = try await ProviderRig()
        try await rig.enroll(Self.right, print: "print-a", id: 1)
        try await rig.arm(12, templates: [Self.right])
        for code in 0...3 { try await rig.fprintd!.send("RETRY \(code)") }
        var seen: [HostReport] = []
        for _ in 0...3 { seen.append(try await rig.reports.next()) }
        #expect(seen == [
            .attempt(session: 12, result: "retry", detail: "remove-and-retry"),  // verify-retry-scan
            .attempt(session: 12, result: "retry", detail: "too-short"),
            .attempt(session: 12, result: "retry", detail: "not-centered"),
            .attempt(session: 12, result: "retry", detail: "remove-and-retry"),
        ])
        #expect(try await rig.isClaimed, "a retry does not end the session")
        try await rig.call("Disarm", [.uint64(12)])
        try await rig.expectReleased("released on Disarm")
    }

    /// fprintd reports a verification stopped by VerifyStop/Release as verify-no-match; arriving
    /// while the next session is already armed, it must not count against that session.
    @Test func aStoppedVerificationIsNeverANoMatch() async throws {
        let rig = try await ProviderRig()
        try await rig.enroll(Self.right, print: "print-a", id: 1)
        for round in UInt64(0)..<5 {
            try await rig.arm(100 + 2 * round, templates: [Self.right])
            try await rig.arm(101 + 2 * round, templates: [Self.right])  // replaces the first
            try await rig.fprintd!.send("SCAN print-a")
            let report = try await rig.reports.next()
            #expect(report == .attempt(session: 101 + 2 * round, result: "match", detail: Self.right))
        }
    }

    @Test func unplugDuringAnEvaluationIsDisconnectedAndUnavailable() async throws {
        let rig = try await ProviderRig()
        try await rig.enroll(Self.right, print: "print-a", id: 1)
        try await rig.arm(13, templates: [Self.right])
        try await rig.fprintd!.send("UNPLUG")
        let reports = [try? await rig.reports.next(), try? await rig.reports.next()]
        #expect(reports == [.attempt(session: 13, result: "disconnected", detail: ""), .availability(false)],
                "the provider's log:\n\(rig.providerLog)\nfprintd's log:\n\(rig.fprintd!.logText.suffix(6000))")
        #expect(await rig.errorName("Arm", [.uint64(14), .uint32(ProviderRig.uid), .strings([Self.right]), .vardict([:])])
            == "org.localauth.Provider1.Error.Unavailable")
        let hello = try await rig.call("Hello", [.uint32(1)])
        #expect(hello.last?.vardict?["Available"]?.unwrapped.bool == false)
    }

    @Test func aDeviceErrorEndsTheSessionUncounted() async throws {
        let rig = try await ProviderRig()
        try await rig.enroll(Self.right, print: "print-a", id: 1)
        try await rig.arm(15, templates: [Self.right])
        try await rig.fprintd!.send("ERROR 0")  // verify-unknown-error
        #expect(try await rig.reports.next() == .attempt(session: 15, result: "disconnected", detail: ""))
        try await rig.expectReleased("released after the error")
        try await rig.arm(16, templates: [Self.right])
        try await rig.fprintd!.send("SCAN print-a")
        #expect(try await rig.reports.next() == .attempt(session: 16, result: "match", detail: Self.right), "the reader is still there")
    }

    @Test func fprintdKilledDuringAnEvaluationThenBack() async throws {
        let rig = try await ProviderRig()
        try await rig.enroll(Self.right, print: "print-a", id: 1)
        try await rig.arm(17, templates: [Self.right])
        rig.fprintd!.killFprintd()
        #expect(try await rig.reports.next() == .attempt(session: 17, result: "disconnected", detail: ""))
        #expect(try await rig.reports.next() == .availability(false))
        try await rig.fprintd!.startFprintd(watcher: rig.host)
        #expect(try await rig.reports.next() == .availability(true))
        try await rig.arm(18, templates: [Self.right])
        try await rig.fprintd!.send("SCAN print-a")
        #expect(try await rig.reports.next() == .attempt(session: 18, result: "match", detail: Self.right))
    }

    /// The provider waits up to 60 s for an fprintd that does not answer; a missing fprintd must
    /// be refused at once instead (each answer well under that, even on a loaded machine).
    /// fprintd dies while the provider is still arming (no session yet): Arm fails, and localauthd
    /// still hears that the reader is gone, and back when fprintd returns.
    @Test func fprintdKilledWhileArming() async throws {
        let rig = try await ProviderRig()
        try await rig.enroll(Self.right, print: "print-a", id: 1)
        try await rig.expectReleased("enrolled")
        rig.fprintd!.signalFprintd(SIGSTOP)
        let arming = Task { await rig.errorName("Arm", [.uint64(80), .uint32(ProviderRig.uid), .strings([Self.right]), .vardict([:])]) }
        rig.fprintd!.killFprintd()
        #expect(await arming.value == "org.localauth.Provider1.Error.Unavailable")
        #expect(try await rig.reports.next() == .availability(false))
        try await rig.fprintd!.startFprintd(watcher: rig.host)
        #expect(try await rig.reports.next() == .availability(true))
    }

    @Test func fprintdMissingIsUnavailableNotAHang() async throws {
        let rig = try await ProviderRig(withFprintd: false, fprintdTimeout: 60)
        var started = ContinuousClock.now
        let hello = try await rig.call("Hello", [.uint32(1)])
        #expect(hello.last?.vardict?["Available"]?.unwrapped.bool == false)
        #expect(ContinuousClock.now - started < .seconds(30))
        started = .now
        #expect(await rig.errorName("Arm", [.uint64(1), .uint32(ProviderRig.uid), .strings([Self.right]), .vardict([:])])
            == "org.localauth.Provider1.Error.Unavailable")
        #expect(ContinuousClock.now - started < .seconds(30))
        started = .now
        #expect(await rig.errorName("EnrollStart", [.uint64(2), .uint32(ProviderRig.uid), .string(Self.right)])
            == "org.localauth.Provider1.Error.Unavailable")
        #expect(ContinuousClock.now - started < .seconds(30))
    }

    @Test func anotherProgramHoldingTheReaderIsBusy() async throws {
        let rig = try await ProviderRig()
        try await rig.enroll(Self.right, print: "print-a", id: 1)
        try await rig.expectReleased("enrolled")
        // The lock screen (another fprintd client) holds the reader.
        let lockScreen = try await rig.bus.connect()
        defer { lockScreen.close() }
        _ = try await lockScreen.call(
            destination: FprintdUnderTest.busName, path: "/net/reactivated/Fprint/Device/0", interface: "net.reactivated.Fprint.Device",
            member: "Claim", arguments: [.string(ProviderRig.userName)])
        #expect(await rig.errorName("Arm", [.uint64(20), .uint32(ProviderRig.uid), .strings([Self.right]), .vardict([:])])
            == "org.localauth.Provider1.Error.Busy")
        #expect(await rig.errorName("EnrollStart", [.uint64(21), .uint32(ProviderRig.uid), .string(Self.left)])
            == "org.localauth.Provider1.Error.Busy")
        #expect(rig.reports.received.count == 5, "nothing reported for the refused session (only the five enrollment reports)")
        lockScreen.close()
        try await rig.arm(22, templates: [Self.right])
        try await rig.fprintd!.send("SCAN print-a")
        #expect(try await rig.reports.next() == .attempt(session: 22, result: "match", detail: Self.right))
    }

    @Test func theClaimIsReleasedAfterEveryEnding() async throws {
        let rig = try await ProviderRig()
        try await rig.enroll(Self.right, print: "print-a", id: 1)
        // Failure: a no-match, then localauthd ends the evaluation (lockout, fallback…).
        try await rig.arm(30, templates: [Self.right])
        try await rig.fprintd!.send("SCAN someone-else")
        #expect(try await rig.reports.next() == .attempt(session: 30, result: "no-match", detail: ""))
        try await rig.call("Disarm", [.uint64(30)])
        try await rig.expectReleased("after a failure")
        // Cancel or timeout: localauthd disarms a session with no attempt.
        try await rig.arm(31, templates: [Self.right])
        try await rig.call("Disarm", [.uint64(31)])
        try await rig.expectReleased("after a cancel")
        // Disarming another session changes nothing.
        try await rig.arm(32, templates: [Self.right])
        try await rig.call("Disarm", [.uint64(99)])
        #expect(try await rig.isClaimed)
        // Arming again replaces the session (one claim).
        try await rig.arm(33, templates: [Self.right])
        try await rig.fprintd!.send("SCAN print-a")
        #expect(try await rig.reports.next() == .attempt(session: 33, result: "match", detail: Self.right))
        try await rig.expectReleased("after a success")
        // An enrollment cancelled.
        _ = try await rig.call("EnrollStart", [.uint64(34), .uint32(ProviderRig.uid), .string(Self.left)])
        try await rig.fprintd!.send("SCAN print-b")
        #expect(try await rig.reports.next() == .enrollment(id: 34, status: "stage-passed", completedStages: 1, detail: ""))
        try await rig.call("EnrollCancel", [.uint64(34)])
        try await rig.expectReleased("after an enrollment cancel")
        #expect(try await rig.call("ListTemplates", [.uint32(ProviderRig.uid)]).first?.strings == [Self.right], "nothing kept")
    }

    @Test func localauthdLeavingReleasesTheClaim() async throws {
        let rig = try await ProviderRig()
        try await rig.enroll(Self.right, print: "print-a", id: 1)
        try await rig.arm(40, templates: [Self.right])
        #expect(try await rig.isClaimed)
        try await rig.host.releaseName(ProviderRig.hostName)
        try await rig.expectReleased("localauthd (the client of the provider) vanished")
        let stranger = try await rig.bus.connect()
        defer { stranger.close() }
        #expect(await rig.errorName("Hello", [.uint32(1)], from: stranger) == DBusError.Name.accessDenied.rawValue)
    }

    @Test func theProviderStoppingOrCrashingLeavesNoClaim() async throws {
        let rig = try await ProviderRig()
        try await rig.enroll(Self.right, print: "print-a", id: 1)
        try await rig.arm(45, templates: [Self.right])
        rig.signalProvider(SIGTERM)
        try await rig.expectReleased("the provider releases before it exits on SIGTERM")
        try await rig.startProvider()
        try await rig.arm(46, templates: [Self.right])
        rig.killProvider()
        try await rig.expectReleased("fprintd drops the claim of a client that crashed")
    }

    @Test func onlyLocalauthdMayCallAndOnlyFprintdMayReport() async throws {
        let rig = try await ProviderRig()
        try await rig.enroll(Self.right, print: "print-a", id: 1)
        let impostor = try await rig.bus.connect()
        defer { impostor.close() }
        for (member, arguments) in [
            ("Hello", [DBusValue.uint32(1)]),
            ("Arm", [.uint64(50), .uint32(ProviderRig.uid), .strings([Self.right]), .vardict([:])]),
            ("Disarm", [.uint64(50)]),
            ("ListTemplates", [.uint32(ProviderRig.uid)]),
            ("DeleteTemplate", [.uint32(ProviderRig.uid), .string(Self.right)]),
            ("EnrollStart", [.uint64(50), .uint32(ProviderRig.uid), .string(Self.left)]),
        ] {
            #expect(await rig.errorName(member, arguments, from: impostor) == DBusError.Name.accessDenied.rawValue, "\(member)")
        }
        // A forged VerifyStatus signal from anyone but fprintd is ignored.
        try await rig.arm(51, templates: [Self.right])
        try impostor.emitSignal(
            path: "/net/reactivated/Fprint/Device/0", interface: "net.reactivated.Fprint.Device", member: "VerifyStatus",
            arguments: [.string("verify-match"), .bool(true)])
        try await rig.fprintd!.send("SCAN someone-else")
        #expect(try await rig.reports.next() == .attempt(session: 51, result: "no-match", detail: ""), "the forged match was not reported")
        #expect(try await rig.call("ListTemplates", [.uint32(ProviderRig.uid)]).first?.strings == [Self.right], "nothing deleted")
    }

    /// uid 65534 (setpriv) calls every Provider1 method and forges fprintd's signals. The installed
    /// policy refuses it at the bus already; the provider would refuse it too
    /// (`onlyLocalauthdMayCallAndOnlyFprintdMayReport`).
    @Test func anotherUserCanNeitherCallNorForge() async throws {
        let rig = try await ProviderRig()
        try await rig.enroll(Self.right, print: "print-a", id: 1)
        try await rig.arm(70, templates: [Self.right])
        let script = PythonDBusClient.prelude + #"""
        P = dbus.Interface(bus.get_object('org.localauth.Provider.Fprintd', '/org/localauth/Provider1', introspect=False), 'org.localauth.Provider1')
        attempt('Hello', lambda: P.Hello(dbus.UInt32(1)))
        attempt('Arm', lambda: P.Arm(dbus.UInt64(71), dbus.UInt32(65534), ['right-index-finger'], dbus.Dictionary({}, signature='sv')))
        attempt('Disarm', lambda: P.Disarm(dbus.UInt64(70)))
        attempt('EnrollStart', lambda: P.EnrollStart(dbus.UInt64(72), dbus.UInt32(0), 'left-thumb'))
        attempt('EnrollCancel', lambda: P.EnrollCancel(dbus.UInt64(1)))
        attempt('ListTemplates', lambda: P.ListTemplates(dbus.UInt32(0)))
        attempt('DeleteTemplate', lambda: P.DeleteTemplate(dbus.UInt32(0), 'right-index-finger'))
        for status in ['verify-match', 'verify-disconnected']:
            bus.send_message(dbus.lowlevel.SignalMessage('/net/reactivated/Fprint/Device/0', 'net.reactivated.Fprint.Device', 'VerifyStatus'))
            m = dbus.lowlevel.SignalMessage('/net/reactivated/Fprint/Device/0', 'net.reactivated.Fprint.Device', 'VerifyStatus')
            m.append(status, True, signature='sb')
            bus.send_message(m)
        bus.flush()
        print('forged')
        """#
        let run = try await runTool("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-c", script, rig.bus.address],
                                    timeout: .seconds(30))
        let lines = run.output.split(separator: "\n").map(String.init)
        #expect(lines.count == 8, "\(run.output)")
        for line in lines.dropLast() {
            #expect(line.hasSuffix(" org.freedesktop.DBus.Error.AccessDenied"), "uid 65534: \(line)")
        }
        #expect(lines.last == "forged")
        #expect(try await rig.isClaimed, "still armed: Disarm was refused and the forged disconnected ignored")
        try await rig.fprintd!.send("SCAN someone-else")
        #expect(try await rig.reports.next() == .attempt(session: 70, result: "no-match", detail: ""), "the forged match was ignored")
        #expect(try await rig.call("ListTemplates", [.uint32(ProviderRig.uid)]).first?.strings == [Self.right], "nothing deleted")
    }

    @Test func severalFingersAndFingersEnrolledElsewhere() async throws {
        let rig = try await ProviderRig()
        try await rig.enroll(Self.right, print: "print-a", id: 1)
        try await rig.enroll(Self.left, print: "print-b", id: 2)
        // Both armed: fprintd's VerifyStart("any"); the virtual reader cannot identify, so fprintd
        // checks its first finger only, and the match names it.
        try await rig.arm(60, templates: [Self.right, Self.left])
        try await rig.fprintd!.send("SCAN print-a")
        #expect(try await rig.reports.next() == .attempt(session: 60, result: "match", detail: Self.right))
        // Only the left finger armed (the right one was enrolled by another program): the left one
        // is verified by name, and the right one cannot match.
        try await rig.arm(61, templates: [Self.left])
        try await rig.fprintd!.send("SCAN print-a")
        #expect(try await rig.reports.next() == .attempt(session: 61, result: "no-match", detail: ""))
        try await rig.fprintd!.send("SCAN print-b")
        #expect(try await rig.reports.next() == .attempt(session: 61, result: "match", detail: Self.left))
        // A template fprintd does not hold.
        #expect(await rig.errorName("Arm", [.uint64(62), .uint32(ProviderRig.uid), .strings(["left-thumb"]), .vardict([:])])
            == "org.localauth.Provider1.Error.UnknownTemplate")
        // Delete one.
        try await rig.call("DeleteTemplate", [.uint32(ProviderRig.uid), .string(Self.left)])
        #expect(try await rig.call("ListTemplates", [.uint32(ProviderRig.uid)]).first?.strings == [Self.right])
        #expect(await rig.errorName("DeleteTemplate", [.uint32(ProviderRig.uid), .string(Self.left)])
            == "org.localauth.Provider1.Error.UnknownTemplate")
        #expect(await rig.errorName("EnrollStart", [.uint64(63), .uint32(ProviderRig.uid), .string("nose")])
            == "org.localauth.Provider1.Error.EnrollFailed")
    }

    @Test func polkitRefusingTheProviderIsUnavailable() async throws {
        let rig = try await ProviderRig(allowed: [])
        let error = await rig.error("EnrollStart", [.uint64(1), .uint32(ProviderRig.uid), .string(Self.right)])
        #expect(error?.name.rawValue == "org.localauth.Provider1.Error.Unavailable")
        #expect(error?.message.contains("polkit refused") == true, "the error says why: \(error?.message ?? "")")
    }
}
