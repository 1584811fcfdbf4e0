// SPDX-License-Identifier: Apache-2.0
import Foundation
@_spi(Testing) @testable import LocalAuthentication
import LocalAuthAPI
import LocalAuthDBus
import LocalAuthTestSupport
import Testing

/// Apple's value types and how D-Bus errors and the environment map onto them; no daemon needed.
@Suite("LocalAuthentication types and mappings", .timeLimit(.minutes(1)))
struct LAErrorTests {
    @Test func valuesAreApples() {
        #expect(LAPolicy.allCases.map(\.rawValue) == [1, 2, 3, 4, 5])
        #expect([LABiometryType.none, .touchID, .faceID].map(\.rawValue) == [0, 1, 2])
        #expect(LAError.Code.allCases.map(\.rawValue) == [-1, -2, -3, -4, -5, -6, -7, -8, -9, -10, -11, -12, -13, -14, -1004, -9001])
        #expect(LACredentialType.applicationPassword.rawValue == 0)
        #expect(LATouchIDAuthenticationMaximumAllowableReuseDuration == 300)
        #expect(LAErrorDomain == "com.apple.LocalAuthentication" && LAError.errorDomain == LAErrorDomain)
    }

    @Test(arguments: LocalAuthErrorName.allCases)
    func everyErrorTheDaemonNamesBecomesItsCodeOrSystemCancel(name: LocalAuthErrorName) {
        let error = LAError(reply: DBusError(DBusError.Name(name.dbusName), "from the daemon"), policy: .deviceOwnerAuthentication)
        let expected = name.laErrorCode ?? .systemCancel
        #expect(error.code == expected)
    }

    @Test func anLAErrorBridgesToNSErrorAndMatchesAsOnApplePlatforms() {
        let error = LAError(.biometryLockout, userInfo: [NSLocalizedDescriptionKey: "Locked."])
        let bridged = error as NSError
        #expect(bridged.domain == "com.apple.LocalAuthentication" && bridged.code == -8 && bridged.localizedDescription == "Locked.")
        #expect(LAError(_nsError: bridged) == error)
        #expect(error.errorCode == -8 && error.code == .biometryLockout && LAError.biometryLockout == .biometryLockout)
        #expect(!LAError(.userCancel).localizedDescription.isEmpty)

        let thrown: any Error = LAError(.userCancel)
        do { throw thrown } catch LAError.userCancel {} catch { Issue.record("catch LAError.userCancel did not match \(error)") }
        do { throw thrown } catch LAError.appCancel { Issue.record("matched the wrong code") } catch {}
    }

    @Test func daemonErrorNamesMapToTheCodeOfTheSameName() {
        let names: [String: LAError.Code] = [
            "AuthenticationFailed": .authenticationFailed, "UserCancel": .userCancel, "UserFallback": .userFallback,
            "SystemCancel": .systemCancel, "PasscodeNotSet": .passcodeNotSet, "BiometryNotAvailable": .biometryNotAvailable,
            "BiometryNotEnrolled": .biometryNotEnrolled, "BiometryLockout": .biometryLockout, "AppCancel": .appCancel,
            "InvalidContext": .invalidContext, "CompanionNotAvailable": .companionNotAvailable, "NotInteractive": .notInteractive,
            "PasscodeLockout": .passcodeLockout,
        ]
        for (name, code) in names {
            let mapped = LAError(reply: DBusError(DBusError.Name("org.localauth.LocalAuthentication1.Error." + name), "why"),
                                 policy: .deviceOwnerAuthentication)
            #expect(mapped.code == code && mapped.localizedDescription == "why", "\(name)")
        }
        func mapped(_ name: DBusError.Name, _ policy: LAPolicy = .deviceOwnerAuthenticationWithBiometrics) -> LAError.Code {
            LAError(reply: DBusError(name, "m"), policy: policy).code
        }
        #expect(mapped("org.localauth.LocalAuthentication1.Error.Busy") == .systemCancel)
        #expect(mapped("org.localauth.LocalAuthentication1.Error.NotEvaluating") == .systemCancel)
        #expect(mapped(.invalidArgs) == .systemCancel && mapped(.noReply) == .systemCancel && mapped(.failed) == .systemCancel)
        #expect(mapped(.accessDenied) == .invalidContext && mapped(.unknownObject) == .invalidContext)
        #expect(mapped(.serviceUnknown) == .biometryNotAvailable && mapped(.disconnected, .deviceOwnerAuthentication) == .passcodeNotSet)
        #expect(mapped(.limitsExceeded, .deviceOwnerAuthenticationWithCompanion) == .companionNotAvailable)
    }

    @Test func theBusComesFromTheEnvironment() throws {
        #expect(try DaemonBus.fromEnvironment([:]).get() == .system)
        #expect(try DaemonBus.fromEnvironment(["LOCALAUTH_BUS": "session"]).get() == .session)
        #expect(try DaemonBus.fromEnvironment(["LOCALAUTH_BUS": "session", "LOCALAUTH_BUS_ADDRESS": "unix:path=/x"]).get() == .address("unix:path=/x"))
        guard case .failure(let error) = DaemonBus.fromEnvironment(["LOCALAUTH_BUS": "user"]) else {
            Issue.record("an unknown LOCALAUTH_BUS was accepted")
            return
        }
        #expect(error.localizedDescription.contains("LOCALAUTH_BUS"))
    }

    @Test func unreachableDaemonGivesTheDocumentedCodes() async throws {
        let nowhere = "unix:path=/nonexistent/localauthd-test-bus"
        let expected: [LAPolicy: LAError.Code] = [
            .deviceOwnerAuthenticationWithBiometrics: .biometryNotAvailable, .deviceOwnerAuthentication: .passcodeNotSet,
            .deviceOwnerAuthenticationWithCompanion: .companionNotAvailable,
            .deviceOwnerAuthenticationWithBiometricsOrCompanion: .biometryNotAvailable,
            .deviceOwnerAuthenticationWithWristDetection: .companionNotAvailable,
        ]
        for (policy, code) in expected {
            let context = LAContext(busAddress: nowhere)
            var error: NSError?
            #expect(!context.canEvaluatePolicy(policy, error: &error))
            #expect(error?.code == code.rawValue && error?.domain == LAErrorDomain)
            #expect(error?.localizedDescription.contains("LOCALAUTH_BUS") == true)
            do {
                _ = try await context.evaluatePolicy(policy, localizedReason: "test")
                Issue.record("evaluated without a daemon")
            } catch let error as LAError {
                #expect(error.code == code)
            }
        }
        // A bus without localauthd on it.
        try await withPrivateBus { bus in
            let context = LAContext(busAddress: bus.address)
            #expect(!context.canEvaluatePolicy(.deviceOwnerAuthentication, error: nil))
        }
    }
}
