// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthTestSupport
import Testing

/// What installs the desktop agent beside the script: its XDG autostart entry and its man page.
@Suite("localauth-agent-gtk's autostart entry and manual")
struct AgentInstallationTests {
    static let entry = DesktopSession.repository.appendingPathComponent("agent-gtk/localauth-agent-gtk.desktop").path

    /// Valid for desktop-file-validate, started on every desktop (no OnlyShowIn/NotShowIn), running the installed script.
    @Test func theAutostartEntryStartsTheAgentOnEveryDesktop() async throws {
        let validated = try await runTool("/usr/bin/desktop-file-validate", [Self.entry], timeout: .seconds(60))
        #expect(validated.status == 0 && validated.output.isEmpty, "\(validated.output)")
        let text = try String(contentsOfFile: Self.entry, encoding: .utf8)
        #expect(!text.contains("OnlyShowIn") && !text.contains("NotShowIn") && !text.contains("Hidden=true"))
        #expect(text.contains("\nExec=/usr/libexec/localauth-agent-gtk\n"), "make install-agent-gtk rewrites exactly this line")
    }

    /// man/localauth-agent-gtk.1 names every option `--help` lists.
    @Test func theManualNamesEveryOption() async throws {
        let help = try await runTool("/usr/bin/python3", [DesktopSession.agentScript, "--help"], environment: ["LC_ALL": "C.UTF-8"], timeout: .seconds(60))
        #expect(help.status == 0, "\(help.output)")
        let options = Set(help.output.split(whereSeparator: { " ,[]\n".contains($0) }).filter { $0.hasPrefix("--") }.map(String.init))
        #expect(options == ["--help", "--fallback", "--address"], "\(help.output)")
        let page = try String(contentsOfFile: DesktopSession.repository.appendingPathComponent("man/localauth-agent-gtk.1").path, encoding: .utf8)
        for option in options where option != "--help" {
            #expect(page.contains(option.replacingOccurrences(of: "-", with: "\\-")), "\(option) is not in the manual")
        }
    }
}
