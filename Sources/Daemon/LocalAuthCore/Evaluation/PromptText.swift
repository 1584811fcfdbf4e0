// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI

/// The sentences prompts show, built from a context's titles and the evaluation's reason, worded
/// for where they are read (``Reader``).
enum PromptText {
    /// Who reads a context's prompts, which decides how choices are worded.
    enum Reader: Sendable, Hashable {
        /// A login's or sudo's PAM conversation, in a terminal or a greeter: the cancel title names
        /// a key ("Press Ctrl-C to cancel."); the conversation itself asks for the passcode.
        case conversation
        /// An application's own window. `takesPasscode`: it may submit the passcode itself
        /// (`app_passcode_entry`); otherwise the session's agent takes it and the app is never
        /// told to type it.
        case app(takesPasscode: Bool)

        init(_ options: ContextOptions, appPasscodeEntry: Bool) {
            self = options.isPrivilegedConversation ? .conversation : .app(takesPasscode: appPasscodeEntry)
        }
    }

    static func listening(_ sensors: BiometricModalitySet, reason: String, kind: LAPolicy.Kind, options: ContextOptions, reader: Reader) -> Prompt {
        let action: String
        switch (sensors.contains(.face), sensors.contains(.fingerprint)) {
        case (true, true): action = "Look at the screen or touch the fingerprint sensor"
        case (true, false): action = "Look at the screen"
        default: action = "Touch the fingerprint sensor"
        }
        return Prompt(.biometry, "\(action) to \(reason). \(choices(kind: kind, options: options, reader: reader))", detail: .listening(sensors))
    }

    static func waiting(for sensors: BiometricModalitySet, options: ContextOptions, reader: Reader) -> Prompt {
        let names = sensors.sorted().map { $0 == .face ? "face sensor" : "fingerprint sensor" }.joined(separator: " and ")
        return Prompt(.waiting, "Waiting for the \(names), which another request is using. \(stop(options, reader))", detail: .waiting(sensors))
    }

    static func notice(_ notice: Evaluation.Notice, reason: String, kind: LAPolicy.Kind, options: ContextOptions, reader: Reader) -> Prompt {
        switch notice {
        case .noMatch(let modality):
            let what = modality == .face ? "Face" : "Fingerprint"
            return Prompt(.noMatch, "\(what) not recognized; try again. \(choices(kind: kind, options: options, reader: reader))", detail: .noMatch(modality))
        case .retry(.attentionRequired):
            return Prompt(.attentionRequired, RetryReason.attentionRequired.advice, detail: .retry(.attentionRequired))
        case .retry(let retry):
            return Prompt(.retry, retry.advice, detail: .retry(retry))
        case .passcodeWanted(let why):
            let lead = switch why {
            case .noBiometry, .fallback: ""
            case .attemptsExhausted: "Biometry did not recognize you. "
            case .lockedOut: "Biometry is locked after too many failed attempts. "
            case .sensorLost: "The biometric sensor is no longer available. "
            }
            return Prompt(.passcode, "\(lead)Enter your passcode to \(reason). \(stop(options, reader))", detail: .passcodeWanted(why))
        case .passcodeWrong:
            return Prompt(.passcodeWrong, "Wrong passcode; try again. \(stop(options, reader))", detail: .passcodeWrong)
        }
    }

    /// How to give up: a key in a conversation, a button in an app.
    static func stop(_ options: ContextOptions, _ reader: Reader) -> String {
        switch reader {
        case .conversation: "Press \(options.localizedCancelTitle) to cancel."
        case .app: "Choose “\(options.localizedCancelTitle)” to stop."
        }
    }

    /// What else the reader can do while the sensors listen. A conversation moves to the passcode
    /// on its own, so it only says how to cancel; an app is told to type its passcode only when it
    /// takes it itself.
    private static func choices(kind: LAPolicy.Kind, options: ContextOptions, reader: Reader) -> String {
        guard case .app(let takesPasscode) = reader, !options.localizedFallbackTitle.isEmpty else { return stop(options, reader) }
        let cancel = "“\(options.localizedCancelTitle)”", fallback = "“\(options.localizedFallbackTitle)”"
        switch kind {
        case .biometricsOrPasscode where takesPasscode:
            return "You can also type your passcode now, choose \(fallback), or choose \(cancel) to stop."
        case .biometricsOrPasscode, .biometricsOnly, .companion:
            return "Choose \(fallback) for another way, or \(cancel) to stop."
        }
    }
}
