// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthAPI
import LocalAuthDBus
import LocalAuthTestSupport
import Testing

private typealias P = ReferenceProvider

/// A provider that misbehaves after its handshake, with the real daemon and the Python reference
/// provider on a private bus: one that hangs while armed, one that floods its reports.
@Suite("Provider watch", .timeLimit(.minutes(3)))
struct ProviderWatchTests {
    /// The evaluation timeout is far beyond the test's waits: what ends the evaluation is the ping.
    static let settings = "evaluation_timeout = 900\n"

    @Test func aProviderThatHangsAfterArmIsNoticedWithinSecondsNotAtTheEvaluationTimeout() async throws {
        try await withReferenceProvider(timeout: 30, settings: Self.settings) { rig in
            _ = try await rig.client.manager("SetPasscode", [.string(""), .string("4711-secret")])
            try await rig.enroll("right-index-finger")
            let context = try await rig.client.createContext()
            let ended = Inbox<String?>()
            // The client waits longer than the daemon could take, so the daemon's answer is what ends it.
            Task { ended.put(await errorName { _ = try await rig.client.context(context, "EvaluatePolicy", [.uint32(1), .string("hang")], timeout: .seconds(600)) }) }
            #expect(try await rig.listening.next(within: .seconds(60)).0 == "armed")
            // A round trip to the single-threaded provider after its Listening signal: Arm has replied.
            try await rig.simulator("ArmedSession")
            let pid = try await P.pid(rig.client.connection)
            let stopped = ContinuousClock.now
            kill(pid, SIGSTOP)
            defer { kill(pid, SIGCONT) }

            let outcome = try await ended.next(within: .seconds(60))
            #expect(outcome == LocalAuthBusNames.errorPrefix + "BiometryNotAvailable", "the same as a provider that vanished")
            #expect(ContinuousClock.now - stopped < .seconds(60), "noticed by the ping, not at the 900 s evaluation timeout")
            #expect(try await rig.client.userState()["BiometryFailures"] == .uint32(0), "nothing counted")
            let log = rig.daemon.logText
            #expect(log.contains("provider reference stopped answering while armed (session ")
                    && log.contains(": no answer to Peer.Ping within 5 seconds)"), "\(log)")
            try await P.waitForBackend("reference", on: rig.client.connection, within: .seconds(60)) { $0 == "available" }
            #expect(try await P.pid(rig.client.connection) != pid, "the hung provider was killed and started again")
        }
    }

    @Test func aProviderFloodingReportsDoesNotFloodTheLog() async throws {
        try await withReferenceProvider { rig in
            let flooded = ContinuousClock.now
            for index in 0..<300 {
                try await rig.simulator("SetAvailable", [.bool(index % 2 == 1)])
            }
            let seconds = (ContinuousClock.now - flooded).components.seconds
            let lines = rig.daemon.logText.split(separator: "\n").filter { $0.contains("provider reference: sensor ") }
            #expect(lines.count <= 10 + Int(seconds) + 2, "300 reports in \(seconds) s: \(lines.count) lines")

            // The next line admitted after the flood says how many were dropped.
            let deadline = ContinuousClock.now + .seconds(60)
            var index = 0
            while !rig.daemon.logText.contains("messages from provider reference suppressed"), ContinuousClock.now < deadline {
                try await rig.simulator("SetAvailable", [.bool(index % 2 == 0)])
                index += 1
                try await Task.sleep(for: .milliseconds(200))
            }
            #expect(rig.daemon.logText.contains("messages from provider reference suppressed"), "\(rig.daemon.logText.suffix(3000))")
        }
    }
}
