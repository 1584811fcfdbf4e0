// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthBackends
import LocalAuthCore
import LocalAuthSystem
import Testing

/// config/localauthd.conf as the package installs it: real backends only (the fprintd provider and
/// the passcode), every other key at its default. Tests that need the simulators pass their own file.
@Suite("The package's configuration", .timeLimit(.minutes(1)))
struct PackageConfigurationTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The package's file, read as the installed daemon reads it: with the provider descriptors the
    /// package installs beside it (here the repository's, since the test binary is not installed).
    static func loadAsInstalled() throws -> (resolved: ConfigurationLoader.Resolved, text: String) {
        let text = try String(contentsOfFile: repository.appendingPathComponent("config/localauthd.conf").path, encoding: .utf8)
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let path = "\(temporary.path)/localauthd.conf"
        try (text + "\nprovider_directories = \(repository.appendingPathComponent("providers/fprintd").path)\n")
            .write(toFile: path, atomically: true, encoding: .utf8)
        return (try ConfigurationLoader.loadResolvingNames(path: path, builtIn: BackendRegistry.builtIn.ids), text)
    }

    @Test func aPackageInstallOffersOnlyRealBackends() throws {
        let (resolved, _) = try Self.loadAsInstalled()
        #expect(resolved.configuration.backends == ["fprintd", "passcode"])
        #expect(resolved.providers.map(\.id) == ["fprintd"])
        let registry = BackendRegistry.builtIn
        let made = try registry.make(resolved.configuration.backends.filter(registry.ids.contains),
                                     inputs: .init(simulatorQueue: SimulatorEventQueue(timeToLive: 10, clock: try SystemWallClock())))
        #expect(made.products.allSatisfy { $0.simulator == nil }, "no simulator is made")
        #expect(made.sensors.isEmpty, "the only biometric backend is the fprintd provider")
        #expect(made.listed.map(\.status.id) == ["passcode"])
    }

    @Test func everyOtherKeyIsListedWithItsDefault() throws {
        let (resolved, text) = try Self.loadAsInstalled()
        var expected = Configuration()
        expected.backends = ["fprintd", "passcode"]
        expected.providerDirectories = resolved.configuration.providerDirectories
        #expect(resolved.configuration == expected)
        for key in ["backends", "preferred_biometry", "biometry_max_failures", "fingerprint_attempts_per_evaluation",
                    "face_attempts_per_evaluation", "passcode_delays", "passcode_max_failures", "evaluation_timeout",
                    "simulator_event_ttl", "simulator_group", "max_contexts_per_client", "max_contexts_per_user", "max_contexts",
                    "root_reserved_contexts", "passcode_hash_workers", "max_passcode_operations_per_user", "state_directory"] {
            #expect(text.contains("\(key) ="), "the sample lacks \(key)")
        }
    }
}
