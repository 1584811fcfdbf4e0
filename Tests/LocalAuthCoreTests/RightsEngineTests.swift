// SPDX-License-Identifier: Apache-2.0
import LocalAuthCore
import LocalAuthTestSupport
import Testing

/// Saved rights in the engine: save, get, list, remove; who sees which right; authorization in a
/// context and the operations it allows; what ends it.
@Suite("Rights: saving, authorizing, using", .timeLimit(.minutes(1)))
struct RightsEngineTests {
    typealias H = EngineHarness

    @Test func aSavedRightIsReadListedAndRemoved() async throws {
        let h = try await Rights.harness()
        let saved = try await Rights.save(h, requirement: "biometry or passcode")
        #expect(saved.identifier == "notes-key" && saved.application == Rights.app && saved.requirement == "biometry or passcode")
        #expect(saved.hasSecret && saved.publicKey.count == 65 && !saved.invalidated)
        #expect(try await h.engine.right("notes-key", app: Rights.app, caller: H.alice) == saved)
        try await Rights.save(h, "a-second", secret: nil)
        let listed = try await h.engine.rights(app: Rights.app, allApplications: false, caller: H.alice)
        #expect(listed.map(\.identifier) == ["a-second", "notes-key"])
        #expect(h.rightStore.stored(user: H.alice.uid).count == 2, "saved durably")
        try await h.engine.removeRight("notes-key", app: Rights.app, caller: H.alice)
        await Rights.expect(.rightNotFound) { try await h.engine.right("notes-key", app: Rights.app, caller: H.alice) }
        #expect(h.rightStore.stored(user: H.alice.uid).map(\.identifier) == ["a-second"])
        try await h.engine.removeAllRights(app: Rights.app, caller: H.alice)
        #expect(try await h.engine.rights(app: Rights.app, allApplications: false, caller: H.alice).isEmpty)
        let audited = h.audit.all.filter { $0.event == .right }.map(\.message)
        #expect(audited.contains { $0.contains("saved") } && audited.contains { $0.contains("removed") })
        #expect(!audited.contains { $0.contains("s3cret") })
    }

    @Test func anotherAppOrUserFindsNothing() async throws {
        let h = try await Rights.harness()
        try await h.setUp(H.bob)
        try await Rights.save(h)
        await Rights.expect(.rightNotFound) { try await h.engine.right("notes-key", app: Rights.otherApp, caller: H.alice) }
        await Rights.expect(.rightNotFound) { try await h.engine.right("notes-key", app: Rights.app, caller: H.bob) }
        await Rights.expect(.rightNotFound) { try await h.engine.removeRight("notes-key", app: Rights.otherApp, caller: H.alice) }
        let other = try await Rights.context(h, H.alice, app: Rights.otherApp)
        #expect(await Rights.authorize(h, on: other).errorKind == .rightNotFound)
        let bobs = try await Rights.context(h, H.bob)
        #expect(await Rights.authorize(h, on: bobs, by: H.bob).errorKind == .rightNotFound)
        #expect(try await h.engine.rights(app: Rights.otherApp, allApplications: false, caller: H.alice).isEmpty)
        #expect(try await h.engine.rights(app: nil, allApplications: true, caller: H.alice).map(\.application) == [Rights.app])
    }

    @Test func anUnidentifiedCallerHasNoRights() async throws {
        let h = try await Rights.harness()
        await Rights.expect(.accessDenied) { try await Rights.save(h, app: nil) }
        await Rights.expect(.accessDenied) { try await Rights.save(h, app: RightRecord.loginKeyringApplication) }
        let context = try await Rights.context(h, app: nil)
        #expect(await Rights.authorize(h, on: context).errorKind == .accessDenied)
    }

    @Test func savingNeedsThePasscodeAndBiometryTermsNeedAnEnrollment() async throws {
        let h = try EngineHarness()
        await Rights.expect(.authentication(.passcodeNotSet)) { try await Rights.save(h) }
        try await h.setUp()
        await Rights.expect(.authentication(.biometryNotEnrolled)) { try await Rights.save(h, requirement: "biometry") }
        await Rights.expect(.authentication(.biometryNotEnrolled)) { try await Rights.save(h, requirement: "biometry-current-set or passcode") }
        #expect(try await Rights.save(h, requirement: "default").requirement == "default")
        #expect(try await Rights.save(h, requirement: "passcode").requirement == "passcode")
    }

    @Test(arguments: ["", String(repeating: "x", count: 129), "tab\there", "bidi\u{202E}"])
    func aBadIdentifierChangesNothing(identifier: String) async throws {
        let h = try await Rights.harness()
        await Rights.expect(.invalidArgument) { try await Rights.save(h, identifier) }
        #expect(h.rightStore.saves == 0)
    }

    @Test func aBadRequirementOrATooLargeSecretChangesNothing() async throws {
        let h = try await Rights.harness()
        await Rights.expect(.invalidArgument) { try await Rights.save(h, requirement: "face") }
        await Rights.expect(.invalidArgument) { try await Rights.save(h, requirement: "biometry or passcode and default") }
        let big = String(repeating: "s", count: UserRights.maximumSecretLength + 1)
        await Rights.expect(.invalidArgument) { try await Rights.save(h, secret: big) }
        #expect(h.rightStore.saves == 0)
        #expect(try await h.engine.rights(app: Rights.app, allApplications: false, caller: H.alice).isEmpty)
    }

    @Test func aTouchAuthorizesAndOnlyThenTheSecretAndKeyMayBeUsed() async throws {
        let h = try await Rights.harness()
        let info = try await Rights.save(h, requirement: "biometry")
        let context = try await Rights.context(h)
        await Rights.expect(.rightNotAuthorized) { try await h.engine.loadSecret("notes-key", context: context, caller: H.alice.client) }
        let run = await Rights.authorize(h, on: context)
        #expect(try await h.state(of: context) == .biometry)
        try await h.fingerprint.touch("right-index-finger")
        try await run.result.get()

        #expect(Rights.text(try await h.engine.loadSecret("notes-key", context: context, caller: H.alice.client)) == "s3cret")
        let data = Array("the message".utf8)
        let message = RightKeyAlgorithm.ecdsaSignatureMessageX962SHA256.rawValue
        let signature = try await h.engine.sign("notes-key", algorithm: message, data: data, context: context, caller: H.alice.client)
        #expect(try await h.engine.verify(data, signature: signature, algorithm: message, publicKey: info.publicKey, caller: H.alice))
        #expect(try await !h.engine.verify(Array("another".utf8), signature: signature, algorithm: message, publicKey: info.publicKey, caller: H.alice))
        let ecies = RightKeyAlgorithm.eciesEncryptionStandardVariableIVX963SHA256AESGCM.rawValue
        let ciphertext = try await h.engine.encrypt(Array("for the key".utf8), algorithm: ecies, publicKey: info.publicKey, caller: H.bob)
        #expect(Rights.text(try await h.engine.decrypt("notes-key", algorithm: ecies, ciphertext: ciphertext, context: context, caller: H.alice.client)) == "for the key")
        await Rights.expect(.invalidArgument) {
            try await h.engine.sign("notes-key", algorithm: ecies, data: data, context: context, caller: H.alice.client)
        }
        await Rights.expect(.invalidArgument) {
            try await h.engine.sign("notes-key", algorithm: "algid:sign:RSA", data: data, context: context, caller: H.alice.client)
        }

        try await h.engine.deauthorizeRight("notes-key", context: context, caller: H.alice.client)
        await Rights.expect(.rightNotAuthorized) { try await h.engine.loadSecret("notes-key", context: context, caller: H.alice.client) }
        try await h.engine.deauthorizeRight("notes-key", context: context, caller: H.alice.client)
        let other = try await Rights.context(h)
        await Rights.expect(.rightNotAuthorized) { try await h.engine.sign("notes-key", algorithm: message, data: data, context: other, caller: H.alice.client) }
        let audited = h.audit.all.filter { $0.event == .right }.map(\.result)
        #expect(audited.contains("authorized") && audited.contains("used") && audited.contains("deauthorized"))
    }

    @Test func aRightSavedWithoutSecretHasNoneToLoad() async throws {
        let h = try await Rights.harness()
        try await Rights.save(h, requirement: "passcode", secret: nil)
        let context = try await Rights.context(h)
        try await Rights.authorizeWithPasscode(h, on: context)
        let error = await #expect(throws: LocalAuthError.self) { try await h.engine.loadSecret("notes-key", context: context, caller: H.alice.client) }
        #expect(error?.kind == .invalidArgument && error?.message.contains("without a secret") == true)
    }

    @Test func aFailedEvaluationLeavesItUnauthorized() async throws {
        let h = try await Rights.harness()
        try await Rights.save(h, requirement: "biometry")
        let context = try await Rights.context(h)
        let run = await Rights.authorize(h, on: context)
        try await h.engine.cancel(context: context, caller: H.alice.client)
        #expect(await run.errorKind == .authentication(.userCancel))
        await Rights.expect(.rightNotAuthorized) { try await h.engine.loadSecret("notes-key", context: context, caller: H.alice.client) }
    }

    @Test func replacingOrRemovingTheRightEndsItsAuthorization() async throws {
        let h = try await Rights.harness()
        try await Rights.save(h, requirement: "passcode")
        let context = try await Rights.context(h)
        try await Rights.authorizeWithPasscode(h, on: context)
        #expect(Rights.text(try await h.engine.loadSecret("notes-key", context: context, caller: H.alice.client)) == "s3cret")

        let replaced = try await Rights.save(h, requirement: "passcode", secret: "new")
        await Rights.expect(.rightNotAuthorized) { try await h.engine.loadSecret("notes-key", context: context, caller: H.alice.client) }
        #expect(replaced.hasSecret)
        try await Rights.authorizeWithPasscode(h, on: context)
        #expect(Rights.text(try await h.engine.loadSecret("notes-key", context: context, caller: H.alice.client)) == "new")

        try await h.engine.removeRight("notes-key", app: Rights.app, caller: H.alice)
        await Rights.expect(.rightNotFound) { try await h.engine.loadSecret("notes-key", context: context, caller: H.alice.client) }
        try await Rights.save(h, requirement: "passcode")
        await Rights.expect(.rightNotAuthorized) { try await h.engine.loadSecret("notes-key", context: context, caller: H.alice.client) }
    }

    @Test func invalidatingTheContextOrItsOwnerLeavingEndsIt() async throws {
        let h = try await Rights.harness()
        try await Rights.save(h, requirement: "passcode")
        let context = try await Rights.context(h)
        try await Rights.authorizeWithPasscode(h, on: context)
        try await h.engine.invalidate(context: context, caller: H.alice.client)
        await Rights.expect(.authentication(.invalidContext)) { try await h.engine.loadSecret("notes-key", context: context, caller: H.alice.client) }

        let second = try await Rights.context(h)
        let running = await Rights.authorize(h, on: second)
        await h.engine.clientDisconnected(H.alice.client)
        #expect(await running.errorKind == .authentication(.systemCancel))
        await Rights.expect(.unknownContext) { try await h.engine.loadSecret("notes-key", context: second, caller: H.alice.client) }
    }

    @Test func theOperationsAreLimitedPerUser() async throws {
        let h = try await Rights.harness()
        let info = try await Rights.save(h)
        let data = Array("x".utf8)
        let verify = RightKeyAlgorithm.ecdsaSignatureMessageX962SHA256.rawValue
        for _ in 0..<100 {
            _ = try await h.engine.verify(data, signature: [], algorithm: verify, publicKey: info.publicKey, caller: H.alice)
        }
        let error = await #expect(throws: LocalAuthError.self) {
            try await h.engine.verify(data, signature: [], algorithm: verify, publicKey: info.publicKey, caller: H.alice)
        }
        #expect(error?.kind == .limitsExceeded && error?.message.contains("try again in 1 s") == true)
        _ = try await h.engine.verify(data, signature: [], algorithm: verify, publicKey: info.publicKey, caller: H.bob)
        h.clock.advance(by: 1)
        for _ in 0..<10 {
            _ = try await h.engine.verify(data, signature: [], algorithm: verify, publicKey: info.publicKey, caller: H.alice)
        }
        await Rights.expect(.limitsExceeded) {
            try await h.engine.verify(data, signature: [], algorithm: verify, publicKey: info.publicKey, caller: H.alice)
        }
        await Rights.expect(.invalidArgument) {
            try await h.engine.encrypt([UInt8](repeating: 0, count: UserRights.maximumDataLength + 1), algorithm: RightKeyAlgorithm.eciesEncryptionStandardVariableIVX963SHA256AESGCM.rawValue,
                                       publicKey: info.publicKey, caller: H.bob)
        }
    }

    @Test func savesAreLimitedPerMinuteAndRightsPerApplication() async throws {
        let h = try await Rights.harness()
        for index in 0..<30 { try await Rights.save(h, "right-\(index)", secret: nil) }
        let error = await #expect(throws: LocalAuthError.self) { try await Rights.save(h, "right-30", secret: nil) }
        #expect(error?.kind == .limitsExceeded && error?.message.contains("try again in 60 s") == true)
        h.clock.advance(by: 59)
        await Rights.expect(.limitsExceeded) { try await Rights.save(h, "right-30", secret: nil) }
        h.clock.advance(by: 1)
        for index in 30..<60 { try await Rights.save(h, "right-\(index)", secret: nil) }
        h.clock.advance(by: 60)
        for index in 60..<64 { try await Rights.save(h, "right-\(index)", secret: nil) }
        h.clock.advance(by: 60)
        let full = await #expect(throws: LocalAuthError.self) { try await Rights.save(h, "right-64", secret: nil) }
        #expect(full?.kind == .limitsExceeded && full?.message.contains("64 rights") == true)
        try await Rights.save(h, "right-63", secret: "replacing is no new right")
        try await Rights.save(h, "right-0", app: Rights.otherApp)
    }

    @Test func aUserHoldsAtMost1024RightsAcrossApplications() async throws {
        let h = try await Rights.harness()
        for index in 0..<UserRights.maximumPerUser {
            if index > 0, index % RightChangeLimiter.maximumPerMinute == 0 { h.clock.advance(by: 60) }
            try await Rights.save(h, "right-\(index % 64)", secret: nil, app: "/usr/bin/app-\(index / 64)")
        }
        h.clock.advance(by: 60)
        let error = await #expect(throws: LocalAuthError.self) { try await Rights.save(h, "one-more", secret: nil, app: "/usr/bin/app-new") }
        #expect(error?.kind == .limitsExceeded && error?.message.contains("1024 rights") == true)
        #expect(h.rightStore.stored(user: H.alice.uid).count == 1024)
    }
}
