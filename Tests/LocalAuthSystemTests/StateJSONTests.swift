// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthCore
@testable import LocalAuthSystem
import Testing

/// The state files' JSON coder (the daemon does not link Foundation): what it writes reads back
/// equal, it reads what Foundation's coders wrote before it and Foundation reads what it writes
/// (an upgrade and a downgrade keep every user's state), and it refuses what is not valid.
@Suite("State JSON without Foundation", .timeLimit(.minutes(1)))
struct StateJSONTests {
    static var ledger: UserLedger {
        var ledger = UserLedger()
        ledger.biometryFailures = 3
        ledger.biometryLockedOut = true
        ledger.passcodeFailures = 9_223_372_036_854_775_807
        ledger.passcodeRetryAfter = UnixTime(1_800_000_060.5)
        ledger.passcodeDelay = PasscodeDelay(started: BootTime(boot: "0b6f…-boot", seconds: 12.25), seconds: 300)
        ledger.lastUnlockMatch = UnixTime(1e-5)
        return ledger
    }

    static var profile: UserProfile {
        var profile = UserProfile()
        profile.passcodeHash = "$argon2id$v=19$m=65536,t=2,p=1$c2FsdA$aGFzaA"
        profile.enroll(.fingerprint, label: "right \"index\"\\finger\n\u{1}ü😀")
        profile.enroll(.face, label: "primary")
        profile.requireAttention = false
        return profile
    }

    @Test func whatItWritesReadsBackEqual() throws {
        let ledgerBytes = try StateJSONEncoder.encode(Self.ledger)
        #expect(try StateJSONDecoder.decode(UserLedger.self, from: ledgerBytes) == Self.ledger)
        let profileBytes = try StateJSONEncoder.encode(Self.profile)
        #expect(try StateJSONDecoder.decode(UserProfile.self, from: profileBytes) == Self.profile)
        #expect(try StateJSONDecoder.decode(UserLedger.self, from: StateJSONEncoder.encode(UserLedger())) == UserLedger())
        let text = String(decoding: ledgerBytes, as: UTF8.self)
        #expect(!text.contains("null") && !text.contains(" "), "compact, nil members left out: \(text)")
        #expect(text.hasPrefix(#"{"biometryFailures":3,"biometryLockedOut":true,"lastUnlockMatch":1e-05,"#), "sorted keys: \(text)")
    }

    @Test func foundationAndItReadEachOthersFiles() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        #expect(try StateJSONDecoder.decode(UserLedger.self, from: Array(encoder.encode(Self.ledger))) == Self.ledger)
        #expect(try StateJSONDecoder.decode(UserProfile.self, from: Array(encoder.encode(Self.profile))) == Self.profile)
        #expect(try JSONDecoder().decode(UserLedger.self, from: Data(StateJSONEncoder.encode(Self.ledger))) == Self.ledger)
        #expect(try JSONDecoder().decode(UserProfile.self, from: Data(StateJSONEncoder.encode(Self.profile))) == Self.profile)
    }

    @Test func readsWhitespaceEscapesAndWholeNumbersWrittenAsFloats() throws {
        let text = #" { "biometryFailures" : 2.0e0 , "biometryLockedOut":false, "passcodeFailures":0,"passcodeLockedOut":false, "#
            + #""unknown": [1, {"x": null}], "lastUnlockMatch": -0.5E+1 } "#
        let ledger = try StateJSONDecoder.decode(UserLedger.self, from: Array(text.utf8))
        #expect(ledger.biometryFailures == 2 && ledger.lastUnlockMatch == UnixTime(-5) && ledger.passcodeRetryAfter == nil)
        let escaped = #"{"enrollments":[{"modality":"face","label":"\u00fc\ud83d\ude00\/\t"}],"requireAttention":true,"enrollmentGeneration":1}"#
        #expect(try StateJSONDecoder.decode(UserProfile.self, from: Array(escaped.utf8)).enrollments.first?.label == "ü😀/\t")
    }

    static let valid = #"{"biometryFailures":0,"biometryLockedOut":false,"passcodeFailures":0,"passcodeLockedOut":false}"#

    @Test(arguments: [
        "", " ", "{", "}", "[]", "null", #"{"biometryFailures":0}"#,
        valid + " x", valid + valid,
        #"{"biometryFailures":0,"biometryFailures":1,"biometryLockedOut":false,"passcodeFailures":0,"passcodeLockedOut":false}"#,
        #"{"biometryFailures":01,"biometryLockedOut":false,"passcodeFailures":0,"passcodeLockedOut":false}"#,
        #"{"biometryFailures":1.5,"biometryLockedOut":false,"passcodeFailures":0,"passcodeLockedOut":false}"#,
        #"{"biometryFailures":1e30,"biometryLockedOut":false,"passcodeFailures":0,"passcodeLockedOut":false}"#,
        #"{"biometryFailures":-,"biometryLockedOut":false,"passcodeFailures":0,"passcodeLockedOut":false}"#,
        #"{"biometryFailures":"0","biometryLockedOut":false,"passcodeFailures":0,"passcodeLockedOut":false}"#,
        #"{"biometryFailures":0,"biometryLockedOut":0,"passcodeFailures":0,"passcodeLockedOut":false}"#,
        #"{"biometryFailures":0,"biometryLockedOut":false,"passcodeFailures":0,"passcodeLockedOut":false,"lastUnlockMatch":"1"}"#,
        #"{"biometryFailures":0,"biometryLockedOut":false,"passcodeFailures":0,"passcodeLockedOut":false,"x":"\ud800"}"#,
        #"{"biometryFailures":0,"biometryLockedOut":false,"passcodeFailures":0,"passcodeLockedOut":false,"x":"\u+123"}"#,
        "{\"biometryFailures\":0,\"biometryLockedOut\":false,\"passcodeFailures\":0,\"passcodeLockedOut\":false,\"x\":\"a\u{1}\"}",
        #"{"biometryFailures":0,"biometryLockedOut":false,"passcodeFailures":0,"passcodeLockedOut":false,"x":"#
            + String(repeating: "[", count: 100) + String(repeating: "]", count: 100) + "}",
    ])
    func refusesWhatIsNotALedger(_ text: String) {
        #expect(throws: StateJSONDecoder.Failure.self) { try StateJSONDecoder.decode(UserLedger.self, from: Array(text.utf8)) }
    }

    @Test func refusesBytesThatAreNotUTF8() {
        let bytes = Array(#"{"passcodeHash":""#.utf8) + [0xFF, 0xFE] + Array(#"","enrollments":[],"requireAttention":true,"enrollmentGeneration":0}"#.utf8)
        #expect(throws: StateJSONDecoder.Failure.self) { try StateJSONDecoder.decode(UserProfile.self, from: bytes) }
    }

    @Test func refusesToWriteANumberThatIsNotFinite() {
        var ledger = UserLedger()
        ledger.lastUnlockMatch = UnixTime(.infinity)
        #expect(throws: StateJSONEncoder.Failure.self) { try StateJSONEncoder.encode(ledger) }
    }
}
