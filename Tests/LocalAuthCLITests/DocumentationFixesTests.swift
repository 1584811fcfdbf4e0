// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// What issue 28 (item 5) found wrong in the help and the pages, checked as a reader sees it.
@Suite("Help and pages as read (issue 28)", .timeLimit(.minutes(2)))
struct DocumentationFixesTests {
    typealias CLI = CommandLineTool

    /// `apps` is a command and a group: its help lists the group's commands.
    @Test(arguments: [["help", "apps"], ["apps", "--help"]]) func appsHelpListsAllowAndRevoke(arguments: [String]) async throws {
        let help = try await CLI.run(nil, arguments)
        #expect(help.status == 0)
        #expect(help.stdout.contains("  apps allow APP") && help.stdout.contains("  apps revoke APP"), "\(help.stdout)")
    }

    @Test func localauthEnvironmentNamesTheLocaleVariablesOnOneLine() async throws {
        let page = try await ManualAndCompletionTests.rendered("man/localauth.1").stdout
        #expect(page.contains("LC_ALL, LC_CTYPE, LANG\n"), "\(page)")
    }

    /// The rendered page's words, one space between each (line breaks and justification gone).
    static func words(_ page: String) -> String {
        page.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    @Test func configurationPageHasNoRunTogetherSentences() async throws {
        let page = Self.words(try await ManualAndCompletionTests.rendered("man/localauthd.conf.5").stdout)
        #expect(!page.contains("providers.A"), "a sentence runs into the next: \(page)")
        #expect(page.contains("/etc/localauthd/providers. A provider's Id"), "\(page)")
    }

    /// localauthd.conf(5) and README: `backends` changes need a restart, and say so.
    @Test func backendsNeedARestartAndThePagesSaySo() async throws {
        let page = Self.words(try await ManualAndCompletionTests.rendered("man/localauthd.conf.5").stdout)
        #expect(page.contains("takes effect on restart (systemctl restart localauthd), not on reload"), "\(page)")
        let readme = try ExternalTool.file("README.md")
        #expect(!readme.contains("`backends` in\n  `/etc/localauthd/localauthd.conf` and reload."))
        #expect(readme.contains("`systemctl restart localauthd`"))
    }
}
