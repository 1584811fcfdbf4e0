// SPDX-License-Identifier: Apache-2.0
import Foundation
@_spi(Testing) import LocalAuthentication
import LocalAuthDBus
import LocalAuthTestSupport
import Testing

/// iOS code that must behave as on iOS (issue 16): error bridging, the members Apple declares, a
/// context that already succeeded, the sheet's buttons, and subclass mocks; against the real daemon.
@Suite("Apple compatibility", .timeLimit(.minutes(2)))
struct AppleCompatibilityTests {
    let biometrics = LAPolicy.deviceOwnerAuthenticationWithBiometrics

    // MARK: Error bridging

    @Test func theErrorOfCanEvaluatePolicyCastsToLAError() async throws {
        try await withDaemon { _, bus in
            let context = LAContext(busAddress: bus.address)
            var error: NSError?
            #expect(!context.canEvaluatePolicy(.deviceOwnerAuthentication, error: &error))
            let nsError = try #require(error)
            #expect(nsError.domain == LAErrorDomain && nsError.code == -5)
            #expect((nsError as Error as? LAError)?.code == .passcodeNotSet)
            #expect((error as Error? as? LAError)?.code == .passcodeNotSet, "an optional NSError, as the seeds pass it")
            #expect((nsError as? LAError)?.localizedDescription == nsError.localizedDescription, "the daemon's message survives")
        }
    }

    @Test func anNSErrorOfTheDomainCastsToLAErrorAndOthersDoNot() {
        let made: Error = NSError(domain: LAErrorDomain, code: -5)
        #expect((made as? LAError)?.code == .passcodeNotSet)
        #expect((NSError(domain: LAErrorDomain, code: -2) as? LAError)?.code == .userCancel)
        do { throw NSError(domain: LAErrorDomain, code: -2) } catch LAError.userCancel {} catch { Issue.record("catch LAError.userCancel missed \(error)") }
        do { throw NSError(domain: LAErrorDomain, code: -8) } catch let error as LAError {
            #expect(error.code == .biometryLockout)
        } catch { Issue.record("catch let error as LAError missed \(error)") }
        #expect((NSError(domain: NSCocoaErrorDomain, code: -5) as Error as? LAError) == nil, "another domain")
        #expect((NSError(domain: LAErrorDomain, code: 12345) as Error as? LAError) == nil, "a code LAError does not have")
    }

    @Test func anLAErrorThroughNSErrorCastsBack() {
        let original = LAError(.biometryLockout, userInfo: [NSLocalizedDescriptionKey: "Locked."])
        let nsError = original as NSError
        #expect(nsError.domain == LAErrorDomain && nsError.code == -8 && nsError.localizedDescription == "Locked.")
        let back = nsError as Error as? LAError
        #expect(back == original)
        let untyped: Error = LAError(.userFallback) as NSError
        #expect((untyped as? LAError)?.code == .userFallback)
    }

    @Test func theSeedManagerSaysAPasscodeIsRequiredWhenNoneIsSet() async throws {
        try await withDaemon { _, bus in
            let (status, output) = try await runTool(example, [], environment: ["LOCALAUTH_BUS_ADDRESS": bus.address], timeout: .seconds(20))
            #expect(status == 1)
            #expect(output.contains("available: false (Set a device passcode to use this feature.)"), "\(output)")
            #expect(output.contains("callback: failed [-5]: Set a device passcode to use this feature."), "\(output)")
            #expect(output.contains("async: failed [-5]: Set a device passcode to use this feature."), "\(output)")
        }
    }

    // MARK: Members Apple declares

    @Test @available(*, deprecated) func deprecatedAndNewerMembersBuildWithApplesValues() async throws {
        #expect(kLAErrorDomain == "com.apple.LocalAuthentication" && kLAErrorDomain == LAErrorDomain)
        #expect(LABiometryType.LABiometryNone == .none)
        let context = LAContext(busAddress: "unix:path=/nonexistent/bus")
        #expect(context.maxBiometryFailures == nil)
        context.maxBiometryFailures = 3
        #expect(context.maxBiometryFailures == 3, "stored as Apple's property is, with no effect")
        let object: NSObject = context
        #expect(object is LAContext)
        #expect(context.domainState.biometry.biometryType == .none && context.domainState.stateHash == nil)
        #expect(context.domainState.companion.availableCompanionTypes.isEmpty && context.domainState.companion.stateHash == nil)
        #expect(context.domainState.companion.stateHash(for: .watch) == nil)
        #expect([LACompanionType.watch, .mac, .vision].map(\.rawValue) == [1, 2, 4])
    }

    @Test func domainStateFollowsTheEnrollments() async throws {
        try await withDaemon { _, bus in
            let admin = try await Client(bus)
            try await admin.setUp(fingers: ["right-index-finger"])
            let context = LAContext(busAddress: bus.address)
            #expect(check(context, biometrics) == nil)
            let state = context.domainState
            #expect(state.biometry.biometryType == .faceID)
            let hash = try #require(state.biometry.stateHash)
            #expect(hash == context.evaluatedPolicyDomainState && state.stateHash == hash)
            #expect(state.companion.availableCompanionTypes.isEmpty && state.companion.stateHash == nil)
            _ = try await admin.manager("Enroll", [.string("fingerprint"), .string("left-thumb"), .string("4711-secret")])
            #expect(check(context, biometrics) == nil)
            #expect(context.domainState.biometry.stateHash != hash, "enrolling changes the hash")
        }
    }

    // MARK: A context that succeeded

    @Test func aContextThatSucceededSucceedsAgainAndAFreshOneAsks() async throws {
        try await withDaemon { _, bus in
            let admin = try await Client(bus)
            try await admin.setUp(fingers: ["right-index-finger"])
            let context = LAContext(busAddress: bus.address)
            try await admin.simulator("Touch", [.string("right-index-finger")])
            #expect(try await context.evaluatePolicy(biometrics, localizedReason: "log in"))

            let prompts = promptsOf(context)
            #expect(try await evaluate(context, biometrics).next(within: .seconds(5)) == nil, "no new touch needed")
            #expect(try await evaluate(context, .deviceOwnerAuthentication).next(within: .seconds(5)) == nil, "biometry satisfies policy 2 too")
            #expect(prompts.received.isEmpty, "nothing was shown")

            let fresh = LAContext(busAddress: bus.address)
            let freshPrompts = promptsOf(fresh)
            let outcome = evaluate(fresh, biometrics)
            #expect(try await freshPrompts.next().kind == .biometry, "a new context asks again")
            try await admin.simulator("Touch", [.string("right-index-finger")])
            #expect(try await outcome.next(within: .seconds(10)) == nil)

            context.invalidate()
            #expect(try await evaluate(context, biometrics).next(within: .seconds(5)) == .invalidContext)
        }
    }

    // MARK: The sheet's buttons

    @Test func theSimulatorPressesTheSheetsCancelAndFallbackButtons() async throws {
        try await withDaemon { _, bus in
            let admin = try await Client(bus)
            try await admin.setUp(fingers: ["right-index-finger"])
            #expect(await errorName { try await admin.simulator("PressCancel") } == "org.localauth.LocalAuthentication1.Error.NotEvaluating")

            for (button, code) in [("PressCancel", LAError.Code.userCancel), ("PressFallback", .userFallback)] {
                let context = LAContext(busAddress: bus.address)
                let prompts = promptsOf(context)
                let outcome = evaluate(context, biometrics)
                #expect(try await prompts.next().kind == .biometry)
                try await admin.simulator(button)
                #expect(try await outcome.next(within: .seconds(10)) == code, "\(button)")
            }

            let passcode = LAContext(busAddress: bus.address)
            let prompts = promptsOf(passcode)
            let outcome = evaluate(passcode, .deviceOwnerAuthentication)
            #expect(try await prompts.next().kind == .biometry)
            try await admin.simulator("PressFallback")
            #expect(try await prompts.next().kind == .passcode, "policy 2's fallback asks for the passcode")
            try await admin.simulator("PressCancel")
            #expect(try await outcome.next(within: .seconds(10)) == .userCancel)

            let hidden = LAContext(busAddress: bus.address)
            hidden.localizedFallbackTitle = ""
            let hiddenPrompts = promptsOf(hidden)
            let hiddenOutcome = evaluate(hidden, biometrics)
            #expect(try await hiddenPrompts.next().kind == .biometry)
            #expect(await errorName { try await admin.simulator("PressFallback") } == "org.freedesktop.DBus.Error.NotSupported")
            hidden.invalidate()
            #expect(try await hiddenOutcome.next(within: .seconds(10)) == .appCancel)
        }
    }

    // MARK: Subclass mocks

    @Test func aSubclassMocksEvaluationForBothCallForms() async throws {
        try await withDaemon { _, bus in
            let mock = LockedOutContext(busAddress: bus.address)
            let context: LAContext = mock
            var error: NSError?
            #expect(!context.canEvaluatePolicy(biometrics, error: &error))
            #expect((error as Error? as? LAError)?.code == .biometryLockout)
            #expect(try await evaluate(context, biometrics).next(within: .seconds(5)) == .biometryLockout)
            do {
                _ = try await context.evaluatePolicy(biometrics, localizedReason: "async")
                Issue.record("the mock's reply was not used by the async form")
            } catch let error as LAError {
                #expect(error.code == .biometryLockout)
            }
            #expect(check(context, .deviceOwnerAuthentication) == -5, "unmocked policies reach the daemon")
        }
    }

    var example: String {
        URL(fileURLWithPath: DaemonUnderTest.binary).deletingLastPathComponent().appendingPathComponent("BiometricAuthManagerExample").path
    }
}

/// A test double in the style of iOS apps' mocks: biometry is locked out, everything else is real.
final class LockedOutContext: LAContext, @unchecked Sendable {
    override func canEvaluatePolicy(_ policy: LAPolicy, error: NSErrorPointer) -> Bool {
        guard policy == .deviceOwnerAuthenticationWithBiometrics else { return super.canEvaluatePolicy(policy, error: error) }
        error?.pointee = LAError(.biometryLockout) as NSError
        return false
    }

    override func evaluatePolicy(_ policy: LAPolicy, localizedReason: String, reply: @escaping @Sendable (Bool, (any Error)?) -> Void) {
        reply(false, LAError(.biometryLockout) as NSError)
    }
}
