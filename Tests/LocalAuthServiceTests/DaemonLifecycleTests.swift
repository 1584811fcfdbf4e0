// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthAPI
import LocalAuthDBus
import LocalAuthTestSupport
import Testing

@Suite("localauthd start-up, options and shutdown", .timeLimit(.minutes(1)))
struct DaemonLifecycleTests {
    typealias D = DaemonUnderTest

    @Test func helpAndVersion() async throws {
        let help = try await runTool(D.binary, ["--help"])
        #expect(help.status == 0 && help.output.contains("Usage: localauthd") && help.output.contains("--state-dir DIR"))
        let version = try await runTool(D.binary, ["--version"])
        #expect(version.status == 0 && version.output == "localauthd 1.0.0\n")
        let bad = try await runTool(D.binary, ["--colour"])
        #expect(bad.status == 64 && bad.output.contains("unknown option --colour"))
    }

    @Test func badConfigurationStopsStartUpWithFileLineAndStatus78() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("bad-\(UUID().uuidString).conf").path
        try "# ok\nbiometry_max_failures = lots\n".write(toFile: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let result = try await runTool(D.binary, ["--session", "--config", file, "--state-dir", "/tmp/unused-\(UUID().uuidString)"])
        #expect(result.status == 78)
        #expect(result.output.contains("\(file):2: biometry_max_failures: expected a whole number"), "\(result.output)")
        let missing = try await runTool(D.binary, ["--config", "/nonexistent/localauthd.conf"])
        #expect(missing.status == 78 && missing.output.contains("/nonexistent/localauthd.conf: no such file"))
    }

    @Test func anUnknownSimulatorGroupStopsStartUpWithFileLineAndStatus78() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("group-\(UUID().uuidString).conf").path
        try "# ok\nsimulator_group = no-such-group-h10\n".write(toFile: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let result = try await runTool(D.binary, ["--address", "unix:path=/nonexistent/bus", "--config", file,
                                                  "--state-dir", "/tmp/unused-\(UUID().uuidString)"])
        #expect(result.status == 78)
        #expect(result.output.contains("\(file):2: simulator_group: unknown group \"no-such-group-h10\""), "\(result.output)")
    }

    /// Exit 73 before anything is changed: the link's target keeps its mode, the file its content.
    @Test func aStateDirectoryThatIsASymbolicLinkOrAFileStopsStartUpWithStatus73() async throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("statedir-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let config = "\(scratch)/localauthd.conf"
        try "".write(toFile: config, atomically: true, encoding: .utf8)
        let target = "\(scratch)/theirs", link = "\(scratch)/link", file = "\(scratch)/file"
        try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o755])
        if geteuid() == 0 { try #require(chown(target, 65534, 65534) == 0) }
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        try "keep".write(toFile: file, atomically: false, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file)
        func mode(_ path: String) throws -> Int? {
            try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        }

        for (stateDirectory, what) in [(link, "symbolic link"), (file, "not a directory")] {
            let result = try await runTool(D.binary, ["--address", "unix:path=\(scratch)/no-bus", "--config", config,
                                                      "--state-dir", stateDirectory])
            #expect(result.status == 73, "\(result.output)")
            #expect(result.output.contains(stateDirectory) && result.output.contains(what), "\(result.output)")
        }
        #expect(try mode(target) == 0o755 && FileManager.default.contentsOfDirectory(atPath: target).isEmpty)
        #expect(try mode(file) == 0o644 && String(contentsOfFile: file, encoding: .utf8) == "keep")
    }

    @Test func sigtermEndsEvaluationsWithSystemCancelAndExitsZero() async throws {
        try await withPrivateBus { bus in
            let watcher = try await bus.connect()
            defer { watcher.close() }
            let daemon = try DaemonUnderTest(bus: bus)
            defer { daemon.kill() }
            try await daemon.start(watcher: watcher)
            let client = try await Client(bus)
            try await client.setUp(fingers: ["left-thumb"])
            let running = try await client.begin(try await client.createContext(), policy: 1)
            #expect(try await daemon.terminate() == 0)
            #expect(await running.value == LocalAuthBusNames.errorPrefix + "SystemCancel")
            #expect(daemon.logText.contains("stopping: SIGTERM"))
        }
    }

    @Test func aSecondDaemonCannotTakeTheName() async throws {
        try await withDaemon { daemon, bus in
            let second = try await runTool(D.binary, ["--address", bus.address, "--state-dir", daemon.stateDirectory, "--config", daemon.configPath])
            #expect(second.status == 69 && second.output.contains("org.localauth.LocalAuthentication1"), "\(second.output)")
        }
    }

    @Test func thePasscodeNeverAppearsInLogsOrState() async throws {
        let passcode = "never-log-me-42"
        try await withDaemon { daemon, bus in
            let client = try await Client(bus)
            try await client.setUp(passcode: passcode, fingers: ["left-thumb"])
            let context = try await client.createContext()
            let running = try await client.begin(context, policy: 2)
            _ = await errorName { _ = try await client.context(context, "SubmitPasscode", [.string(passcode + "x")]) }
            _ = try await client.context(context, "SubmitPasscode", [.string(passcode)])
            #expect(await running.value == nil)
            #expect(!daemon.logText.isEmpty && !daemon.logText.contains(passcode))
            let files = FileManager.default.enumerator(atPath: daemon.stateDirectory)?.compactMap { $0 as? String } ?? []
            #expect(files.contains { $0.hasSuffix("profile.json") })
            for file in files {
                let data = FileManager.default.contents(atPath: "\(daemon.stateDirectory)/\(file)") ?? Data()
                #expect(data.range(of: Data(passcode.utf8)) == nil, "\(file) holds the passcode")
            }
        }
    }
}
