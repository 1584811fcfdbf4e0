// SPDX-License-Identifier: Apache-2.0
@testable import LocalAuthCore
import LocalAuthTestSupport
import Testing

/// Prompts fit where they are read: a PAM conversation names the key that cancels, an app is told
/// to type its passcode only when it takes it itself (issue 28, item 3).
@Suite("Prompt wording by reader", .timeLimit(.minutes(1)))
struct PromptTextTests {
    typealias H = EngineHarness

    static func options(fallback: String, cancel: String, user: UInt32? = nil) -> ContextOptions {
        var options = ContextOptions()
        options.localizedFallbackTitle = fallback
        options.localizedCancelTitle = cancel
        options.user = user
        return options
    }

    @Test func aPAMConversationSaysWhichKeyCancels() {
        let pam = Self.options(fallback: "Use Passcode", cancel: "Ctrl-C", user: 0)
        let reader = PromptText.Reader(pam, appPasscodeEntry: false)
        #expect(reader == .conversation)
        let prompts = [
            PromptText.listening([.fingerprint], reason: "sign in as root", kind: .biometricsOrPasscode, options: pam, reader: reader),
            PromptText.waiting(for: [.fingerprint], options: pam, reader: reader),
            PromptText.notice(.noMatch(.fingerprint), reason: "sign in as root", kind: .biometricsOrPasscode, options: pam, reader: reader),
            PromptText.notice(.passcodeWanted(.attemptsExhausted), reason: "sign in as root", kind: .biometricsOrPasscode, options: pam, reader: reader),
            PromptText.notice(.passcodeWrong, reason: "sign in as root", kind: .biometricsOrPasscode, options: pam, reader: reader),
        ]
        #expect(prompts[0].message == "Touch the fingerprint sensor to sign in as root. Press Ctrl-C to cancel.")
        for prompt in prompts {
            #expect(prompt.message.hasSuffix("Press Ctrl-C to cancel."), "\(prompt.message)")
            #expect(!prompt.message.contains("“") && !prompt.message.contains("Choose") && !prompt.message.contains("type your passcode"), "\(prompt.message)")
        }
    }

    @Test func anAppIsToldToTypeItsPasscodeOnlyWhenItTakesIt() {
        let app = Self.options(fallback: "Enter Password", cancel: "Cancel")
        #expect(PromptText.Reader(app, appPasscodeEntry: true) == .app(takesPasscode: true))
        func listening(_ takesPasscode: Bool) -> String {
            PromptText.listening([.face], reason: "unlock", kind: .biometricsOrPasscode, options: app, reader: .app(takesPasscode: takesPasscode)).message
        }
        #expect(listening(true) == "Look at the screen to unlock. You can also type your passcode now, choose “Enter Password”, or choose “Cancel” to stop.")
        #expect(listening(false) == "Look at the screen to unlock. Choose “Enter Password” for another way, or “Cancel” to stop.")
        let noMatch = PromptText.notice(.noMatch(.face), reason: "unlock", kind: .biometricsOrPasscode, options: app, reader: .app(takesPasscode: false))
        #expect(!noMatch.message.contains("passcode"), "\(noMatch.message)")
    }

    /// Through the engine: the default configuration (app_passcode_entry = false) never tells the
    /// app to type the passcode, since the session's agent takes it.
    @Test(arguments: [true, false]) func theEngineWordsPromptsByTheConfiguration(appPasscodeEntry: Bool) async throws {
        let h = try EngineHarness(appPasscodeEntry: appPasscodeEntry)
        try await h.setUp(fingers: ["right-index-finger"])
        let context = try await h.context { $0.localizedFallbackTitle = "Use PIN"; $0.localizedCancelTitle = "Not now" }
        _ = await h.begin(.deviceOwnerAuthentication, on: context, reason: "open the diary")
        let message = try #require(h.observer.prompts.last { $0.prompt.kind == .biometry }).prompt.message
        #expect(message.contains("type your passcode now") == appPasscodeEntry, "\(message)")
        #expect(message.contains("“Use PIN”") && message.contains("“Not now”"), "\(message)")
    }
}
