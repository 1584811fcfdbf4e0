// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// `localauth`'s help, suggestions and wording, without a daemon (issue 17's CLI findings).
@Suite("localauth help and messages", .timeLimit(.minutes(2)))
struct HelpTests {
    typealias CLI = CommandLineTool
    static let utf8 = ["LC_ALL": "C.UTF-8"]

    /// Every help text: the overview, each command's, each group's, `help`'s.
    static func everyHelpArguments() async throws -> [[String]] {
        let overview = try await CLI.run(nil, ["--help"]).stdout
        var commands: [[String]] = []
        var inCommands = false
        for line in overview.split(separator: "\n", omittingEmptySubsequences: false) {
            if line == "Commands:" { inCommands = true; continue }
            if inCommands && line.isEmpty { break }
            if inCommands, line.hasPrefix("  "), !line.hasPrefix("   ") {
                let words = line.split(separator: " ").prefix { $0.first!.isLowercase }
                commands.append(words.prefix(2).map(String.init).filter { !["on|off", "fingerprint|face"].contains($0) })
            }
        }
        #expect(commands.count > 20, "\(overview)")
        return [["--help"], ["help"], ["sim", "--help"], ["passcode", "--help"], ["enroll", "--help"]]
            + commands.map { $0 + ["--help"] }
    }

    @Test func everyHelpLineFitsEightyColumns() async throws {
        for arguments in try await Self.everyHelpArguments() {
            let help = try await CLI.run(nil, arguments, environment: Self.utf8)
            #expect(help.status == 0, "\(arguments): \(help.stderr)")
            let wide = help.stdout.split(separator: "\n").filter { $0.count > 80 }.map(String.init)
            #expect(wide.isEmpty, "localauth \(arguments.joined(separator: " ")): \(wide.count) lines wider than 80:\n\(wide.joined(separator: "\n"))")
        }
    }

    @Test func groupHelpDescribesEachCommand() async throws {
        let sim = try await CLI.run(nil, ["sim", "--help"])
        #expect(sim.status == 0)
        #expect(sim.stdout.contains("sim touch FINGER") && sim.stdout.contains("touch the fingerprint sensor"), "\(sim.stdout)")
        #expect(sim.stdout.contains("drop queued input"), "\(sim.stdout)")
        #expect(!sim.stdout.contains(" \n"), "no trailing blanks")
    }

    @Test func requiredOptionsAreShownAndCheckedAsRequired() async throws {
        let evaluate = try await CLI.run(nil, ["evaluate", "--help"])
        #expect(evaluate.stdout.contains("localauth evaluate --reason TEXT"), "\(evaluate.stdout)")
        #expect(!evaluate.stdout.contains("[--reason"), "\(evaluate.stdout)")
        let reset = try await CLI.run(nil, ["lockout", "reset", "--help"])
        #expect(reset.stdout.contains("localauth lockout reset --uid N"), "\(reset.stdout)")
        let missing = try await CLI.run(nil, ["lockout", "reset"])
        #expect(missing.status == 64 && missing.stderr.contains("needs --uid"), "\(missing.stderr)")
    }

    @Test func globalOptionsAndPolicyNamesGetSuggestions() async throws {
        let session = try await CLI.run(nil, ["--sesion", "status"], environment: Self.utf8)
        #expect(session.status == 64 && session.stderr.contains("Did you mean --session?"), "\(session.stderr)")
        let version = try await CLI.run(nil, ["--verison"], environment: Self.utf8)
        #expect(version.status == 64 && version.stderr.contains("Did you mean --version?"), "\(version.stderr)")
        let json = try await CLI.run(nil, ["status", "--jsn"], environment: Self.utf8)
        #expect(json.status == 64 && json.stderr.contains("Did you mean --json?"), "\(json.stderr)")
        let policy = try await CLI.run(nil, ["can-evaluate", "--policy", "biometric"], environment: Self.utf8)
        #expect(policy.status == 64 && policy.stderr.contains("Did you mean “biometrics”?"), "\(policy.stderr)")
    }

    @Test func helpCommandShowsTheSameHelpAsTheOption() async throws {
        let help = try await CLI.run(nil, ["help"]), option = try await CLI.run(nil, ["--help"])
        #expect(help.status == 0 && help.stdout == option.stdout)
        let evaluate = try await CLI.run(nil, ["help", "evaluate"]), evaluateOption = try await CLI.run(nil, ["evaluate", "--help"])
        #expect(evaluate.status == 0 && evaluate.stdout == evaluateOption.stdout)
        let touch = try await CLI.run(nil, ["help", "sim", "touch"])
        #expect(touch.status == 0 && touch.stdout.hasPrefix("Usage: localauth sim touch FINGER"), "\(touch.stdout)")
        let sim = try await CLI.run(nil, ["help", "sim"])
        #expect(sim.status == 0 && sim.stdout.contains("sim reset"))
        let unknown = try await CLI.run(nil, ["help", "evalute"], environment: Self.utf8)
        #expect(unknown.status == 64 && unknown.stderr.contains("Did you mean “evaluate”?"), "\(unknown.stderr)")
    }

    @Test func plainQuotesWhenTheLocaleIsNotUTF8() async throws {
        let typo = try await CLI.run(nil, ["stauts"], environment: ["LC_ALL": "C"])
        #expect(typo.status == 64 && typo.stderr.contains(#"Did you mean "status"?"#), "\(typo.stderr)")
        let help = try await CLI.run(nil, ["--help"], environment: ["LC_ALL": "C"])
        let evaluate = try await CLI.run(nil, ["evaluate", "--help"], environment: ["LC_ALL": "C"])
        for output in [typo.stderr, help.stdout, evaluate.stdout] {
            #expect(output.unicodeScalars.allSatisfy { $0.isASCII }, "non-ASCII under LC_ALL=C: \(output.unicodeScalars.filter { !$0.isASCII })")
        }
        let utf8 = try await CLI.run(nil, ["stauts"], environment: Self.utf8)
        #expect(utf8.stderr.contains("Did you mean “status”?"), "\(utf8.stderr)")
    }
}
