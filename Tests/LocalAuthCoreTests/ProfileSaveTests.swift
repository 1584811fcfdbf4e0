// SPDX-License-Identifier: Apache-2.0
import LocalAuthCore
import LocalAuthTestSupport
import Testing

/// A profile or face decision is saved off the engine's executor (in the daemon, the thread that
/// reads the bus), one save per user at a time.
@Suite("Profile saves: elsewhere, one per user at a time", .timeLimit(.minutes(1)))
struct ProfileSaveTests {
    typealias H = EngineHarness

    @Test func theEngineServesOthersWhileAProfileIsSavedAndAUsersChangesLandInOrder() async throws {
        let h = try EngineHarness()
        try await h.setUp()
        try await h.setUp(H.bob)
        h.store.holdProfileSaves()
        let first = Task { try await h.engine.setRequireAttention(false, passcode: Passcode(H.passcode), caller: H.alice) }
        #expect(await eventually { h.store.heldProfileSaves == 1 }, "the first change reached its save")
        let verified = h.hasher.verificationCount

        // The save holds a thread of its own, not the engine: another user's calls are answered.
        let context = try await h.context(H.bob)
        try await h.engine.canEvaluatePolicy(.deviceOwnerAuthentication, context: context, caller: H.bob.client)
        #expect(await h.engine.userState(of: H.alice.uid).requireAttention == true, "nothing applied before it is saved")

        // A second change of the same user waits for the first save before it starts its own.
        let second = Task { try await h.engine.setRequireAttention(true, passcode: Passcode(H.passcode), caller: H.alice) }
        #expect(await eventually { h.hasher.verificationCount > verified }, "the second change checked its passcode")
        #expect(h.store.heldProfileSaves == 1, "the second change did not save alongside the first")

        h.store.releaseProfileSaves()
        try await first.value
        try await second.value
        #expect(await h.engine.userState(of: H.alice.uid).requireAttention == true, "the later change is the one in force")
        #expect(h.store.profile(of: H.alice.uid)?.requireAttention == true, "and the one saved last")
    }
}
