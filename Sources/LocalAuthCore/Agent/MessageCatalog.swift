// SPDX-License-Identifier: Apache-2.0
/// The daemon's own sentences for agents, in the agent's language. App text (reason, titles,
/// usage description) never goes into these sentences: agents show it beside them.
public enum MessageCatalog {
    public enum Language: String, Sendable, Hashable, CaseIterable {
        case english = "en"
        case german = "de"

        /// The language of a POSIX locale name (`de_DE.UTF-8`, `de`, `C`); English for any other.
        public init(locale: String) {
            let code = locale.prefix { $0.isLetter }.lowercased()
            self = Language(rawValue: code) ?? .english
        }
    }

    public static func title(_ language: Language) -> String {
        switch language {
        case .english: "Authentication Required"
        case .german: "Authentifizierung erforderlich"
        }
    }

    /// Asks whether `app` may use the face sensor; the app name is quoted, not translated.
    /// The app identity is escaped (``DisplayText``): a path cannot end the quotation or reorder the sentence.
    public static func faceConsentQuestion(app: String, _ language: Language) -> String {
        let app = DisplayText.escaped(app)
        return switch language {
        case .english: "Allow “\(app)” to use Face ID?"
        case .german: "Darf „\(app)“ Face ID verwenden?"
        }
    }

    /// After an answer was taken and the sheet goes on.
    public static func ready(_ language: Language) -> String {
        switch language {
        case .english: "Go on."
        case .german: "Bitte fortfahren."
        }
    }

    public static func sentence(_ detail: PromptDetail, _ language: Language) -> String {
        switch language {
        case .english: english(detail)
        case .german: german(detail)
        }
    }

    private static func english(_ detail: PromptDetail) -> String {
        switch detail {
        case .listening(let sensors):
            switch (sensors.contains(.face), sensors.contains(.fingerprint)) {
            case (true, true): return "Look at the screen or touch the fingerprint sensor."
            case (true, false): return "Look at the screen."
            default: return "Touch the fingerprint sensor."
            }
        case .waiting: return "Waiting for the sensor, which another request is using."
        case .noMatch(.face): return "Face not recognized; try again."
        case .noMatch(.fingerprint): return "Fingerprint not recognized; try again."
        case .retry(let reason): return reason.advice
        case .passcodeWanted(let why):
            switch why {
            case "attempts-exhausted": return "Biometry did not recognize you. Enter your passcode."
            case "locked-out": return "Biometry is locked after too many failed attempts. Enter your passcode."
            case "sensor-lost": return "The biometric sensor is no longer available. Enter your passcode."
            default: return "Enter your passcode."
            }
        case .passcodeWrong: return "Wrong passcode; try again."
        }
    }

    private static func german(_ detail: PromptDetail) -> String {
        switch detail {
        case .listening(let sensors):
            switch (sensors.contains(.face), sensors.contains(.fingerprint)) {
            case (true, true): return "Schauen Sie auf den Bildschirm oder berühren Sie den Fingerabdrucksensor."
            case (true, false): return "Schauen Sie auf den Bildschirm."
            default: return "Berühren Sie den Fingerabdrucksensor."
            }
        case .waiting: return "Warten auf den Sensor, den eine andere Anfrage verwendet."
        case .noMatch(.face): return "Gesicht nicht erkannt; versuchen Sie es erneut."
        case .noMatch(.fingerprint): return "Fingerabdruck nicht erkannt; versuchen Sie es erneut."
        case .retry(let reason):
            switch reason {
            case .tooShort: return "Die Berührung war zu kurz; versuchen Sie es erneut."
            case .notCentered: return "Legen Sie den Finger mittig auf den Sensor und versuchen Sie es erneut."
            case .removeAndRetry: return "Nehmen Sie den Finger ab und versuchen Sie es erneut."
            case .tooFast: return "Der Finger wurde zu schnell bewegt; versuchen Sie es erneut."
            case .noFace: return "Kein Gesicht zu sehen; schauen Sie auf den Bildschirm."
            case .attentionRequired: return "Schauen Sie mit offenen Augen auf den Bildschirm."
            }
        case .passcodeWanted(let why):
            switch why {
            case "attempts-exhausted": return "Biometrie hat Sie nicht erkannt. Geben Sie Ihren Code ein."
            case "locked-out": return "Biometrie ist nach zu vielen Fehlversuchen gesperrt. Geben Sie Ihren Code ein."
            case "sensor-lost": return "Der biometrische Sensor ist nicht mehr verfügbar. Geben Sie Ihren Code ein."
            default: return "Geben Sie Ihren Code ein."
            }
        case .passcodeWrong: return "Falscher Code; versuchen Sie es erneut."
        }
    }
}
