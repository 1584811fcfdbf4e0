// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthAPI
import LocalAuthDBus
import LocalAuthTestSupport
import Testing

/// localauth-agent-gtk, the desktop sheet, against the real localauthd on a private bus: each test
/// evaluates policy 2 (deviceOwnerAuthentication) as an app, reads the sheet through AT-SPI, acts
/// as the user (AT-SPI, keyboard) and checks the app's result. Screenshots of each state go to
/// .build/screenshots/. Serialized: each test has its own Xvfb, and the machine has two cores.
@Suite("Desktop sheet (localauth-agent-gtk)", .serialized, .timeLimit(.minutes(3)))
struct DesktopSheetTests {
    static let passcode = "4711-secret"
    static let finger = "right-index-finger"
    static let reason = "Open your secret notes"
    /// Agents take the passcode (apps cannot); evaluations outlive any slow step of a test.
    static let configuration = "app_passcode_entry = false\nevaluation_timeout = 180\n"
    static let titles: [String: DBusValue] = ["LocalizedFallbackTitle": .string("Use Password"),
                                              "LocalizedCancelTitle": .string("Not Now")]
    /// How the sheet names this test process (its executable; it has no .desktop file).
    static let appName = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().lastPathComponent

    /// A daemon with a passcode and an enrolled finger, the desktop agent serving it, and the app's client.
    static func withDesktop(configuration: String = "", fingers: [String] = [finger], faces: [String] = [], environment: [String: String] = [:],
                            _ body: (DaemonUnderTest, PrivateBus, DesktopSession, Client) async throws -> Void) async throws {
        try await withDaemon(configuration: Self.configuration + configuration) { daemon, bus in
            let app = try await Client(bus)
            try await app.setUp(passcode: passcode, fingers: fingers, faces: faces)
            let desktop = try await DesktopSession(serving: bus, environment: environment)
            try await body(daemon, bus, desktop, app)
        }
    }

    /// Starts EvaluatePolicy(2) in a new context; the task gives the D-Bus error name it ended with, nil on success.
    static func evaluate(_ app: Client, reason: String = reason, options: [String: DBusValue] = titles) async throws -> (String, Task<String?, Never>) {
        let context = try await app.createContext(options)
        let task = Task {
            await errorName { _ = try await app.context(context, "EvaluatePolicy", [.uint32(2), .string(reason)], timeout: .seconds(240)) }
        }
        return (context, task)
    }

    static func error(_ name: String) -> String { LocalAuthBusNames.errorPrefix + name }

    @Test func theSheetShowsTheAppAndReasonWithThePasscodeFieldFocusedAndGoesWhenTheContextEnds() async throws {
        try await Self.withDesktop { _, _, desktop, app in
            let (context, evaluation) = try await Self.evaluate(app)
            let sheet = try await desktop.sheet(showing: [Self.reason, Self.appName, "Authentication Required", "Fingerprint",
                                                          "Waiting for touch", "Passcode", "Touch the fingerprint sensor."])
            #expect(sheet.focused == "password text:Passcode", "\(sheet)")
            #expect(sheet.buttons == ["Not Now": true, "Use Password": true, "Continue": false], "\(sheet)")
            try await desktop.screenshot("sheet")
            #expect(try await desktop.lightness(of: "sheet", x: 40, y: 60, width: 400, height: 100) > 0.7, "the light style by default")
            _ = try await app.context(context, "Invalidate")
            #expect(await evaluation.value == Self.error("AppCancel"))
            try await desktop.sheetGone()
        }
    }

    /// The agent's own words from agent-gtk/po/de.po, the daemon's sentences in German because the agent registered with a German locale.
    @Test func theSheetSpeaksTheUsersLanguage() async throws {
        try await Self.withDesktop(environment: ["LC_ALL": "de_DE.UTF-8"]) { _, _, desktop, app in
            // The titles are the app's text, localized by the app as on Apple platforms.
            let (_, evaluation) = try await Self.evaluate(app, options: ["LocalizedFallbackTitle": .string("Passwort eingeben"),
                                                                         "LocalizedCancelTitle": .string("Abbrechen")])
            let sheet = try await desktop.sheet(showing: ["Authentifizierung erforderlich", "Fingerabdruck", "Wartet auf Berührung",
                                                          "Berühren Sie den Fingerabdrucksensor.", "Geben Sie Ihren Code ein"])
            #expect(sheet.buttons == ["Abbrechen": true, "Passwort eingeben": true, "Fortfahren": false], "\(sheet)")
            #expect(sheet.focused == "password text:Code", "\(sheet)")
            try await desktop.screenshot("sheet-de")
            try await desktop.key("Escape")
            #expect(await evaluation.value == Self.error("UserCancel"))
        }
    }

    /// libadwaita's style manager follows the desktop's dark preference (forced here as a user's setting would).
    @Test func theSheetFollowsTheDarkStyle() async throws {
        try await Self.withDesktop(environment: ["ADW_DEBUG_COLOR_SCHEME": "prefer-dark"]) { _, _, desktop, app in
            let (_, evaluation) = try await Self.evaluate(app)
            try await desktop.sheet(showing: [Self.reason, "Waiting for touch"])
            try await desktop.screenshot("sheet-dark")
            #expect(try await desktop.lightness(of: "sheet-dark", x: 40, y: 60, width: 400, height: 100) < 0.3)
            try await desktop.key("Escape")
            #expect(await evaluation.value == Self.error("UserCancel"))
        }
    }

    /// Every message of the agent is in de.po and fr.po, translated (xgettext reads the script as the catalogues were made).
    @Test func everyMessageIsTranslatedIntoGermanAndFrench() async throws {
        let template = FileManager.default.temporaryDirectory.appendingPathComponent("localauth-agent-gtk-\(UUID().uuidString).pot").path
        defer { try? FileManager.default.removeItem(atPath: template) }
        let extracted = try await runTool("/usr/bin/xgettext", ["-L", "Python", "--from-code=UTF-8", "-k_", "-o", template, DesktopSession.agentScript],
                                          timeout: .seconds(60))
        #expect(extracted.status == 0, "\(extracted.output)")
        for language in ["de", "fr"] {
            let catalogue = DesktopSession.repository.appendingPathComponent("agent-gtk/po/\(language).po").path
            let compared = try await runTool("/usr/bin/msgcmp", [catalogue, template], timeout: .seconds(60))
            #expect(compared.status == 0, "\(language).po lacks messages: \(compared.output)")
            let checked = try await runTool("/usr/bin/msgfmt", ["-c", "--statistics", "-o", "/dev/null", catalogue], timeout: .seconds(60))
            #expect(checked.status == 0 && !checked.output.contains("untranslated") && !checked.output.contains("fuzzy"), "\(language): \(checked.output)")
        }
    }

    @Test func aTouchEndsTheSheet() async throws {
        try await Self.withDesktop { _, _, desktop, app in
            let (_, evaluation) = try await Self.evaluate(app)
            try await desktop.sheet(showing: [Self.reason, "Waiting for touch"])
            try await app.simulator("Touch", [.string(Self.finger)])
            #expect(await evaluation.value == nil)
            try await desktop.sheetGone()
        }
    }

    @Test func typingThePasscodeWhileTheSensorListensEndsTheSheet() async throws {
        try await Self.withDesktop { _, _, desktop, app in
            let (_, evaluation) = try await Self.evaluate(app)
            try await desktop.sheet(showing: [Self.reason, "Waiting for touch"])
            try await desktop.fill("Passcode", with: "wrong-guess")
            try await desktop.key("Return")
            let wrong = try await desktop.sheet(showing: ["Wrong passcode; try again.", "Wrong passcode", "Waiting for touch"])
            #expect(wrong.focused == "password text:Passcode", "\(wrong)")
            try await desktop.screenshot("passcode-wrong")
            try await desktop.fill("Passcode", with: Self.passcode)
            try await desktop.key("Return")
            #expect(await evaluation.value == nil)
            try await desktop.sheetGone()
            #expect(try await app.userState()["PasscodeFailures"] == .uint32(0))
        }
    }

    @Test func escapeCancels() async throws {
        try await Self.withDesktop { _, _, desktop, app in
            let (_, evaluation) = try await Self.evaluate(app)
            try await desktop.sheet(showing: [Self.reason])
            try await desktop.key("Escape")
            #expect(await evaluation.value == Self.error("UserCancel"))
            try await desktop.sheetGone()
        }
    }

    @Test func theFallbackButtonWithTheAppsTitleAsksForThePasscode() async throws {
        try await Self.withDesktop { _, _, desktop, app in
            let (_, evaluation) = try await Self.evaluate(app)
            try await desktop.sheet(showing: [Self.reason, "Use Password"])
            try await desktop.press("Use Password")
            let asked = try await desktop.sheet(showing: ["Enter your passcode.", "Off"])
            #expect(asked.focused == "password text:Passcode", "\(asked)")
            try await desktop.screenshot("fallback")
            try await desktop.fill("Passcode", with: Self.passcode)
            try await desktop.press("Continue")
            #expect(await evaluation.value == nil)
            try await desktop.sheetGone()
        }
    }

    @Test func faceConsentAllowedWithThePasscode() async throws {
        try await Self.withDesktop(configuration: "face_consent = true\n", fingers: [], faces: ["primary"]) { _, _, desktop, app in
            let (_, evaluation) = try await Self.evaluate(app, options: Self.titles.merging(["FaceUsageDescription": .string("Unlock your notes with your face.")]) { $1 })
            let question = try await desktop.sheet(showing: ["Face ID?", "Unlock your notes with your face.", "Allowing asks for your passcode"])
            #expect(question.buttons == ["Don’t Allow": true, "Allow": false], "\(question)")
            #expect(question.focused == "password text:Passcode to allow Face ID", "\(question)")
            try await desktop.screenshot("face-consent")
            try await desktop.fill("Passcode to allow Face ID", with: Self.passcode)
            try await desktop.key("Return")
            try await desktop.sheet(showing: ["Look at the screen.", "Waiting for your face"])
            let stored = try #require(try await app.manager("GetFaceConsents").first?.arrayElements?.first?.structure)
            #expect(stored[1] == .bool(true))
            try await app.simulator("PresentFace", [.string("primary"), .bool(true)])
            #expect(await evaluation.value == nil)
            try await desktop.sheetGone()
        }
    }

    @Test func faceConsentDeniedLeavesThePasscode() async throws {
        try await Self.withDesktop(configuration: "face_consent = true\n", fingers: [], faces: ["primary"]) { _, _, desktop, app in
            let (_, evaluation) = try await Self.evaluate(app, options: Self.titles.merging(["FaceUsageDescription": .string("Unlock your notes with your face.")]) { $1 })
            try await desktop.sheet(showing: ["Face ID?"])
            try await desktop.press("Don’t Allow")
            let passcode = try await desktop.sheet(showing: ["Face ID", "Not available", "Type your passcode"])
            #expect(passcode.focused == "password text:Passcode", "\(passcode)")
            let stored = try #require(try await app.manager("GetFaceConsents").first?.arrayElements?.first?.structure)
            #expect(stored[1] == .bool(false))
            try await desktop.key("Escape")
            #expect(await evaluation.value == Self.error("UserCancel"))
        }
    }

    @Test func aNoMatchThenAMatch() async throws {
        try await Self.withDesktop { _, _, desktop, app in
            let (_, evaluation) = try await Self.evaluate(app)
            try await desktop.sheet(showing: ["Waiting for touch"])
            try await app.simulator("Touch", [.string("left-thumb")])
            try await desktop.sheet(showing: ["No match, try again", "Fingerprint not recognized; try again."])
            try await desktop.screenshot("no-match")
            try await app.simulator("Touch", [.string(Self.finger)])
            #expect(await evaluation.value == nil)
            try await desktop.sheetGone()
        }
    }

    @Test func biometryLockoutThenThePasscode() async throws {
        try await Self.withDesktop(configuration: "biometry_max_failures = 2\n") { _, _, desktop, app in
            let (_, evaluation) = try await Self.evaluate(app)
            try await desktop.sheet(showing: ["Waiting for touch"])
            try await app.simulator("Touch", [.string("left-thumb")])
            try await desktop.sheet(showing: ["No match, try again"])
            try await app.simulator("Touch", [.string("left-thumb")])
            let locked = try await desktop.sheet(showing: ["Locked", "Biometry is locked after too many failed attempts. Enter your passcode."])
            #expect(locked.focused == "password text:Passcode", "\(locked)")
            try await desktop.screenshot("biometry-locked")
            try await desktop.fill("Passcode", with: Self.passcode)
            try await desktop.key("Return")
            #expect(await evaluation.value == nil)
            try await desktop.sheetGone()
        }
    }

    /// A 300 s delay shows as 5:00 (or 4:59 once a second went by), never 5:01, and the field waits.
    @Test func aPasscodeDelayShowsTheTimeLeft() async throws {
        try await Self.withDesktop(configuration: "passcode_delays = 0, 300\n") { _, _, desktop, app in
            let (_, evaluation) = try await Self.evaluate(app)
            try await desktop.sheet(showing: ["Waiting for touch"])
            for _ in 0..<2 {
                try await desktop.fill("Passcode", with: "wrong-guess")
                try await desktop.key("Return")
                try await desktop.sheet(showing: ["Wrong passcode; try again."])
            }
            let delayed = try await desktop.sheet(showing: ["Too many wrong passcodes. Try again in "])
            let line = try #require(delayed.texts.first { $0.contains("Try again in ") })
            #expect(line.hasSuffix("in 5:00.") || line.hasSuffix("in 4:59."), "\(line)")
            #expect(delayed.buttons["Continue"] == false, "\(delayed)")
            try await desktop.screenshot("passcode-delay")
            try await desktop.key("Escape")
            #expect(await evaluation.value == Self.error("UserCancel"))
        }
    }

    @Test func afterLocalauthdIsKilledAndStartedAgainTheNextEvaluationGetsTheSheet() async throws {
        try await Self.withDesktop { daemon, bus, desktop, app in
            let (_, first) = try await Self.evaluate(app, reason: "before the crash")
            try await desktop.sheet(showing: ["before the crash"])
            daemon.kill()
            #expect(await first.value != nil)
            try await desktop.sheetGone()
            let again = try DaemonUnderTest(bus: bus, stateDirectory: daemon.stateDirectory, configuration: Self.configuration)
            let watcher = try await bus.connect()
            defer { watcher.close(); again.kill() }
            try await again.start(watcher: watcher)
            try await desktop.waitForRegistration()
            let (_, second) = try await Self.evaluate(app, reason: "after the restart")
            try await desktop.sheet(showing: ["after the restart", "Waiting for touch"])
            try await app.simulator("Touch", [.string(Self.finger)])
            #expect(await second.value == nil)
            try await desktop.sheetGone()
        }
    }

    @Test func aSecondEvaluationWaitsForTheFirstSheet() async throws {
        try await Self.withDesktop { _, _, desktop, app in
            let (_, first) = try await Self.evaluate(app, reason: "the first reason")
            try await desktop.sheet(showing: ["the first reason"])
            let (_, second) = try await Self.evaluate(app, reason: "the second reason")
            try await app.simulator("Touch", [.string(Self.finger)])
            #expect(await first.value == nil)
            let next = try await desktop.sheet(showing: ["the second reason"])
            #expect(!next.shows("the first reason"), "\(next)")
            try await desktop.key("Escape")
            #expect(await second.value == Self.error("UserCancel"))
            try await desktop.sheetGone()
        }
    }

    /// Started with the session while another agent serves it: it leaves quietly (status 0).
    @Test func aSecondAgentExitsQuietly() async throws {
        try await Self.withDesktop { _, bus, desktop, _ in
            let second = try await runTool("/usr/bin/python3", [DesktopSession.agentScript, "--fallback", "--address", bus.address],
                                           environment: DesktopSession.environment(display: desktop.display, sessionBus: desktop.sessionBus),
                                           timeout: .seconds(60))
            #expect(second.status == 0 && !second.output.contains("registered"), "\(second.output)")
        }
    }

    /// Time left is rounded to the nearest second: 300.4 s is 5:00, never 5:01.
    @Test func timeLeftIsRoundedToTheNearestSecond() async throws {
        let script = """
        import importlib.machinery, importlib.util, sys
        loader = importlib.machinery.SourceFileLoader('agent', sys.argv[1])
        spec = importlib.util.spec_from_loader('agent', loader)
        agent = importlib.util.module_from_spec(spec)
        loader.exec_module(agent)
        print(' '.join(agent.format_time_left(s) for s in (300.4, 300.0, 299.6, 299.4, 59.5, 0.3, -2, 3600, 3725.2)))
        """
        let result = try await runTool("/usr/bin/python3", ["-c", script, DesktopSession.agentScript], timeout: .seconds(60))
        #expect(result.output == "5:00 5:00 5:00 4:59 1:00 0:00 0:00 1:00:00 1:02:05\n", "\(result.output)")
    }
}
