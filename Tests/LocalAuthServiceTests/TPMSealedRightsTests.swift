// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthAPI
import LocalAuthDBus
import LocalAuthProxies
import LocalAuthTestSupport
import Testing

/// Rights sealed with a wrapping key that a TPM 2.0 (a real `swtpm`) sealed, through the real
/// daemon: it says so (KeyProtection "tpm2"), a secret saved before a restart loads after it, and a
/// daemon started with another machine's TPM cannot open the rights (Failed, the cause in the log)
/// instead of falling back to a key file.
@Suite(.timeLimit(.minutes(3)), .enabled(if: Swtpm.unavailableReason == nil, "\(Swtpm.unavailableReason ?? "")"))
struct TPMSealedRightsTests {
    static let passcode = "4711-secret"
    static let secret = Array("opens with this TPM only".utf8)

    static func configuration(_ choice: String, _ tpm: Swtpm) -> String { "key_protection = \(choice)\ntpm_tcti = \(tpm.tcti)\n" }

    @Test func aSecretSealedWithTheTPMLoadsAfterARestartAndNotWithAnotherTPM() async throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let watcher = try await bus.connect()
        defer { watcher.close() }
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("localauthd-tpm-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: state) }

        try await Swtpm.with { tpm in
            let daemon = try DaemonUnderTest(bus: bus, stateDirectory: state, configuration: Self.configuration("auto", tpm))
            defer { daemon.kill() }
            try await daemon.start(watcher: watcher)
            let client = try await Client(bus)
            try await client.setUp(passcode: Self.passcode)
            let rights = RightsProxy(client.connection)
            #expect(try await rights.keyProtection() == "tpm2", "\(daemon.logText)")
            _ = try await rights.saveRight("vault-door", requirement: "passcode", secret: Self.secret)
            #expect(FileManager.default.fileExists(atPath: state + "/sealing/tpm-wrapping-key.pub"))
            #expect(!FileManager.default.fileExists(atPath: state + "/sealing/wrapping-key"), "no key in a file")

            // A restart: the wrapping key is unsealed again by the same TPM and opens the secret.
            daemon.kill()
            try await daemon.start(watcher: watcher)
            let context = client.contextProxy(try await client.createContext())
            #expect(await Self.authorize(client, context, "vault-door") == nil)
            #expect(try await context.loadSecret("vault-door") == Self.secret)
        }

        // The same state with another machine's TPM: no vault, and no silent fall back to a file.
        try await Swtpm.with { other in
            let daemon = try DaemonUnderTest(bus: bus, stateDirectory: state, configuration: Self.configuration("auto", other))
            defer { daemon.kill() }
            try await daemon.start(watcher: watcher)
            let client = try await Client(bus)
            let rights = RightsProxy(client.connection)
            #expect(try await rights.keyProtection() == "", "no vault")
            #expect(await errorName { _ = try await rights.saveRight("another", requirement: "passcode") } == DBusError.Name.failed.rawValue)
            let context = client.contextProxy(try await client.createContext())
            #expect(await errorName { _ = try await context.loadSecret("vault-door") } != nil)
            #expect(daemon.logText.contains("sealed by another TPM"), "\(daemon.logText)")
            #expect(!FileManager.default.fileExists(atPath: state + "/sealing/wrapping-key"))
        }
    }

    /// AuthorizeRight on `context`, answered with the passcode once the daemon prompts for it; the
    /// D-Bus error name it ended with, nil on success.
    static func authorize(_ client: Client, _ context: ContextProxy, _ identifier: String) async -> String? {
        do {
            let prompted = Inbox<String>()
            let subscription = try await client.connection.subscribe(
                DBusMatchRule(path: context.path, interface: LocalAuthBusNames.contextInterface, member: "Prompt")) { signal in
                prompted.put(signal.arguments.first?.string ?? "")
            }
            defer { client.connection.unsubscribe(subscription) }
            let task = Task { await errorName { try await context.authorizeRight(identifier, reason: "test", timeout: .seconds(60)) } }
            while try await prompted.next(within: .seconds(60)) != "passcode" {}
            try await context.submitPasscode(.string(Self.passcode))
            return await task.value
        } catch {
            return "\(error)"
        }
    }
}
