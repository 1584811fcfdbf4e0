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

    static func file(_ path: String) throws -> String {
        try String(contentsOfFile: repository.appendingPathComponent(path).path, encoding: .utf8)
    }

    @Test func aPackageInstallOffersOnlyRealBackends() throws {
        let configuration = try ConfigurationParser.parse(try Self.file("config/localauthd.conf"), file: "config/localauthd.conf")
        #expect(configuration.backends == ["fprintd", "passcode"])
        // fprintd is the provider the package installs (its user exists once postinst ran).
        let registry = BackendRegistry.builtIn
        let descriptor = try ProviderDescriptor.parse(try Self.file("providers/fprintd/fprintd.provider"), path: "fprintd.provider",
                                                      builtIn: registry.ids, resolveUser: { _ in 4242 })
        #expect(descriptor.id == "fprintd" && !registry.ids.contains("fprintd"))
        let made = try registry.make(configuration.backends.filter(registry.ids.contains),
                                     inputs: .init(simulatorQueue: SimulatorEventQueue(timeToLive: 10, clock: try SystemWallClock())))
        #expect(made.products.allSatisfy { $0.simulator == nil }, "no simulator is made")
        #expect(made.sensors.isEmpty, "the only biometric backend is the fprintd provider")
        #expect(made.listed.map(\.status.id) == ["passcode"])
    }

    @Test func everyOtherKeyIsListedWithItsDefault() throws {
        let text = try Self.file("config/localauthd.conf")
        var expected = Configuration()
        expected.backends = ["fprintd", "passcode"]
        #expect(try ConfigurationParser.parse(text, file: "config/localauthd.conf") == expected)
        for key in ["backends", "preferred_biometry", "biometry_max_failures", "fingerprint_attempts_per_evaluation",
                    "face_attempts_per_evaluation", "passcode_delays", "passcode_max_failures", "evaluation_timeout",
                    "simulator_event_ttl", "simulator_group", "max_contexts_per_client", "max_contexts_per_user", "max_contexts",
                    "root_reserved_contexts", "passcode_hash_workers", "max_passcode_operations_per_user", "state_directory"] {
            #expect(text.contains("\(key) ="), "the sample lacks \(key)")
        }
    }
}
