// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI
import LocalAuthCore
import Testing

@Suite("Message catalog")
struct MessageCatalogTests {
    static let details: [PromptDetail] = [.listening([.face]), .listening([.fingerprint]), .listening([.face, .fingerprint]),
                                          .waiting([.face]), .noMatch(.face), .noMatch(.fingerprint), .passcodeWrong]
        + RetryReason.allCases.map(PromptDetail.retry)
        + PasscodeReason.allCases.map(PromptDetail.passcodeWanted)

    static let german = MessageCatalog.Language(code: "de")

    @Test func localesChooseTheLanguageEnglishForCAndPOSIX() {
        #expect(MessageCatalog.Language(locale: "de_DE.UTF-8") == Self.german)
        #expect(MessageCatalog.Language(locale: "de") == Self.german)
        #expect(MessageCatalog.Language(locale: "fr_FR.UTF-8@euro").code == "fr")
        #expect(MessageCatalog.Language(locale: "C") == .english)
        #expect(MessageCatalog.Language(locale: "C.UTF-8") == .english)
        #expect(MessageCatalog.Language(locale: "POSIX") == .english)
    }

    @Test func everySentenceIsAMessageOfTheCatalogAndNoneQuotesAppText() {
        let english = MessageCatalog()
        for detail in Self.details {
            let sentence = english.sentence(detail, .english)
            #expect(MessageCatalog.messages.contains(sentence), "\(detail): \(sentence)")
            #expect(!sentence.contains("“"), "no app text in the daemon's sentences: \(detail)")
        }
        #expect(MessageCatalog.messages.contains(english.title(.english)) && MessageCatalog.messages.contains(english.ready(.english)))
        #expect(Set(MessageCatalog.messages).count == MessageCatalog.messages.count)
    }

    @Test func translationsAreUsedAndAnythingMissingFallsBackToEnglish() {
        let catalog = MessageCatalog(translations: ["de": ["Go on.": "Bitte fortfahren.", "Allow “%s” to use Face ID?": "Darf „%s“ Face ID verwenden?"]])
        #expect(catalog.ready(Self.german) == "Bitte fortfahren.")
        #expect(catalog.title(Self.german) == "Authentication Required", "an untranslated message is English")
        #expect(catalog.ready(MessageCatalog.Language(code: "fr")) == "Go on.", "a language without a catalog is English")
        #expect(catalog.faceConsentQuestion(app: "/usr/bin/notes", Self.german) == "Darf „/usr/bin/notes“ Face ID verwenden?")
        #expect(catalog.faceConsentQuestion(app: "a“ b %s", .english) == "Allow “a\\u{201c} b %s” to use Face ID?",
                "the app is escaped and inserted once")
    }

    @Test func aTranslationWhosePlaceholdersDifferIsLeftOut() {
        let catalog = MessageCatalog(translations: ["de": [
            "Allow “%s” to use Face ID?": "Darf diese App Face ID verwenden?",
            "Go on.": "Weiter mit %s.",
            "Not a message of the daemon.": "Keine Meldung.",
        ]])
        #expect(catalog.translations["de"] == [:])
        #expect(catalog.faceConsentQuestion(app: "notes", Self.german) == "Allow “notes” to use Face ID?")
        #expect(catalog.ready(Self.german) == "Go on.")
        #expect(MessageCatalog.placeholders(in: "100%% sure, %s and %d") == ["%s", "%d"])
    }
}
