// SPDX-License-Identifier: Apache-2.0
@testable import localauth
import Testing

/// What ``TerminalSafeText`` lets through to a terminal, scalar by scalar.
@Suite("Terminal-safe text")
struct TerminalSafeTextTests {
    @Test func controlsAndBidiControlsFromAnotherProcessAreShownNotObeyed() {
        #expect(TerminalSafeText.line("\u{1b}[2K\rfake") == #"\x1b[2K\x0dfake"#)
        #expect(TerminalSafeText.line("a\u{9b}2J\u{7f}\u{8}") == #"a\x9b2J\x7f\x08"#)
        #expect(TerminalSafeText.line("Use \u{202e}drowssap\u{2066}x\u{2069}") == #"Use \u{202e}drowssap\u{2066}x\u{2069}"#)
        #expect(TerminalSafeText.line("one\ntwo\tthree\u{2028}four") == #"one\x0atwo\x09three\u{2028}four"#, "one line stays one line")
        #expect(TerminalSafeText.lines("one\ntwo\tthree\u{1b}") == "one\ntwo\tthree\\x1b", "several lines keep their newlines and tabs")
    }

    @Test func ordinaryTextIsShownAsItIs() {
        for text in ["localauthd 1.0.0", "Zugriff auf „Notizen“ erlauben? ✓", "👩‍💻 right-index-finger", "مرحبا", ""] {
            #expect(TerminalSafeText.line(text) == text)
            #expect(TerminalSafeText.lines(text) == text)
        }
    }
}
