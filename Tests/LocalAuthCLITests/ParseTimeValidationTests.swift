// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthTestSupport
import Testing

/// The typed command line through the real binaries: every value is checked while parsing, so a
/// bad one is a usage error (64) even where no bus exists (which would be 69 once a command ran),
/// and `localauth` and `localauthd` follow the same rules (CommandLineKit).
@Suite("typed command line", .timeLimit(.minutes(2)))
struct ParseTimeValidationTests {
    typealias CLI = CommandLineTool
    static let utf8 = ["LC_ALL": "C.UTF-8"]
    /// Where no bus is: a command that got past parsing fails with 69.
    static let nowhere = ["--address", "unix:path=/nonexistent/bus"]

    func localauth(_ arguments: [String]) async throws -> CLI.Result {
        try await CLI.run(nil, Self.nowhere + arguments, environment: Self.utf8)
    }

    @Test func aBadPolicyIsRefusedBeforeConnecting() async throws {
        let number = try await localauth(["evaluate", "--reason", "x", "--policy", "9"])
        #expect(number.status == 64 && number.stderr.contains("--policy must be biometrics, owner"), "\(number.stderr)")
        let name = try await localauth(["can-evaluate", "--policy=biometric"])
        #expect(name.status == 64 && name.stderr.contains("Did you mean “biometrics”?"), "\(name.stderr)")
        #expect(try await localauth(["can-evaluate", "--policy=biometrics"]).status == 69, "a good policy gets as far as the bus")
        let json = try await localauth(["--json", "can-evaluate", "--policy", "0"])
        #expect(json.status == 64 && json.stderr.hasPrefix(#"{"error":{"name":"usage","exitStatus":64,"message":"--policy must be"#))
    }

    @Test func everyTypedValueIsCheckedAtParseTime() async throws {
        for arguments in [["evaluate", "--reason", "x", "--reuse", "soon"], ["evaluate", "--reason", "x", "--cancel-title="],
                          ["evaluate", "--reason", "x", "--policy", "biometrics", "--passcode-stdin"],
                          ["monitor", "--count", "0"], ["monitor", "--interval", "0"], ["lockout", "reset", "--uid", "root"],
                          ["sim", "face", "sideways"], ["attention", "maybe"], ["apps", "revoke", ""], ["--timeout", "0", "status"]] {
            let result = try await localauth(arguments)
            #expect(result.status == 64, "\(arguments): \(result.stderr)")
        }
        #expect(try await localauth(["sim", "face", "alternate", "--inattentive"]).status == 69)
        #expect(try await localauth(["attention", "off", "--stdin"]).status == 69)
    }

    @Test func aMissingValueIsNotTakenFromTheNextOption() async throws {
        let missing = try await localauth(["evaluate", "--reason", "--policy", "owner"])
        #expect(missing.status == 64 && missing.stderr.contains("--reason needs a value (TEXT)."), "\(missing.stderr)")
        let last = try await localauth(["monitor", "--count"])
        #expect(last.status == 64 && last.stderr.contains("--count needs a value (N)."), "\(last.stderr)")
        #expect(try await localauth(["evaluate", "--reason=--policy", "--policy", "owner", "--no-interaction"]).status == 69,
                "inline, a value may start with --")
    }

    @Test func unknownAndRepeatedOptionsAreRefused() async throws {
        let typo = try await localauth(["sim", "face", "--inatentive"])
        #expect(typo.status == 64 && typo.stderr.contains("sim face: unknown option --inatentive. Did you mean --inattentive?"), "\(typo.stderr)")
        let repeated = try await localauth(["can-evaluate", "--policy", "1", "--policy", "2"])
        #expect(repeated.status == 64 && repeated.stderr.contains("--policy is given twice"), "\(repeated.stderr)")
        let flag = try await localauth(["status", "--json=yes"])
        #expect(flag.status == 64 && flag.stderr.contains("--json takes no value."), "\(flag.stderr)")
        #expect(try await localauth(["--json", "--json", "status"]).status == 69, "a flag may repeat")
    }

    @Test func doubleDashMakesTheRestArguments() async throws {
        let option = try await localauth(["apps", "revoke", "-odd-app"])
        #expect(option.status == 64 && option.stderr.contains("unknown option -odd-app"), "\(option.stderr)")
        #expect(try await localauth(["apps", "revoke", "--", "-odd-app"]).status == 69)
        #expect(try await localauth(["apps", "revoke", "--", "a", "b"]).status == 64, "one APP only")
    }

    @Test func localauthdFollowsTheSameRules() async throws {
        func daemon(_ arguments: [String]) async throws -> (status: Int32, output: String) {
            try await runTool(DaemonUnderTest.binary, arguments)
        }
        let typo = try await daemon(["--confg", "/dev/null"])
        #expect(typo.status == 64 && typo.output.contains("unknown option --confg. Did you mean --config?"), "\(typo.output)")
        let repeated = try await daemon(["--config", "a", "--config", "b"])
        #expect(repeated.status == 64 && repeated.output.contains("--config is given twice"), "\(repeated.output)")
        let inline = try await daemon(["--idle-exit=0"])
        #expect(inline.status == 64 && inline.output.contains("--idle-exit needs a number of seconds above 0, not 0"), "\(inline.output)")
        let missing = try await daemon(["--state-dir", "--session"])
        #expect(missing.status == 64 && missing.output.contains("--state-dir needs a value (DIR)."), "\(missing.output)")
        #expect(try await daemon(["-h"]).output.hasPrefix("Usage: localauthd [OPTIONS]"))
    }
}
