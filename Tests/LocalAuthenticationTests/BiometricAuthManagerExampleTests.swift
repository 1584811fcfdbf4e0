// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthTestSupport
import Synchronization
import Testing

/// The iOS-style example, built unchanged against LocalAuthentication, run against a private daemon.
@Suite("BiometricAuthManager example", .timeLimit(.minutes(1)))
struct BiometricAuthManagerExampleTests {
    @Test func theExampleAuthenticatesTwiceByQueuedTouches() async throws {
        try await withDaemon { _, bus in
            let admin = try await Client(bus)
            try await admin.setUp(fingers: ["right-index-finger"])
            for _ in 1...2 { try await admin.simulator("Touch", [.string("right-index-finger")]) }
            let (status, output) = try await runTool(example, [], environment: ["LOCALAUTH_BUS_ADDRESS": bus.address], timeout: .seconds(20))
            #expect(status == 0, "\(output)")
            #expect(output.contains("biometry: faceID") && output.contains("available: true"))
            #expect(output.contains("callback: success") && output.contains("async: success"))
        }
    }

    @Test func withoutADaemonTheExampleSaysWhy() async throws {
        let (status, output) = try await runTool(example, [], environment: ["LOCALAUTH_BUS_ADDRESS": "unix:path=/nonexistent/bus"], timeout: .seconds(20))
        #expect(status == 1)
        #expect(output.contains("available: false (Set a device passcode to use this feature.)"))
        #expect(output.contains("callback: failed [-5]"))
    }

    var example: String {
        URL(fileURLWithPath: DaemonUnderTest.binary).deletingLastPathComponent().appendingPathComponent("BiometricAuthManagerExample").path
    }
}
