// SPDX-License-Identifier: Apache-2.0
/// The sentences prompts show, built from a context's titles and the evaluation's reason.
enum PromptText {
    static func listening(_ sensors: Set<BiometricModality>, reason: String, kind: LAPolicy.Kind, options: ContextOptions) -> Prompt {
        let action: String
        switch (sensors.contains(.face), sensors.contains(.fingerprint)) {
        case (true, true): action = "Look at the screen or touch the fingerprint sensor"
        case (true, false): action = "Look at the screen"
        default: action = "Touch the fingerprint sensor"
        }
        return Prompt(.biometry, "\(action) to \(reason). \(choices(kind: kind, options: options))", detail: .listening(sensors))
    }

    static func waiting(for sensors: Set<BiometricModality>, options: ContextOptions) -> Prompt {
        let names = sensors.sorted().map { $0 == .face ? "face sensor" : "fingerprint sensor" }.joined(separator: " and ")
        return Prompt(.waiting, "Waiting for the \(names), which another request is using. Choose “\(options.localizedCancelTitle)” to stop.", detail: .waiting(sensors))
    }

    static func notice(_ notice: Evaluation.Notice, reason: String, kind: LAPolicy.Kind, options: ContextOptions) -> Prompt {
        switch notice {
        case .noMatch(let modality):
            let what = modality == .face ? "Face" : "Fingerprint"
            return Prompt(.noMatch, "\(what) not recognized; try again. \(choices(kind: kind, options: options))", detail: .noMatch(modality))
        case .retry(.attentionRequired):
            return Prompt(.attentionRequired, RetryReason.attentionRequired.advice, detail: .retry(.attentionRequired))
        case .retry(let retry):
            return Prompt(.retry, retry.advice, detail: .retry(retry))
        case .passcodeWanted(let why):
            let lead: String, code: String
            switch why {
            case .noBiometry: (lead, code) = ("", "no-biometry")
            case .fallback: (lead, code) = ("", "fallback")
            case .attemptsExhausted: (lead, code) = ("Biometry did not recognize you. ", "attempts-exhausted")
            case .lockedOut: (lead, code) = ("Biometry is locked after too many failed attempts. ", "locked-out")
            case .sensorLost: (lead, code) = ("The biometric sensor is no longer available. ", "sensor-lost")
            }
            return Prompt(.passcode, "\(lead)Enter your passcode to \(reason). Choose “\(options.localizedCancelTitle)” to stop.",
                          detail: .passcodeWanted(code))
        case .passcodeWrong:
            return Prompt(.passcodeWrong, "Wrong passcode; try again. Choose “\(options.localizedCancelTitle)” to stop.", detail: .passcodeWrong)
        }
    }

    private static func choices(kind: LAPolicy.Kind, options: ContextOptions) -> String {
        let cancel = "“\(options.localizedCancelTitle)”"
        guard !options.localizedFallbackTitle.isEmpty else { return "Choose \(cancel) to stop." }
        let fallback = "“\(options.localizedFallbackTitle)”"
        switch kind {
        case .biometricsOrPasscode:
            return "You can also type your passcode now, choose \(fallback), or choose \(cancel) to stop."
        case .biometricsOnly, .companion:
            return "Choose \(fallback) for another way, or \(cancel) to stop."
        }
    }
}
