// SPDX-License-Identifier: Apache-2.0
import LocalAuthCore
import LocalAuthSystem
import LocalAuthTestSupport
import Testing

/// Ledger files that parse but hold absurd values: the engine over the real store fails closed
/// instead of crashing or granting free guesses.
@Suite("Absurd ledger files", .timeLimit(.minutes(1)))
final class LedgerFileValidationTests {
    typealias Daemon = DiskPersistenceTests.Daemon
    static let alice = DiskPersistenceTests.alice

    let temporary: TemporaryDirectory
    var state: String { "\(temporary.path)/state" }
    let clock = FakeClock()

    init() throws { temporary = try TemporaryDirectory() }
    deinit { temporary.remove() }

    @Test(arguments: [
        #"{"biometryFailures":0,"biometryLockedOut":false,"passcodeFailures":5,"passcodeLockedOut":false,"passcodeRetryAfter":1e30}"#,
        #"{"biometryFailures":0,"biometryLockedOut":false,"passcodeFailures":9223372036854775807,"passcodeLockedOut":false}"#,
        #"{"biometryFailures":0,"biometryLockedOut":false,"passcodeFailures":-100,"passcodeLockedOut":false}"#,
    ])
    func anAbsurdLedgerFileFailsClosed(_ json: String) async throws {
        let setup = try Daemon(state: state, clock: clock)
        try await setup.engine.setPasscode(current: Passcode(""), new: Passcode(DiskPersistenceTests.passcode), caller: Self.alice)
        try writeFile("\(state)/users/1000/ledger.json", Array(json.utf8))

        let daemon = try Daemon(state: state, clock: clock)
        for _ in 0..<2 {
            do {
                try await daemon.engine.setRequireAttention(false, passcode: Passcode(DiskPersistenceTests.passcode), caller: Self.alice)
                Issue.record("the passcode was checked against \(json)")
            } catch {
                #expect(error.code == .passcodeLockout, "\(error)")
            }
        }
        #expect(daemon.audit.all.contains { $0.event == .stateError && $0.user == Self.alice.uid })
        #expect(await daemon.engine.userState(of: Self.alice.uid).passcodeLockedOut)
    }
}
