// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthAPI
import LocalAuthDBus
import LocalAuthTestSupport
import Testing

/// `localauth` commands against the real daemon on a private bus: output, JSON and exit statuses.
@Suite("localauth commands", .timeLimit(.minutes(2)))
struct CommandLineTests {
    typealias CLI = CommandLineTool
    let passcode = "4711-secret\n"

    @Test func helpVersionAndUsageErrors() async throws {
        let help = try await CLI.run(nil, ["--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("evaluate") && help.stdout.contains("13   passcodeLockout (LAError -9001)"))
        #expect(help.stdout.contains("69   localauthd or the bus not reachable"))
        let evaluateHelp = try await CLI.run(nil, ["evaluate", "--help"])
        #expect(evaluateHelp.status == 0 && evaluateHelp.stdout.contains("--passcode-stdin"))
        #expect(try await CLI.run(nil, ["--version"]).stdout == "localauth 1.0.0\n")

        let typo = try await CLI.run(nil, ["stauts"])
        #expect(typo.status == 64 && typo.stderr.contains("Did you mean “status”?"))
        let group = try await CLI.run(nil, ["passcode"])
        #expect(group.status == 64 && group.stderr.contains("localauth passcode change"))
        #expect(try await CLI.run(nil, []).status == 64)
        #expect(try await CLI.run(nil, ["evaluate"]).stderr.contains("needs --reason"))
        let badPolicy = try await CLI.run(nil, ["can-evaluate", "--policy", "9"])
        #expect(badPolicy.status == 64 && badPolicy.stderr.contains("--policy must be"))
        let badOption = try await CLI.run(nil, ["evaluate", "--reson", "x"])
        #expect(badOption.status == 64 && badOption.stderr.contains("Did you mean --reason?"))
        let badFinger = try await CLI.run(nil, ["sim", "touch", "right-index"])
        #expect(badFinger.status == 64 && badFinger.stderr.contains("Did you mean “right-index-finger”?"))
    }

    @Test func unreachableBusOrDaemonIsStatus69WithAHint() async throws {
        let noBus = try await CLI.run(nil, ["--address", "unix:path=/nonexistent/bus", "status"])
        #expect(noBus.status == 69 && noBus.stderr.contains("Is the bus running?"))
        try await withPrivateBus { bus in
            let noDaemon = try await CLI.run(bus, ["status"])
            #expect(noDaemon.status == 69)
            #expect(noDaemon.stderr.contains("localauthd is not running on the bus at \(bus.address)"))
            let json = try await CLI.run(bus, ["can-evaluate", "--json"])
            #expect(json.status == 69 && json.stdout.isEmpty)
            #expect(json.stderr.hasPrefix(#"{"error":{"name":"unreachable","exitStatus":69,"message":"localauthd is not running"#))
        }
    }

    @Test func passcodeEnrollmentsAttentionAndStatus() async throws {
        try await withDaemon(configuration: CLI.daemonConfiguration) { _, bus in
            let fresh = try await CLI.run(bus, ["status"])
            #expect(fresh.status == 0)
            #expect(fresh.stdout.contains("passcode: not set") && fresh.stdout.contains("enrollments: none"))
            #expect(fresh.stdout.contains("backends: fingerprint (simulator, available), face (simulator, available), passcode"), "\(fresh.stdout)")
            #expect(fresh.stdout.contains("biometry type: Face ID (simulator)"), "\(fresh.stdout)")
            #expect(fresh.stdout.contains("with no agent running, an app you have not allowed is not offered face"),
                    "status says why face may be skipped: \(fresh.stdout)")
            #expect(try await CLI.run(bus, ["enroll", "face", "--stdin"], stdin: passcode).status == 5, "passcodeNotSet")

            #expect(try await CLI.run(bus, ["passcode", "set", "--stdin"], stdin: passcode).stdout == "Passcode set.\n")
            #expect(try await CLI.run(bus, ["passcode", "set", "--stdin"], stdin: passcode).status == 65, "already set")
            #expect(try await CLI.run(bus, ["enroll", "fingerprint", "right-index-finger", "--stdin"], stdin: passcode).status == 0)
            #expect(try await CLI.run(bus, ["enroll", "face", "--stdin"], stdin: passcode).status == 0)
            #expect(try await CLI.run(bus, ["--json", "enroll", "face", "--alternate", "--stdin"], stdin: passcode).stdout
                    == #"{"ok":true,"action":"enroll"}"# + "\n")
            #expect(try await CLI.run(bus, ["attention", "off", "--stdin"], stdin: passcode).stdout == "Require attention: off.\n")

            let list = try await CLI.run(bus, ["enrollments"])
            #expect(list.stdout == "fingerprint\tright-index-finger\nface\tprimary\nface\talternate\n")
            let wrong = try await CLI.run(bus, ["unenroll", "face", "--alternate", "--stdin"], stdin: "not-it\n")
            #expect(wrong.status == 1 && wrong.stderr.contains("Authentication failed"))
            let client = try await Client(bus)
            #expect(try await client.userState()["PasscodeFailures"] == .uint32(1), "the wrong passcode was counted")
            #expect(try await CLI.run(bus, ["unenroll", "face", "--alternate", "--stdin"], stdin: passcode).status == 0)

            let status = try await CLI.run(bus, ["status", "--json"])
            let user = try #require(status.json["user"] as? [String: Any])
            #expect(user["passcodeSet"] as? Bool == true && user["requireAttention"] as? Bool == false)
            #expect(user["passcodeFailures"] as? Int == 0, "the right passcode cleared the count")
            #expect((user["enrollments"] as? [[String: String]])?.map { $0["label"]! } == ["right-index-finger", "primary"])
            #expect(status.json["biometryType"] as? String == "faceID")
            #expect(!status.stdout.contains("4711"))

            #expect(try await CLI.run(bus, ["passcode", "change", "--stdin"], stdin: "4711-secret\nnew-secret\n").status == 0)
            #expect(try await CLI.run(bus, ["passcode", "remove", "--stdin"], stdin: passcode).status == 1, "the old passcode is gone")
            #expect(try await CLI.run(bus, ["passcode", "remove", "--stdin"], stdin: "new-secret\n").status == 0)
            #expect(try await CLI.run(bus, ["enrollments", "--json"]).stdout == #"{"enrollments":[]}"# + "\n")
        }
    }

    @Test func canEvaluateExitStatusesAndJSON() async throws {
        try await withDaemon(configuration: CLI.daemonConfiguration) { _, bus in
            func check(_ policy: String) async throws -> Int32 { try await CLI.run(bus, ["can-evaluate", "--policy", policy]).status }
            let none = try await CLI.run(bus, ["can-evaluate", "--policy", "biometrics"])
            #expect(none.status == 5 && none.stdout == "biometrics: no: No passcode is set. Set one with: localauth passcode set\n")
            #expect(try await check("owner") == 5)
            #expect(try await check("companion") == 11)
            #expect(try await check("5") == 11)
            let client = try await Client(bus)
            try await client.setUp()
            let notEnrolled = try await CLI.run(bus, ["--json", "can-evaluate", "--policy", "1"])
            #expect(notEnrolled.status == 7)
            #expect(notEnrolled.stdout.hasPrefix(#"{"policy":"biometrics","value":1,"biometryType":"faceID","result":{"canEvaluate":false,"error":{"name":"biometryNotEnrolled","code":-7,"exitStatus":7,"message":"No fingerprint or face is enrolled. Enroll one with: localauth enroll fingerprint right-index-finger"}}}"#))
            #expect(try await check("owner") == 0)
            _ = try await client.manager("Enroll", [.string("fingerprint"), .string("left-thumb"), .string("4711-secret")])
            #expect(try await CLI.run(bus, ["can-evaluate", "--policy", "biometrics"]).stdout == "biometrics: yes\n")
            #expect(try await CLI.run(bus, ["sim", "disconnect", "fingerprint"]).status == 0)
            #expect(try await CLI.run(bus, ["sim", "disconnect", "face"]).status == 0)
            #expect(try await check("biometrics") == 6)
            #expect(try await CLI.run(bus, ["status"]).stdout.contains("fingerprint (simulator, not available), face (simulator, not available)"))
            #expect(try await check("owner") == 0)
            #expect(try await CLI.run(bus, ["sim", "connect", "fingerprint"]).stdout == "Connected the fingerprint sensor.\n")
            #expect(try await check("biometrics") == 0)
        }
    }

    @Test func simulatorCommandsQueueInputAndResetEmptiesTheQueue() async throws {
        try await withDaemon(configuration: CLI.daemonConfiguration) { _, bus in
            let client = try await Client(bus)
            func pending() async throws -> DBusValue {
                try await client.connection.property("Pending", interface: LocalAuthBusNames.simulatorInterface,
                                                     path: LocalAuthBusNames.simulatorPath, destination: LocalAuthBusNames.busName)
            }
            #expect(try await CLI.run(bus, ["sim", "touch", "left-thumb"]).status == 0)
            #expect(try await CLI.run(bus, ["sim", "retry", "too-short"]).status == 0)
            #expect(try await CLI.run(bus, ["sim", "face", "none", "--inattentive", "--json"]).stdout == #"{"ok":true,"action":"face"}"# + "\n")
            #expect(try await CLI.run(bus, ["sim", "face"]).stdout == "Showed the face sensor: primary.\n")
            #expect(try await pending() == .uint32(4))
            #expect(try await CLI.run(bus, ["sim", "reset"]).status == 0)
            #expect(try await pending() == .uint32(0))
        }
    }

    @Test func simulatorPressesTheSheetsButtonsOfTheRunningEvaluation() async throws {
        try await withDaemon(configuration: CLI.daemonConfiguration) { _, bus in
            let client = try await Client(bus)
            try await client.setUp(fingers: ["right-index-finger"])
            #expect(try await CLI.run(bus, ["sim", "cancel"]).status != 0, "no evaluation runs")
            for (command, error) in [("cancel", "UserCancel"), ("fallback", "UserFallback")] {
                let evaluation = try await client.begin(try await client.createContext(), policy: 1)
                #expect(try await CLI.run(bus, ["sim", command, "--json"]).stdout == #"{"ok":true,"action":"\#(command)"}"# + "\n")
                #expect(await evaluation.value == "org.localauth.LocalAuthentication1.Error." + error)
            }
        }
    }

    @Test func lockoutResetIsForRootAndAccessDeniedIs77() async throws {
        try await withDaemon(allowingEveryUser: true) { _, bus in
            let client = try await Client(bus)
            try await client.setUp()
            for _ in 1...2 { #expect(try await CLI.run(bus, ["attention", "off", "--stdin"], stdin: "wrong-one\n").status == 1) }
            #expect(try await client.userState()["PasscodeFailures"] == .uint32(2))
            #expect(try await CLI.run(bus, ["lockout", "reset", "--uid", "\(getuid())"]).stdout == "Lockout of uid \(getuid()) reset.\n")
            #expect(try await client.userState()["PasscodeFailures"] == .uint32(0))
            #expect(try await CLI.run(bus, ["lockout", "reset"]).status == 64)

            let stranger = try await runTool("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups",
                                                                   CLI.binary, "--address", bus.address, "lockout", "reset", "--uid", "0"])
            #expect(stranger.status == 77 && stranger.output.contains("Access denied"), "\(stranger.output)")
            let touch = try await runTool("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups",
                                                                CLI.binary, "--address", bus.address, "sim", "touch", "left-thumb"])
            #expect(touch.status == 77)
        }
    }

    @Test func monitorPrintsTheStateThenOneLinePerChange() async throws {
        try await withDaemon(configuration: CLI.daemonConfiguration) { _, bus in
            let monitor = try CLI.Running(bus, ["--json", "monitor", "--interval", "0.05", "--count", "2"])
            let first = try await monitor.stdoutLines.next(within: .seconds(10))
            #expect(first.hasPrefix(#"{"event":"state","time":"#) && first.contains(#""passcodeSet":false"#))
            let client = try await Client(bus)
            try await client.setUp()
            let second = try await monitor.stdoutLines.next(within: .seconds(10))
            #expect(second.contains(#""changed":["passcode set"]"#) && second.contains(#""passcodeSet":true"#))
            #expect(try await monitor.finish().status == 0)

            let human = try CLI.Running(bus, ["monitor", "--interval", "0.05"])
            #expect(try await human.stdoutLines.next(within: .seconds(10)).contains("passcode set; enrollments: none"))
            human.interrupt()
            #expect(try await human.finish().status == 0)
        }
    }
}
