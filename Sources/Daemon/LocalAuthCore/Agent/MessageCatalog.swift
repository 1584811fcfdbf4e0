// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI

/// The daemon's own sentences for agents, in the agent's language. App text (reason, titles,
/// usage description) never goes into these sentences: agents show it beside them.
///
/// The English sentences are here and are the gettext message ids (`po/localauthd.pot`); the
/// other languages come from gettext catalogs (`po/LANG.po`, compiled to `localauthd.mo`), which
/// the daemon reads at start (`MessageCatalogFile`) and hands over as ``translations``. A missing
/// language, message or a translation whose placeholders differ from its message's falls back to
/// English.
public struct MessageCatalog: Sendable {
    /// A language as gettext names its catalogs: `de`, `fr`; English is the messages themselves.
    public struct Language: Sendable, Hashable {
        public let code: String

        public static let english = Language(code: "en")

        public init(code: String) { self.code = code }

        /// The language of a POSIX locale name (`de_DE.UTF-8`, `fr`, `C`): its lowercase letters
        /// before `_`, `.` or `@`; English for `C`, `POSIX` and anything without a language.
        public init(locale: String) {
            let code = String(locale.prefix { $0.isASCII && $0.isLetter }).lowercased()
            self = code.count >= 2 && code.count <= 3 && code != "c" && code != "posix" ? Language(code: code) : .english
        }
    }

    /// Message id → translation, per language code; only translations whose placeholders match.
    public let translations: [String: [String: String]]

    /// Every message the daemon may send an agent, in English: the catalog's message ids.
    public static let messages: [String] = {
        let sensors: [BiometricModalitySet] = [[.face], [.fingerprint], [.face, .fingerprint]]
        var all: [String] = [title, faceConsentQuestionFormat, ready, waiting, passcodeWrong]
        all += sensors.map(listening)
        all += BiometricModality.allCases.map(noMatch)
        all += RetryReason.allCases.map(\.advice)
        all += PasscodeReason.allCases.map(passcodeWanted)
        var seen = Set<String>()
        return all.filter { seen.insert($0).inserted }
    }()

    /// Only English.
    public init() { translations = [:] }

    /// `translations`: message id → translation, per language code. Translations of unknown
    /// messages and those whose placeholders (`%s`) differ from their message's are left out.
    public init(translations: [String: [String: String]]) {
        let known = Set(Self.messages)
        self.translations = translations.mapValues { table in
            table.filter { id, text in known.contains(id) && !text.isEmpty && Self.samePlaceholders(text, id) }
        }
    }

    /// Whether `text` and `id` have the same printf conversions; most have none, which needs no array.
    private static func samePlaceholders(_ text: String, _ id: String) -> Bool {
        let percent = UInt8(ascii: "%")
        guard text.contains(utf8Byte: percent) || id.contains(utf8Byte: percent) else { return true }
        return placeholders(in: text) == placeholders(in: id)
    }

    /// The printf conversions in `text` (`%s`), in order; `%%` is none.
    public static func placeholders(in text: String) -> [String] {
        var found: [String] = []
        var scalars = text.unicodeScalars.makeIterator()
        while let scalar = scalars.next() {
            guard scalar == "%", let next = scalars.next(), next != "%" else { continue }
            found.append("%" + String(next))
        }
        return found
    }

    public func title(_ language: Language) -> String {
        localized(Self.title, language)
    }

    /// Asks whether `app` may use the face sensor; the app name is quoted, not translated.
    /// The app identity is escaped (``DisplayText``): a path cannot end the quotation or reorder the sentence.
    public func faceConsentQuestion(app: String, _ language: Language) -> String {
        var question = localized(Self.faceConsentQuestionFormat, language)
        if let slot = question.firstRange(of: "%s") { question.replaceSubrange(slot, with: DisplayText.escaped(app)) }
        return question
    }

    /// After an answer was taken and the sheet goes on.
    public func ready(_ language: Language) -> String {
        localized(Self.ready, language)
    }

    public func sentence(_ detail: PromptDetail, _ language: Language) -> String {
        localized(Self.english(detail), language)
    }

    /// `message` in `language`, or `message` itself when the catalog has no translation.
    public func localized(_ message: String, _ language: Language) -> String {
        translations[language.code]?[message] ?? message
    }

    // MARK: The English messages

    private static let title = "Authentication Required"
    private static let faceConsentQuestionFormat = "Allow “%s” to use Face ID?"
    private static let ready = "Go on."
    private static let waiting = "Waiting for the sensor, which another request is using."
    private static let passcodeWrong = "Wrong passcode; try again."

    private static func listening(_ sensors: BiometricModalitySet) -> String {
        switch (sensors.contains(.face), sensors.contains(.fingerprint)) {
        case (true, true): "Look at the screen or touch the fingerprint sensor."
        case (true, false): "Look at the screen."
        default: "Touch the fingerprint sensor."
        }
    }

    private static func noMatch(_ modality: BiometricModality) -> String {
        switch modality {
        case .face: "Face not recognized; try again."
        case .fingerprint: "Fingerprint not recognized; try again."
        }
    }

    private static func passcodeWanted(_ why: PasscodeReason) -> String {
        switch why {
        case .attemptsExhausted: "Biometry did not recognize you. Enter your passcode."
        case .lockedOut: "Biometry is locked after too many failed attempts. Enter your passcode."
        case .sensorLost: "The biometric sensor is no longer available. Enter your passcode."
        case .noBiometry, .fallback: "Enter your passcode."
        }
    }

    private static func english(_ detail: PromptDetail) -> String {
        switch detail {
        case .listening(let sensors): listening(sensors)
        case .waiting: waiting
        case .noMatch(let modality): noMatch(modality)
        case .retry(let reason): reason.advice
        case .passcodeWanted(let why): passcodeWanted(why)
        case .passcodeWrong: passcodeWrong
        }
    }
}
