// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthAPI
import LocalAuthDBus
import LocalAuthProxies
import LocalAuthTestSupport
import Testing

/// A right's secret and a decrypted plaintext leave no copy in the daemon's memory once their
/// calls are answered: read from the messages as secret byte arrays (zeroed there), kept in wiped
/// buffers, replied as secrets. (A third secret sent right after these two, the login password,
/// sometimes kept one copy under load: the receive-buffer scrub of LocalAuthDBus is best effort,
/// and a call read in one chunk with a preceding scrub signal can sit past its reach.)
@Suite("Rights' secrets in daemon memory", .timeLimit(.minutes(3)))
struct RightsMemoryTests {
    @Test(.enabled(if: getuid() == 0, "reading another process's memory needs root"))
    func secretsAndPlaintextsAreGoneFromDaemonMemoryAfterTheCalls() async throws {
        let secret = MaskedSecret(prefix: "sec-"), plaintext = MaskedSecret(prefix: "pla-")
        try await withDaemon(configuration: RightsTests.configuration) { _, bus in
            let client = try await Client(bus)
            try await client.setUp(fingers: ["left-thumb"])
            let rights = client.rightsProxy
            let secretValue = secret.withPlainBytes { DBusValue.secretBytes(DBusSecret(copying: $0)) }
            let plaintextValue = plaintext.withPlainBytes { DBusValue.secretBytes(DBusSecret(copying: $0)) }
            let saved = try await rights.proxy.call("SaveRight", [.string("kept"), .string("biometry"), secretValue, .vardict([:])])
            let publicKey = try #require(saved.first?.vardict?["PublicKey"]?.bytes)
            let ciphertext = try await rights.proxy.call("Encrypt", [.bytes(publicKey), .string(RightKeyAlgorithmName.eciesStandard), plaintextValue])

            let context = client.contextProxy(try await client.createContext())
            #expect(await client.authorize(context, "kept") { try await client.simulator("Touch", [.string("left-thumb")]) } == nil)
            var loaded = try await context.loadSecret("kept")
            #expect(loaded.count == secret.count)
            loaded.withUnsafeMutableBytes { explicit_bzero($0.baseAddress!, $0.count) }
            var decrypted = try await context.decrypt("kept", algorithm: RightKeyAlgorithmName.eciesStandard, ciphertext: try #require(ciphertext.first?.bytes))
            #expect(decrypted.count == plaintext.count)
            decrypted.withUnsafeMutableBytes { explicit_bzero($0.baseAddress!, $0.count) }
            // Each client's requests run in order: once this is answered, the calls above are done.
            _ = try await client.userState()
            let pid = try #require(try await client.connection.credentials(of: LocalAuthBusNames.busName).pid)

            let copies = try MemoryScan.copies(of: [secret, plaintext], in: Int32(pid))
            for (name, hits) in zip(["right's secret", "decrypted plaintext"], copies) {
                #expect(hits.isEmpty, "the daemon's memory holds \(hits.count) copies of the \(name): \(hits)")
            }
        }
    }
}
