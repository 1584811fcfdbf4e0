// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthAPI
import LocalAuthDBus
import LocalAuthProxies
import LocalAuthTestSupport
import Testing

/// Rights across restarts, with a vault that does not open, and under the unit's confinement.
@Suite("Rights at rest", .timeLimit(.minutes(3)))
struct RightsPersistenceTests {
    /// A restart keeps the rights: same key, the secret unseals with the wrapping key kept in
    /// `<state>/sealing`, and the files are private.
    @Test func aRestartKeepsRightsAndTheirSecrets() async throws {
        try await withPrivateBus { bus in
            let watcher = try await bus.connect()
            defer { watcher.close() }
            let first = try DaemonUnderTest(bus: bus, configuration: RightsTests.configuration)
            try await first.start(watcher: watcher)
            let saved: [String: DBusValue]
            do {
                let client = try await Client(bus)
                try await client.setUp(fingers: ["left-thumb"])
                saved = try await client.rightsProxy.saveRight("kept", requirement: "biometry", secret: Array("survives".utf8))
                client.connection.close()
            }
            first.kill()

            let sealing = first.stateDirectory + "/sealing"
            let key = try FileManager.default.attributesOfItem(atPath: sealing + "/wrapping-key")
            #expect((key[.posixPermissions] as? Int) == 0o600 && (key[.size] as? Int) == 32)
            #expect((try FileManager.default.attributesOfItem(atPath: sealing)[.posixPermissions] as? Int) == 0o700)
            let file = try Data(contentsOf: URL(fileURLWithPath: first.stateDirectory + "/rights/\(getuid())"))
            #expect(file.range(of: Data("survives".utf8)) == nil, "the secret is sealed on disk")
            #expect((try FileManager.default.attributesOfItem(atPath: first.stateDirectory + "/rights/\(getuid())")[.posixPermissions] as? Int) == 0o600)

            let second = try DaemonUnderTest(bus: bus, stateDirectory: first.stateDirectory, configuration: RightsTests.configuration)
            try await second.start(watcher: watcher)
            defer { second.kill() }
            let client = try await Client(bus)
            #expect(try await client.rightsProxy.right("kept") == saved)
            let context = client.contextProxy(try await client.createContext())
            #expect(await client.authorize(context, "kept") { try await client.simulator("Touch", [.string("left-thumb")]) } == nil)
            #expect(try await context.loadSecret("kept") == Array("survives".utf8), "\(second.logText)")
        }
    }

    /// key_protection = tpm2 with a (software) TPM: KeyProtection says so, only the TPM's sealed
    /// key files are on disk (no plain wrapping key), and a restart unseals the same key.
    @Test(.enabled(if: Swtpm.unavailableReason == nil, "\(Swtpm.unavailableReason ?? "")"))
    func aTPMSealsTheWrappingKeyAndARestartUnsealsIt() async throws {
        try await Swtpm.with { tpm in
            try await withPrivateBus { bus in
                let watcher = try await bus.connect()
                defer { watcher.close() }
                let configuration = "key_protection = tpm2\ntpm_tcti = \(tpm.tcti)\n"
                let first = try DaemonUnderTest(bus: bus, configuration: configuration)
                try await first.start(watcher: watcher)
                do {
                    let client = try await Client(bus)
                    try await client.setUp()
                    #expect(try await client.rightsProxy.keyProtection() == "tpm2", "\(first.logText)")
                    _ = try await client.rightsProxy.saveRight("tpm", requirement: "passcode", secret: Array("sealed by the TPM".utf8))
                    client.connection.close()
                }
                first.kill()
                let sealing = try FileManager.default.contentsOfDirectory(atPath: first.stateDirectory + "/sealing").sorted()
                #expect(!sealing.contains("wrapping-key") && !sealing.isEmpty, "\(sealing)")

                let second = try DaemonUnderTest(bus: bus, stateDirectory: first.stateDirectory, configuration: configuration)
                try await second.start(watcher: watcher)
                defer { second.kill() }
                let client = try await Client(bus)
                let context = client.contextProxy(try await client.createContext())
                let outcome = await client.authorize(context, "tpm", prompt: "passcode") { try await context.submitPasscode(.string(RightsTests.passcode)) }
                #expect(outcome == nil)
                #expect(try await context.loadSecret("tpm") == Array("sealed by the TPM".utf8), "\(second.logText)")
            }
        }
    }

    /// key_protection = tpm2 with no TPM at tpm_tcti: the daemon serves, logs why, says so in
    /// KeyProtection (empty), and every call that seals, unseals or uses a key fails with Failed naming the cause.
    @Test func aVaultThatDoesNotOpenLeavesTheDaemonServingAndRightsFailingWithTheCause() async throws {
        let scratch = try ScratchDirectory(prefix: "rights")
        let configuration = "key_protection = tpm2\ntpm_tcti = swtpm:path=\(scratch.path("no-tpm.sock"))\n"
        try await withDaemon(configuration: configuration) { daemon, bus in
            let client = try await Client(bus)
            try await client.setUp()
            #expect(try await client.rightsProxy.keyProtection() == "")
            do {
                _ = try await client.rightsProxy.saveRight("r", requirement: "default")
                Issue.record("a right was saved without a vault")
            } catch let error as DBusError {
                #expect(error.name == .failed && error.message.contains("key vault"), "\(error)")
            }
            #expect(await errorName { _ = try await client.rightsProxy.right("r") } != nil)
            let context = client.contextProxy(try await client.createContext())
            try await context.canEvaluatePolicy(.deviceOwnerAuthentication)
            #expect(daemon.logText.contains("rights: unavailable"), "\(daemon.logText)")
        }
    }

    /// The packaged unit's confinement (ProtectSystem=strict, private /tmp, …) with
    /// key_protection = wrapping-key: the key file is made in the state directory, and a right is
    /// saved, authorized with the passcode and its secret loaded.
    @Test(.enabled(if: ConfinedDaemon.unsupportedReason == nil, "\(ConfinedDaemon.unsupportedReason ?? "")"))
    func theConfinedDaemonKeepsRightsWithAWrappingKey() async throws {
        let daemon = try ConfinedDaemon(configuration: ["backends": "passcode", "key_protection": "wrapping-key", "app_passcode_entry": "true"])
        let watcher = try await daemon.bus.connect()
        defer { watcher.close() }
        try await daemon.start(watcher: watcher)
        let client = try await Client(daemon.bus)
        try await client.setUp()
        #expect(try await client.rightsProxy.keyProtection() == "wrapping-key", "\(daemon.logText)")
        _ = try await client.rightsProxy.saveRight("confined", requirement: "passcode", secret: [4, 2])
        let context = client.contextProxy(try await client.createContext())
        let outcome = await client.authorize(context, "confined", prompt: "passcode") { try await context.submitPasscode(.string(RightsTests.passcode)) }
        #expect(outcome == nil, "\(daemon.logText)")
        #expect(try await context.loadSecret("confined") == [4, 2])
        #expect(FileManager.default.fileExists(atPath: daemon.stateDirectory + "/sealing/wrapping-key"))
    }
}
