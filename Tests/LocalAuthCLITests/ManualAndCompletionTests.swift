// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthTestSupport
import Testing

/// The man pages and shell completion in the repository: rendered without warnings, and in step
/// with the command table, the daemon's options and the sample configuration.
@Suite("man pages and completion", .timeLimit(.minutes(2)))
struct ManualAndCompletionTests {
    typealias CLI = CommandLineTool
    static let pages = ["man/localauth.1", "man/localauthd.8", "man/localauthd.conf.5"]

    /// `man -l` output as plain text (not a terminal: no formatting, no pager).
    static func rendered(_ page: String) async throws -> ExternalTool.Result {
        try await ExternalTool.run("man", ["--warnings", "-l", page], environment: ["MANWIDTH": "80", "LC_ALL": "C.UTF-8", "MANPAGER": "cat"],
                             directory: ExternalTool.repository)
    }

    @Test(arguments: pages) func pageRendersWithoutWarnings(page: String) async throws {
        let result = try await Self.rendered(page)
        #expect(result.status == 0 && result.stderr.isEmpty, "\(page): \(result.stderr)")
        #expect(result.stdout.split(separator: "\n").count > 30, "\(page) rendered to almost nothing")
        let wide = result.stdout.split(separator: "\n").filter { $0.count > 80 }
        #expect(wide.isEmpty, "\(page): \(wide)")
    }

    @Test func localauthPageIsGeneratedFromTheCommandTable() async throws {
        let generated = try await CLI.run(nil, ["--help-man"])
        #expect(generated.status == 0)
        #expect(try ExternalTool.file("man/localauth.1") == generated.stdout,
                "man/localauth.1 is stale: run `make man` (localauth --help-man > man/localauth.1)")
    }

    @Test func daemonPageNamesEveryOptionOfLocalauthdHelp() async throws {
        let help = try await ExternalTool.run(DaemonUnderTest.binary, ["--help"]).stdout
        let options = help.split(separator: "\n").filter { $0.hasPrefix("  --") }.map { String($0.split(separator: " ")[0]) }
        #expect(options.count >= 6, "\(help)")
        let page = try await Self.rendered("man/localauthd.8").stdout
        for option in options { #expect(page.contains(option), "localauthd(8) lacks \(option)") }
        #expect(page.contains("localauthd.conf(5)") && page.contains("localauth(1)"))
    }

    @Test func configurationPageShowsEveryKeyWithTheSampleDefault() async throws {
        let page = try await Self.rendered("man/localauthd.conf.5").stdout
        // `key = value` lines, and `# key = value` for a default that is computed (state_directory).
        let settings = try ExternalTool.file("config/localauthd.conf").split(separator: "\n").compactMap { line -> String? in
            let setting = line.hasPrefix("# ") ? line.dropFirst(2) : line
            let words = setting.split(separator: " ")
            guard words.count >= 2, words[1] == "=", words[0].allSatisfy({ $0.isLowercase || $0 == "_" }) else { return nil }
            return String(setting).trimmingCharacters(in: .whitespaces)
        }
        #expect(settings.count >= 20)
        for setting in settings {
            #expect(page.contains("       " + setting + "\n"), "localauthd.conf(5) lacks the line \"\(setting)\"")
        }
    }

    @Test(arguments: ["bash"]) func completionScriptIsGeneratedFromTheCommandTable(shell: String) async throws {
        let generated = try await CLI.run(nil, ["completion", shell])
        #expect(generated.status == 0)
        let file = "completion/localauth.\(shell)"
        #expect(try ExternalTool.file(file) == generated.stdout, "\(file) is stale: run `make completion`")
    }

    @Test func pamHeaderIsGeneratedFromTheContract() async throws {
        let generated = try await CLI.run(nil, ["--help-c-header"])
        #expect(generated.status == 0)
        #expect(try ExternalTool.file("pam/localauth-api.h") == generated.stdout,
                "pam/localauth-api.h is stale: run `make man` (localauth --help-c-header > pam/localauth-api.h)")
        #expect(generated.stdout.contains(#"#define LA_ERROR_BIOMETRY_LOCKOUT "org.localauth.LocalAuthentication1.Error.BiometryLockout""#))
        #expect(generated.stdout.contains("#define LA_ERROR_PASSCODE_LOCKOUT_CODE (-9001)"))
    }

    @Test func desktopAgentConstantsAreGeneratedFromTheContract() async throws {
        let generated = try await CLI.run(nil, ["--help-python-api"])
        #expect(generated.status == 0)
        #expect(try ExternalTool.file("agent-gtk/localauth-agent-gtk").contains(generated.stdout.trimmingCharacters(in: .newlines) + "\n"),
                "agent-gtk/localauth-agent-gtk's constants are stale: run `make man` (localauth --help-python-api)")
        #expect(generated.stdout.contains(#"    ALLOW_FACE = "allow-face""#))
        #expect(generated.stdout.contains(#"    PASSCODE_RETRY_AFTER = "PasscodeRetryAfter""#))
    }

    /// What `_localauth` offers for the words typed so far (the last one being completed).
    static func complete(_ words: [String]) async throws -> [String] {
        let quoted = words.map { "'\($0)'" }.joined(separator: " ")
        let script = "source completion/localauth.bash; COMP_WORDS=(localauth \(quoted)); COMP_CWORD=\(words.count); "
            + "COMP_LINE=\"${COMP_WORDS[*]}\"; COMP_POINT=${#COMP_LINE}; _localauth; printf '%s\\n' \"${COMPREPLY[@]}\""
        let result = try await ExternalTool.run("bash", ["--norc", "--noprofile", "-c", script], directory: ExternalTool.repository)
        #expect(result.status == 0 && result.stderr.isEmpty, "\(result.stderr)")
        return result.stdout.split(separator: "\n").map(String.init)
    }

    @Test func bashCompletesCommandsOptionsPoliciesAndFingers() async throws {
        #expect(try await Self.complete(["ev"]) == ["evaluate"])
        let sim = try await Self.complete(["sim", ""])
        #expect(sim.contains("touch") && sim.contains("reset"))
        #expect(try await Self.complete(["sim", "t"]) == ["touch"])
        #expect(try await Self.complete(["evaluate", "--pol"]) == ["--policy"])
        #expect(try await Self.complete(["evaluate", "--policy", "bio"]) == ["biometrics", "biometrics-or-companion"])
        #expect(try await Self.complete(["sim", "touch", "right-i"]) == ["right-index-finger"])
        #expect(try await Self.complete(["--ses"]) == ["--session"])
        #expect(try await Self.complete(["help", "enr"]).sorted() == ["enroll", "enrollments"])
        #expect(try await Self.complete(["attention", ""]) == ["on", "off"])
    }
}
