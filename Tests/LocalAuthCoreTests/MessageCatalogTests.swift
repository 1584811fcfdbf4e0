// SPDX-License-Identifier: Apache-2.0
import LocalAuthCore
import Testing

@Suite("Message catalog")
struct MessageCatalogTests {
    static let details: [PromptDetail] = [.listening([.face]), .listening([.fingerprint]), .listening([.face, .fingerprint]),
                                          .waiting([.face]), .noMatch(.face), .noMatch(.fingerprint), .passcodeWrong]
        + RetryReason.allCases.map(PromptDetail.retry)
        + ["no-biometry", "fallback", "attempts-exhausted", "locked-out", "sensor-lost"].map(PromptDetail.passcodeWanted)

    @Test func localesChooseTheLanguageEnglishOtherwise() {
        #expect(MessageCatalog.Language(locale: "de_DE.UTF-8") == .german)
        #expect(MessageCatalog.Language(locale: "de") == .german)
        #expect(MessageCatalog.Language(locale: "C") == .english)
        #expect(MessageCatalog.Language(locale: "fr_FR.UTF-8") == .english)
    }

    @Test func everySentenceExistsInBothLanguagesAndNoneQuotesAppText() {
        for detail in Self.details {
            let english = MessageCatalog.sentence(detail, .english), german = MessageCatalog.sentence(detail, .german)
            #expect(!english.isEmpty && !german.isEmpty && english != german, "\(detail)")
            #expect(!english.contains("“") && !german.contains("„"), "no app text in the daemon's sentences: \(detail)")
        }
    }
}
