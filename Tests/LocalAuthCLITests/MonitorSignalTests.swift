// SPDX-License-Identifier: Apache-2.0
import LocalAuthDBus
import LocalAuthTestSupport
import Testing

/// `localauth monitor` follows the daemon's announcements instead of polling: with an interval
/// of an hour it still shows each change at once — a sensor going away (`Backends`), the
/// passcode set and a failure counted (`UserStateChanged`).
@Suite("monitor follows signals", .timeLimit(.minutes(1)))
struct MonitorSignalTests {
    typealias CLI = CommandLineTool

    @Test func monitorShowsChangesAtOnceWithoutPolling() async throws {
        try await withDaemon(configuration: CLI.daemonConfiguration) { _, bus in
            let monitor = try CLI.Running(bus, ["--json", "monitor", "--interval", "3600", "--count", "4"])
            let first = try await monitor.stdoutLines.next(within: .seconds(10))
            #expect(first.contains(#""passcodeSet":false"#), "\(first)")
            let client = try await Client(bus)
            try await client.simulator("SetConnected", [.string("fingerprint"), .bool(false)])
            let sensor = try await monitor.stdoutLines.next(within: .seconds(10))
            #expect(sensor.contains("fingerprint not available"), "\(sensor)")
            try await client.setUp()
            let passcode = try await monitor.stdoutLines.next(within: .seconds(10))
            #expect(passcode.contains(#""passcodeSet":true"#), "\(passcode)")
            _ = await errorName { _ = try await client.manager("SetPasscode", [.string("wrong-guess"), .string("new-secret")]) }
            let failure = try await monitor.stdoutLines.next(within: .seconds(10))
            #expect(failure.contains("passcode failures 1"), "\(failure)")
            #expect(try await monitor.finish().status == 0)
        }
    }
}
