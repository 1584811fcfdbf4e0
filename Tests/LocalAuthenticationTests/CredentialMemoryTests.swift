// SPDX-License-Identifier: Apache-2.0
import Foundation
@_spi(Testing) import LocalAuthentication
import LocalAuthDBus
import LocalAuthTestSupport
import Testing

/// Issue 10, finding 8, client side: a credential handed to `LAContext` as `Data` leaves no copy in
/// the app's memory once the context has used and dropped it (no `String`, message copy wiped).
@Suite("Credential memory", .timeLimit(.minutes(2)))
struct CredentialMemoryTests {
    @Test func aCredentialLeavesNoCopyInTheAppsMemoryAfterItWasSubmitted() async throws {
        let passcode = MaskedSecret(prefix: "app-")
        try await withDaemon { _, bus in
            let admin = try await Client(bus)
            _ = try await admin.manager("SetPasscode", [.string(""), passcode.withPlainBytes { .secret(DBusSecret(copying: $0)) }])
            let context = LAContext(busAddress: bus.address)
            var credential = passcode.plainData()
            #expect(context.setCredential(credential, type: .applicationPassword))
            #expect(try MemoryScan.copies(of: [passcode], in: getpid())[0].count >= 1, "the scan sees the test's own copy")
            wipe(&credential)
            #expect(try await context.evaluatePolicy(.deviceOwnerAuthentication, localizedReason: "scan the memory"))
            // The context performs requests in order: once this check is answered, the submission is done.
            #expect(check(context, .deviceOwnerAuthentication) == nil)
            #expect(context.setCredential(nil, type: .applicationPassword))

            let hits = try MemoryScan.copies(of: [passcode], in: getpid())[0]
            #expect(hits.isEmpty, "the app's memory holds \(hits.count) copies of the credential: \(hits)")
        }
    }
}
