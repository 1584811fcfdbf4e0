// SPDX-License-Identifier: Apache-2.0
@testable import LocalAuthCore
import Testing

/// Log lines are escaped from their bytes as from their text.
@Suite("DisplayText", .timeLimit(.minutes(1)))
struct DisplayTextTests {
    @Test(arguments: ["evaluation uid=0 result=success: Policy 1 satisfied.", "", "two\nlines", "tab\there", "\u{1b}[31mred",
                      "caf\u{e9}", "right\u{202e}to left", "zero\u{200b}width", "quote \"kept\"", "\u{7f}\u{85}"])
    func escapingBytesAgreesWithEscapingText(_ text: String) {
        #expect(DisplayText.controlsEscaped(utf8: Array(text.utf8)) == Array(DisplayText.controlsEscaped(text).utf8))
    }

    @Test func printableASCIIIsLeftAsItIs() {
        let line = Array("evaluation uid=0 client=:1.5 result=success: Policy 1 satisfied by fingerprint match.".utf8)
        #expect(DisplayText.controlsEscaped(utf8: line) == line)
        #expect(DisplayText.controlsEscaped(utf8: Array("a\nb".utf8)) == Array("a\\u{a}b".utf8))
    }
}
