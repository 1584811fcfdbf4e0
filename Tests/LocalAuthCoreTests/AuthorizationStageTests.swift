// SPDX-License-Identifier: Apache-2.0
import LocalAuthCore
import LocalAuthTestSupport
import Synchronization
import Testing

/// Privileged operations pass one stage, ``PolicyEngine/authorize(_:caller:)``: root without
/// asking, anyone else as the ``Authorizer`` answers, nobody else without one; a refusal changes
/// nothing. And every change of a user's state is announced for that user only.
@Suite("Authorization stage and user-state announcements")
struct AuthorizationStageTests {
    typealias H = EngineHarness

    /// Grants `granted` to `uid`, refuses the rest, and records every question.
    final class FakeAuthorizer: Authorizer {
        let uid: UInt32
        let granted: Set<PrivilegedAction>
        let asked = Mutex<[(UInt32, PrivilegedAction)]>([])
        init(uid: UInt32, granted: Set<PrivilegedAction>) {
            self.uid = uid
            self.granted = granted
        }
        func authorize(_ action: PrivilegedAction, caller: Caller) async throws(LocalAuthError) {
            asked.withLock { $0.append((caller.uid, action)) }
            guard caller.uid == uid, granted.contains(action) else { throw LocalAuthError(.accessDenied, "fake: no") }
        }
    }

    @Test func theAuthorizerDecidesForEveryoneButRoot() async throws {
        let authorizer = FakeAuthorizer(uid: H.alice.uid, granted: [.resetLockout, .actForOtherUsers])
        let h = try EngineHarness(authorizer: authorizer)
        try await h.setUp(H.bob)
        _ = try? await h.engine.setPasscode(current: Passcode("wrong-guess"), new: Passcode("new-secret"), caller: H.bob)
        #expect(await h.engine.userState(of: H.bob.uid).passcodeFailures == 1)

        do { try await h.engine.resetLockout(user: H.bob.uid, caller: H.bob); Issue.record("bob reset") } catch {
            #expect(error.kind == .accessDenied && error.message == "fake: no")
        }
        #expect(await h.engine.userState(of: H.bob.uid).passcodeFailures == 1, "a refused reset changed nothing")
        try await h.engine.resetLockout(user: H.bob.uid, caller: H.alice)
        #expect(await h.engine.userState(of: H.bob.uid).passcodeFailures == 0)
        _ = try await h.context(H.alice) { $0.user = H.bob.uid }
        await #expect(throws: LocalAuthError.self) { _ = try await h.context(H.bob) { $0.isUnlockContext = true } }

        let before = authorizer.asked.withLock { $0.count }
        try await h.engine.resetLockout(user: H.bob.uid, caller: H.root)
        _ = try await h.context(H.root) { $0.user = H.bob.uid }
        #expect(authorizer.asked.withLock { $0.count } == before, "root is never asked about")
    }

    @Test func withoutAnAuthorizerOnlyRoot() async throws {
        let h = try EngineHarness()
        do { try await h.engine.resetLockout(user: H.alice.uid, caller: H.alice); Issue.record("allowed") } catch {
            #expect(error.kind == .accessDenied && error.message == "Only root may reset lockouts.")
        }
        try await h.engine.resetLockout(user: H.alice.uid, caller: H.root)
    }

    @Test func everyStateChangeIsAnnouncedForItsUserOnly() async throws {
        let h = try EngineHarness()
        try await h.setUp(H.alice, fingers: ["right-index-finger"])
        _ = try? await h.engine.setPasscode(current: Passcode("wrong-guess"), new: Passcode("new-secret"), caller: H.alice)
        let announced = h.observer.userStates
        #expect(!announced.isEmpty && announced.allSatisfy { $0.uid == H.alice.uid }, "\(announced.map(\.uid))")
        #expect(announced.contains { $0.state.passcodeSet && $0.state.enrollments.count == 1 })
        #expect(announced.last?.state == (await h.engine.userState(of: H.alice.uid)), "the last announcement is the state now")
        #expect(announced.last?.state.passcodeFailures == 1)
        _ = await h.engine.userState(of: H.bob.uid)
        #expect(h.observer.userStates.count == announced.count, "loading another user's record announces nothing")
    }
}
