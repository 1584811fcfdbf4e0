// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthDBus
import LocalAuthTestSupport
import Testing

/// docs/providers.md, "Testing a face provider": with face consent on, `localauth evaluate
/// --usage-description TEXT` is what the user is asked about, `""` sends no description, and
/// `localauth apps allow` with localauth's real path lets it use the face sensor.
@Suite("localauth evaluate --usage-description")
struct ProviderCheckFaceTests {
    @Test func theUsageDescriptionIsWhatTheUserIsAskedAbout() async throws {
        try await withDaemon(configuration: CommandLineTool.daemonConfiguration + "face_consent = true\n") { _, bus in
            let client = try await Client(bus)
            try await client.setUp(faces: ["primary"])
            let agent = try await TestAgent(bus)
            try await agent.register()
            // An empty fallback title: evaluate is no agent of its own, so the test's agent is asked.
            let running = try CommandLineTool.Running(bus, ["evaluate", "--policy", "biometrics", "--fallback-title", "", "--reason", "check the camera",
                                                            "--usage-description", "Check the ACME camera."])
            guard case .begin(_, let cookie, let request) = try await agent.next("begin", within: .seconds(60)) else {
                Issue.record("no consent question")
                return
            }
            #expect(request["FaceUsageDescription"] == .string("Check the ACME camera."))
            #expect(request["FaceConsentQuestion"] != nil)
            try await agent.respond(cookie, "deny-face")
            let denied = try await running.finish(within: .seconds(60))
            #expect(denied.status != 0, "\(denied.stdout)\n\(denied.stderr)")

            // Without a description face is not offered at all, as to an app without one.
            let undescribed = try await CommandLineTool.run(bus, ["evaluate", "--policy", "biometrics", "--fallback-title", "", "--reason", "check the camera",
                                                                  "--usage-description", ""], timeout: .seconds(60))
            #expect(undescribed.status != 0 && undescribed.status != 64, "\(undescribed.stdout)\n\(undescribed.stderr)")
            #expect(agent.events.received.filter { $0.kind == "begin" }.count == 1, "asked again: \(agent.events.received)")

            // The docs' way to allow localauth once: `apps allow` with its executable's real path.
            let app = try #require(request["App"]?.string)
            #expect(app == URL(fileURLWithPath: CommandLineTool.binary).resolvingSymlinksInPath().path)
            let allowed = try await CommandLineTool.run(bus, ["apps", "allow", app, "--stdin"], stdin: "4711-secret\n", timeout: .seconds(60))
            #expect(allowed.status == 0, "\(allowed.stdout)\n\(allowed.stderr)")
            // Queued until the face sensor listens (simulator_event_ttl is long in CLI tests).
            try await client.simulator("PresentFace", [.string("primary"), .bool(true)])
            let matched = try await CommandLineTool.run(bus, ["evaluate", "--policy", "biometrics", "--fallback-title", "", "--reason", "check the camera",
                                                              "--usage-description", "Check the ACME camera."], timeout: .seconds(60))
            #expect(matched.status == 0 && matched.stdout.contains("Authenticated."), "\(matched.stdout)\n\(matched.stderr)")
        }
    }
}
