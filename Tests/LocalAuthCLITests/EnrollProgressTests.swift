// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthTestSupport
import Testing

/// `localauth enroll` on a provider's sensor: each capture shown as it is taken (a line for a
/// person, a JSON line with --json), Ctrl-C cancels, and `localauth backends` lists the provider.
@Suite("localauth with a provider", .timeLimit(.minutes(2)))
struct EnrollProgressTests {
    typealias CLI = CommandLineTool
    static let passcode = "4711-secret\n"

    @Test func enrollShowsEachCaptureOnTheTerminalAndInJSON() async throws {
        try await withReferenceProvider { rig in
            #expect(try await CLI.run(rig.bus, ["passcode", "set", "--stdin"], stdin: Self.passcode).status == 0)
            let human = try CLI.Running(rig.bus, ["enroll", "fingerprint", "left-thumb", "--stdin"], stdin: Self.passcode)
            #expect(try await rig.listening.next().0 == "enrolling")
            try await rig.simulator("Touch", [.string("left-thumb")])
            #expect(try await human.stderrLines.next() == "Capture 1 of 3 taken.")
            try await rig.simulator("Retry", [.string("too-short")])
            #expect(try await human.stderrLines.next() == "Capture 2 of 3 could not be used (too-short); try again.")
            try await rig.simulator("Touch", [.string("left-thumb")])
            try await rig.simulator("Touch", [.string("left-thumb")])
            let done = try await human.finish()
            #expect(done.status == 0 && done.stdout == "Enrolled fingerprint left-thumb.\n", "\(done)")
            #expect(done.stderr.contains("Capture 3 of 3 taken."), "\(done.stderr)")

            let json = try CLI.Running(rig.bus, ["--json", "enroll", "fingerprint", "right-thumb", "--stdin"], stdin: Self.passcode)
            #expect(try await rig.listening.next().0 == "enrolling")
            for _ in 0..<3 { try await rig.simulator("Touch", [.string("right-thumb")]) }
            let result = try await json.finish()
            let lines = result.stdout.split(separator: "\n").map(String.init)
            #expect(result.status == 0 && lines.count == 4, "\(result)")
            #expect(lines.first == #"{"progress":{"modality":"fingerprint","status":"stage-passed","completedStages":1,"stages":3,"detail":""}}"#, "\(lines)")
            #expect(lines.last == #"{"ok":true,"action":"enroll"}"#, "\(lines)")
            #expect(result.stderr.isEmpty, "--json prints no notes: \(result.stderr)")
        }
    }

    @Test func ctrlCCancelsTheEnrollment() async throws {
        try await withReferenceProvider { rig in
            #expect(try await CLI.run(rig.bus, ["passcode", "set", "--stdin"], stdin: Self.passcode).status == 0)
            let enroll = try CLI.Running(rig.bus, ["enroll", "fingerprint", "left-thumb", "--stdin"], stdin: Self.passcode)
            #expect(try await rig.listening.next().0 == "enrolling")
            try await rig.simulator("Touch", [.string("left-thumb")])
            #expect(try await enroll.stderrLines.next() == "Capture 1 of 3 taken.")
            enroll.interrupt()
            let result = try await enroll.finish()
            #expect(result.status == 2, "userCancel: \(result)")
            #expect(try await rig.client.userState()["Enrollments"]?.arrayElements?.isEmpty == true)
        }
    }

    @Test func backendsListsKindVersionAndState() async throws {
        try await withReferenceProvider(others: ["face"]) { rig in
            let table = try await CLI.run(rig.bus, ["backends"])
            #expect(table.status == 0)
            let rows = table.stdout.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true).map(String.init) }
            #expect(rows.first?.prefix(5) == ["ID", "MODALITY", "KIND", "VERSION", "STATE"], "\(table.stdout)")
            #expect(rows.dropFirst().first?.prefix(5) == ["reference", "fingerprint", "provider", "1.0.0", "available"], "\(table.stdout)")
            #expect(rows.dropFirst(2).first?.prefix(5) == ["face", "face", "simulator", "-", "available"], "\(table.stdout)")
            let json = try await CLI.run(rig.bus, ["--json", "backends"])
            #expect(json.stdout.hasPrefix(#"{"backends":[{"id":"reference","modality":"fingerprint","available":true,"kind":"provider","version":"1.0.0","state":"available""#), "\(json.stdout)")
            let status = try await CLI.run(rig.bus, ["status"])
            #expect(status.stdout.contains("backends: reference (provider 1.0.0, available), face (simulator, available), passcode"), "\(status.stdout)")
        }
    }
}
