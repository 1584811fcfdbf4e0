// SPDX-License-Identifier: Apache-2.0
import Dispatch
import Foundation
@_spi(Testing) import LocalAuthentication
import LocalAuthAPI
import LocalAuthDBus
import LocalAuthTestSupport
import Testing

/// `LAContext` against the real localauthd on a private bus, driven by simulator input.
@Suite("LAContext against localauthd", .timeLimit(.minutes(2)))
struct LAContextTests {
    typealias D = DaemonUnderTest

    @Test func biometricPolicyChecksThenEvaluatesByTouchWithTheCallbackOnAPrivateQueue() async throws {
        try await withDaemon { _, bus in
            let admin = try await Client(bus)
            try await admin.setUp(fingers: ["right-index-finger"])
            let context = LAContext(busAddress: bus.address)
            #expect(context.biometryType == .none, "none until canEvaluatePolicy")
            #expect(context.evaluatedPolicyDomainState == nil)
            #expect(check(context, .deviceOwnerAuthenticationWithBiometrics) == nil)
            #expect(context.biometryType == .faceID, "the face sensor is connected and preferred")
            let before = try #require(context.evaluatedPolicyDomainState)
            #expect(before.count == 32)

            try await admin.simulator("Touch", [.string("right-index-finger")])  // queued for the evaluation
            let callerKey = DispatchSpecificKey<Bool>()
            let caller = DispatchQueue(label: "caller")
            caller.setSpecific(key: callerKey, value: true)
            let replied = Inbox<(Bool, Bool)>()
            caller.sync {
                context.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "log in") { success, error in
                    replied.put((success && error == nil, DispatchQueue.getSpecific(key: callerKey) == nil))
                }
            }
            let (succeeded, offTheCallersQueue) = try await replied.next(within: .seconds(10))
            #expect(succeeded && offTheCallersQueue)

            _ = try await admin.manager("Enroll", [.string("fingerprint"), .string("left-thumb"), .string("4711-secret")])
            #expect(check(context, .deviceOwnerAuthenticationWithBiometrics) == nil)
            #expect(try #require(context.evaluatedPolicyDomainState) != before, "enrolling changes the domain state")
        }
    }

    @Test func passcodeProviderAnswersPolicyTwoAsyncAndPromptsAreObserved() async throws {
        try await withDaemon { _, bus in
            let admin = try await Client(bus)
            try await admin.setUp()  // a passcode, no biometry: policy 2 asks for the passcode at once
            let context = LAContext(busAddress: bus.address)
            let requests = Inbox<LAPasscodeRequest>()
            context.passcodeProvider = { request in
                requests.put(request)
                return request.isRetry ? "4711-secret" : "wrong-passcode"
            }
            let prompts = promptsOf(context)
            #expect(try await context.evaluatePolicy(.deviceOwnerAuthentication, localizedReason: "unlock your notes"))
            #expect(requests.received.map(\.isRetry) == [false, true])
            #expect(try await prompts.next().kind == .passcode)
            let wrong = try await prompts.next()
            #expect(wrong.kind == .passcodeWrong && !wrong.message.isEmpty)
            #expect(requests.received.first?.message.contains("unlock your notes") == true)
        }
    }

    @Test func credentialIsOfferedBeforeAndWhileBiometricsListen() async throws {
        try await withDaemon { _, bus in
            let admin = try await Client(bus)
            try await admin.setUp(fingers: ["right-index-finger"])
            let context = LAContext(busAddress: bus.address)
            #expect(context.setCredential(Data("4711-secret".utf8), type: .applicationPassword))
            #expect(context.isCredentialSet(.applicationPassword))
            #expect(!context.setCredential(Data("1234".utf8), type: .smartCardPIN))
            #expect(try await context.evaluatePolicy(.deviceOwnerAuthentication, localizedReason: "set before"))

            let listening = LAContext(busAddress: bus.address)
            let prompts = promptsOf(listening)
            let outcome = evaluate(listening, .deviceOwnerAuthentication)
            #expect(try await prompts.next().kind == .biometry)
            #expect(listening.setCredential(Data("4711-secret".utf8), type: .applicationPassword))
            #expect(try await outcome.next(within: .seconds(10)) == nil)

            let wrong = LAContext(busAddress: bus.address)
            let wrongPrompts = promptsOf(wrong)
            _ = wrong.setCredential(Data("not-it".utf8), type: .applicationPassword)
            let pending = evaluate(wrong, .deviceOwnerAuthentication)
            #expect(try await wrongPrompts.next().kind == .biometry)
            #expect(try await wrongPrompts.next().kind == .passcodeWrong)
            #expect(!wrong.isCredentialSet(.applicationPassword), "a wrong credential is dropped")
            wrong.userCancelled()
            #expect(try await pending.next(within: .seconds(10)) == .userCancel)
        }
    }

    @Test func everyCodeTheDaemonProducesArrivesAsItsLAErrorCode() async throws {
        try await withDaemon(configuration: "passcode_max_failures = 2\n") { _, bus in
            let admin = try await Client(bus)
            let fresh = LAContext(busAddress: bus.address)
            #expect(check(fresh, .deviceOwnerAuthentication) == LAError.Code.passcodeNotSet.rawValue)
            #expect(check(fresh, .deviceOwnerAuthenticationWithCompanion) == LAError.Code.companionNotAvailable.rawValue)
            #expect(check(fresh, .deviceOwnerAuthenticationWithWristDetection) == LAError.Code.companionNotAvailable.rawValue)
            try await admin.setUp()
            #expect(check(fresh, .deviceOwnerAuthenticationWithBiometrics) == LAError.Code.biometryNotEnrolled.rawValue)
            _ = try await admin.manager("Enroll", [.string("fingerprint"), .string("right-index-finger"), .string("4711-secret")])

            // Options set before the daemon context exists travel in CreateContext.
            let quiet = LAContext(busAddress: bus.address)
            quiet.interactionNotAllowed = true
            #expect(try await evaluate(quiet, .deviceOwnerAuthenticationWithBiometrics).next() == .notInteractive)
            // … and later changes through Properties.Set.
            quiet.interactionNotAllowed = false
            let cancelled = evaluate(quiet, .deviceOwnerAuthenticationWithBiometrics)
            let quietPrompts = promptsOf(quiet)
            #expect(try await quietPrompts.next().kind == .biometry)
            quiet.userCancelled()
            #expect(try await cancelled.next() == .userCancel)

            let fallingBack = LAContext(busAddress: bus.address)
            let fallbackPrompts = promptsOf(fallingBack)
            let fellBack = evaluate(fallingBack, .deviceOwnerAuthenticationWithBiometrics)
            _ = try await fallbackPrompts.next()
            fallingBack.userChoseFallback()
            #expect(try await fellBack.next() == .userFallback)

            let failing = LAContext(busAddress: bus.address)
            let failed = evaluate(failing, .deviceOwnerAuthenticationWithBiometrics)
            for _ in 1...3 { try await admin.simulator("Touch", [.string("left-thumb")]) }
            #expect(try await failed.next() == .authenticationFailed)
            let lockedOut = evaluate(failing, .deviceOwnerAuthenticationWithBiometrics)
            for _ in 1...2 { try await admin.simulator("Touch", [.string("left-thumb")]) }
            #expect(try await lockedOut.next() == .biometryLockout)
            #expect(check(failing, .deviceOwnerAuthenticationWithBiometrics) == LAError.Code.biometryLockout.rawValue)

            try await admin.simulator("SetConnected", [.string("fingerprint"), .bool(false)])
            try await admin.simulator("SetConnected", [.string("face"), .bool(false)])
            #expect(check(failing, .deviceOwnerAuthenticationWithBiometrics) == LAError.Code.biometryNotAvailable.rawValue)
            #expect(failing.biometryType == .none)

            // invalidate() during an evaluation, then every call.
            let invalidated = LAContext(busAddress: bus.address)
            let invalidatedPrompts = promptsOf(invalidated)
            let appCancelled = evaluate(invalidated, .deviceOwnerAuthentication)
            #expect(try await invalidatedPrompts.next().kind == .passcode)
            invalidated.invalidate()
            #expect(try await appCancelled.next() == .appCancel)
            #expect(check(invalidated, .deviceOwnerAuthentication) == LAError.Code.invalidContext.rawValue)
            do {
                _ = try await invalidated.evaluatePolicy(.deviceOwnerAuthentication, localizedReason: "again")
                Issue.record("an invalidated context evaluated")
            } catch LAError.invalidContext {}

            // Two wrong passcodes lock the passcode (passcode_max_failures = 2): our extension code.
            for _ in 1...2 {
                _ = await errorName { _ = try await admin.manager("SetRequireAttention", [.bool(true), .string("wrong-one")]) }
            }
            #expect(check(fresh, .deviceOwnerAuthentication) == LAError.Code.passcodeLockout.rawValue)
        }
    }

    @Test func daemonShutdownDuringAnEvaluationIsSystemCancel() async throws {
        try await withDaemon { daemon, bus in
            let admin = try await Client(bus)
            try await admin.setUp()
            let context = LAContext(busAddress: bus.address)
            let prompts = promptsOf(context)
            let outcome = evaluate(context, .deviceOwnerAuthentication)
            _ = try await prompts.next()
            #expect(try await daemon.terminate() == 0)
            #expect(try await outcome.next() == .systemCancel)
            #expect(check(context, .deviceOwnerAuthenticationWithBiometrics) == LAError.Code.biometryNotAvailable.rawValue,
                    "with the daemon gone: unreachable")
        }
    }

    @Test func aContextThatGoesAwayInvalidatesItsDaemonContext() async throws {
        try await withDaemon { _, bus in
            let connection = try await LAContext.sharedConnection(busAddress: bus.address)
            var context: LAContext? = LAContext(busAddress: bus.address)
            _ = check(context!, .deviceOwnerAuthentication)
            let path = try #require(context?.daemonContextPath)
            context = nil
            // Invalidate announces nothing (its reply is the notice): the context's calls fail once it arrived.
            let invalidated = await eventually {
                await errorName {
                    _ = try await connection.call(destination: LocalAuthBusNames.busName, path: path, interface: LocalAuthBusNames.contextInterface,
                                                  member: "CanEvaluatePolicy", arguments: [.uint32(2)])
                } == LocalAuthBusNames.errorPrefix + "InvalidContext"
            }
            #expect(invalidated, "the daemon's context outlived its LAContext")
        }
    }
}
