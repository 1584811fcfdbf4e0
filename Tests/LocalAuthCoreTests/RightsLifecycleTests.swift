// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI
@testable import LocalAuthCore
import LocalAuthTestSupport
import Testing

/// Rights across saves that fail, unreadable files, restarts and passcode removal; the stored
/// login password and its release rules.
@Suite("Rights: persistence, passcode removal, login password", .timeLimit(.minutes(1)))
struct RightsLifecycleTests {
    typealias H = EngineHarness

    @Test func aSaveThatCannotBePersistedChangesNothing() async throws {
        let h = try await Rights.harness()
        try await Rights.save(h)
        h.rightStore.setFailSaves(true)
        let error = await #expect(throws: LocalAuthError.self) { try await Rights.save(h, "second") }
        #expect(error?.kind == .serviceFailure && error?.message.contains("nothing was changed") == true)
        await Rights.expect(.serviceFailure) { try await Rights.save(h, requirement: "passcode", secret: "replaced") }
        await Rights.expect(.serviceFailure) { try await h.engine.removeRight("notes-key", app: Rights.app, caller: H.alice) }
        h.rightStore.setFailSaves(false)
        await Rights.expect(.rightNotFound) { try await h.engine.right("second", app: Rights.app, caller: H.alice) }
        #expect(try await h.engine.right("notes-key", app: Rights.app, caller: H.alice).requirement == "default")
        #expect(h.audit.all.contains { $0.event == .stateError && $0.message.contains("Could not save the rights") })
    }

    @Test func anUnreadableFileMakesTheRightsUnavailableNotEmpty() async throws {
        let before = try await Rights.harness()
        before.rightStore.makeUnreadable(user: H.alice.uid)
        let h = try EngineHarness(store: before.store, rightStore: before.rightStore, vault: before.vault)
        await Rights.expect(.serviceFailure) { try await h.engine.rights(app: Rights.app, allApplications: false, caller: H.alice) }
        await Rights.expect(.serviceFailure) { try await Rights.save(h) }
        await Rights.expect(.serviceFailure) { try await h.engine.right("notes-key", app: Rights.app, caller: H.alice) }
        #expect(h.rightStore.saves == 0, "nothing overwrote the file")
        #expect(h.audit.all.filter { $0.event == .stateError && $0.message.contains("Could not read the rights of uid 1000") }.count == 1, "logged once")
    }

    @Test func rightsSurviveARestart() async throws {
        let h = try await Rights.harness()
        let saved = try await Rights.save(h, requirement: "passcode")
        let restarted = try EngineHarness(store: h.store, rightStore: h.rightStore, vault: h.vault)
        #expect(try await restarted.engine.right("notes-key", app: Rights.app, caller: H.alice) == saved)
        let context = try await Rights.context(restarted)
        try await Rights.authorizeWithPasscode(restarted, on: context)
        #expect(Rights.text(try await restarted.engine.loadSecret("notes-key", context: context, caller: H.alice.client)) == "s3cret")
    }

    @Test func aSealedSecretMovedToAnotherRightDoesNotOpen() async throws {
        let h = try await Rights.harness()
        try await Rights.save(h, "one", requirement: "passcode", secret: "first")
        try await Rights.save(h, "two", requirement: "passcode", secret: "second")
        var records = h.rightStore.stored(user: H.alice.uid)
        records[1].sealedSecret = records[0].sealedSecret
        try h.rightStore.saveRights(records, user: H.alice.uid)
        let restarted = try EngineHarness(store: h.store, rightStore: h.rightStore, vault: h.vault)
        let context = try await Rights.context(restarted)
        try await Rights.authorizeWithPasscode(restarted, records[1].identifier, on: context)
        await Rights.expect(.serviceFailure) { try await restarted.engine.loadSecret(records[1].identifier, context: context, caller: H.alice.client) }
    }

    @Test func removingThePasscodeRemovesEveryRightAndTheLoginPassword() async throws {
        let h = try await Rights.harness()
        try await Rights.save(h)
        try await Rights.save(h, app: Rights.otherApp)
        try await h.engine.storeLoginPassword(Passcode("login pw"), caller: H.alice)
        #expect(await h.engine.userState(of: H.alice.uid).loginPasswordStored)
        let context = try await Rights.context(h)
        let run = await Rights.authorize(h, on: context)
        try await h.fingerprint.touch("right-index-finger")
        try await run.result.get()

        try await h.engine.removePasscode(current: Passcode(H.passcode), caller: H.alice)
        #expect(h.rightStore.stored(user: H.alice.uid).isEmpty, "removed durably")
        #expect(try await h.engine.rights(app: nil, allApplications: true, caller: H.alice).isEmpty)
        #expect(await !h.engine.userState(of: H.alice.uid).loginPasswordStored)
        #expect(h.observer.userStates.last { $0.uid == H.alice.uid }?.state.loginPasswordStored == false)
        await Rights.expect(.rightNotFound) { try await h.engine.loadSecret("notes-key", context: context, caller: H.alice.client) }
    }

    @Test func aPasscodeRemovalWhoseRightsCannotBeRemovedKeepsThePasscode() async throws {
        let h = try await Rights.harness()
        try await Rights.save(h)
        h.rightStore.setFailSaves(true)
        await Rights.expect(.serviceFailure) { try await h.engine.removePasscode(current: Passcode(H.passcode), caller: H.alice) }
        #expect(await h.engine.userState(of: H.alice.uid).passcodeSet)
        h.rightStore.setFailSaves(false)
        #expect(try await h.engine.right("notes-key", app: Rights.app, caller: H.alice).hasSecret)
    }

    @Test func aSaveWaitingWhileThePasscodeIsRemovedIsRefused() async throws {
        let h = try await Rights.harness()
        try await Rights.save(h)
        h.rightStore.holdSaves()
        let removal = Task { try await h.engine.removePasscode(current: Passcode(H.passcode), caller: H.alice) }
        #expect(await eventually { h.rightStore.heldSaves == 1 }, "the removal of the rights is being saved")
        let save = Task { () throws(LocalAuthError) in try await Rights.save(h, "late") }
        #expect(await eventually { await h.engine.users.waitingForSaveTurn(of: H.alice.uid) == 1 }, "the save waits for the user's turn")
        h.rightStore.releaseSaves()
        try await removal.value
        let error = await #expect(throws: LocalAuthError.self) { try await save.value }
        #expect(error?.kind == .authentication(.passcodeNotSet))
        #expect(h.rightStore.stored(user: H.alice.uid).isEmpty)
    }

    @Test func resettingTheLockoutLeavesRightsAlone() async throws {
        let h = try await Rights.harness()
        try await Rights.save(h)
        try await h.engine.resetLockout(user: H.alice.uid, caller: H.root)
        #expect(try await h.engine.right("notes-key", app: Rights.app, caller: H.alice).hasSecret)
    }

    @Test func removingAnotherAppsRightTakesThePasscode() async throws {
        let h = try await Rights.harness()
        try await Rights.save(h, app: Rights.otherApp)
        await Rights.expect(.authentication(.authenticationFailed)) {
            try await h.engine.removeApplicationRight("notes-key", application: Rights.otherApp, passcode: Passcode("0000-wrong"), caller: H.alice)
        }
        #expect(await h.engine.userState(of: H.alice.uid).passcodeFailures == 1, "counted")
        try await h.engine.removeApplicationRight("notes-key", application: Rights.otherApp, passcode: Passcode(H.passcode), caller: H.alice)
        await Rights.expect(.rightNotFound) { try await h.engine.right("notes-key", app: Rights.otherApp, caller: H.alice) }
        await Rights.expect(.rightNotFound) {
            try await h.engine.removeApplicationRight("notes-key", application: Rights.otherApp, passcode: Passcode(H.passcode), caller: H.alice)
        }
    }

    // MARK: Login password

    /// Root's PAM-like context for alice whose evaluation of `policy` ended as `finish` makes it.
    func loginContext(_ h: EngineHarness, policy: LAPolicy = .deviceOwnerAuthenticationWithBiometrics,
                      finish: (EngineHarness, ContextID) async throws -> Void = { h, _ in try await h.fingerprint.touch("right-index-finger") }) async throws -> ContextID {
        let context = try await h.context(H.root) { $0.user = H.alice.uid }
        let evaluation = await h.begin(policy, on: context, by: H.root)
        try await finish(h, context)
        _ = try await evaluation.result.get()
        return context
    }

    @Test func theLoginPasswordIsReleasedOnceToRootAfterATouch() async throws {
        let h = try await Rights.harness()
        try await h.engine.storeLoginPassword(Passcode("login pw"), caller: H.alice)
        #expect(await h.engine.userState(of: H.alice.uid).loginPasswordStored)
        let context = try await loginContext(h)
        h.clock.advance(by: 29)
        #expect(Rights.text(try await h.engine.releaseLoginPassword(context: context, caller: H.root.client)) == "login pw")
        await Rights.expect(.rightNotAuthorized) { try await h.engine.releaseLoginPassword(context: context, caller: H.root.client) }
        #expect(h.audit.all.contains { $0.event == .loginPassword && $0.result == "released" && !$0.message.contains("login pw") })
    }

    @Test func notAfterThirtySecondsNorAfterThePasscodeNorToOthers() async throws {
        let h = try await Rights.harness()
        try await h.engine.storeLoginPassword(Passcode("login pw"), caller: H.alice)
        let late = try await loginContext(h)
        h.clock.advance(by: 31)
        await Rights.expect(.rightNotAuthorized) { try await h.engine.releaseLoginPassword(context: late, caller: H.root.client) }

        let typed = try await loginContext(h, policy: .deviceOwnerAuthentication) { h, context in
            try await h.engine.submitPasscode(Passcode(H.passcode), context: context, caller: H.root.client)
        }
        await Rights.expect(.rightNotAuthorized) { try await h.engine.releaseLoginPassword(context: typed, caller: H.root.client) }

        let own = try await h.context()
        let evaluation = await h.begin(.deviceOwnerAuthenticationWithBiometrics, on: own)
        try await h.fingerprint.touch("right-index-finger")
        _ = try await evaluation.result.get()
        await Rights.expect(.accessDenied) { try await h.engine.releaseLoginPassword(context: own, caller: H.alice.client) }

        let rootsOwn = try await h.context(H.root)
        await Rights.expect(.rightNotFound) { try await h.engine.releaseLoginPassword(context: rootsOwn, caller: H.root.client) }
    }

    @Test func anEarlierSuccessIsNoBiometricMatch() async throws {
        let h = try await Rights.harness()
        try await h.engine.storeLoginPassword(Passcode("login pw"), caller: H.alice)
        let context = try await loginContext(h)
        #expect(try await h.begin(.deviceOwnerAuthenticationWithBiometrics, on: context, by: H.root).result.get() == .earlierSuccess)
        await Rights.expect(.rightNotAuthorized) { try await h.engine.releaseLoginPassword(context: context, caller: H.root.client) }
    }

    @Test func aReleasedPasswordThatFailedIsDiscarded() async throws {
        let h = try await Rights.harness()
        try await h.engine.storeLoginPassword(Passcode("old pw"), caller: H.alice)
        let context = try await loginContext(h)
        let other = try await h.context(H.root) { $0.user = H.alice.uid }
        await Rights.expect(.rightNotAuthorized) { try await h.engine.discardLoginPassword(context: context, caller: H.root.client) }
        _ = try await h.engine.releaseLoginPassword(context: context, caller: H.root.client)
        await Rights.expect(.rightNotAuthorized) { try await h.engine.discardLoginPassword(context: other, caller: H.root.client) }
        try await h.engine.discardLoginPassword(context: context, caller: H.root.client)
        #expect(await !h.engine.userState(of: H.alice.uid).loginPasswordStored)
        #expect(h.rightStore.stored(user: H.alice.uid).isEmpty)
        #expect(h.audit.all.contains { $0.event == .right && $0.message.contains("discarded") })
    }

    @Test func storingNeedsAnEnrollmentAndRemovingNeedsAStoredPassword() async throws {
        let h = try await Rights.harness(fingers: [])
        await Rights.expect(.authentication(.biometryNotEnrolled)) { try await h.engine.storeLoginPassword(Passcode("pw"), caller: H.alice) }
        await Rights.expect(.rightNotFound) { try await h.engine.removeLoginPassword(caller: H.alice) }
        await Rights.expect(.invalidArgument) { try await h.engine.storeLoginPassword(Passcode(""), caller: H.alice) }
        try await h.engine.enroll(.fingerprint, label: "right-index-finger", passcode: Passcode(H.passcode), caller: H.alice)
        try await h.engine.storeLoginPassword(Passcode("pw"), caller: H.alice)
        #expect(try await h.engine.rights(app: nil, allApplications: true, caller: H.alice).map(\.application) == [RightRecord.loginKeyringApplication])
        try await h.engine.removeLoginPassword(caller: H.alice)
        #expect(await !h.engine.userState(of: H.alice.uid).loginPasswordStored)
    }
}
