// SPDX-License-Identifier: Apache-2.0
import LocalAuthCore
import Testing

@Suite("Apple's values", .timeLimit(.minutes(1)))
struct PolicyValuesTests {
    @Test("LAPolicy raw values are Apple's", arguments: [
        (LAPolicy.deviceOwnerAuthenticationWithBiometrics, 1),
        (.deviceOwnerAuthentication, 2),
        (.deviceOwnerAuthenticationWithCompanion, 3),
        (.deviceOwnerAuthenticationWithBiometricsOrCompanion, 4),
        (.deviceOwnerAuthenticationWithWristDetection, 5),
    ])
    func policyRawValues(policy: LAPolicy, raw: Int) {
        #expect(policy.rawValue == raw)
    }

    @Test func watchIsAnAliasOfCompanion() {
        #expect(LAPolicy.deviceOwnerAuthenticationWithWatch == .deviceOwnerAuthenticationWithCompanion)
    }

    @Test("LAError codes are Apple's, passcodeLockout outside Apple's range", arguments: [
        (LAErrorCode.authenticationFailed, -1), (.userCancel, -2), (.userFallback, -3), (.systemCancel, -4),
        (.passcodeNotSet, -5), (.biometryNotAvailable, -6), (.biometryNotEnrolled, -7), (.biometryLockout, -8),
        (.appCancel, -9), (.invalidContext, -10), (.companionNotAvailable, -11), (.notInteractive, -1004),
        (.passcodeLockout, -9001),
    ])
    func errorCodes(code: LAErrorCode, raw: Int) {
        #expect(code.rawValue == raw)
        #expect(!code.defaultMessage.isEmpty)
    }

    @Test func biometryTypeValues() {
        #expect(LABiometryType.none.rawValue == 0)
        #expect(LABiometryType.touchID.rawValue == 1)
        #expect(LABiometryType.faceID.rawValue == 2)
    }

    @Test("any other policy value is an invalid argument, not an LAError", arguments: [0, 6, -1, 1000])
    func otherPolicyValuesAreInvalidArguments(raw: Int) {
        #expect(throws: LocalAuthError.self) { try LAPolicy(validating: raw) }
        do { _ = try LAPolicy(validating: raw) } catch {
            #expect(error.kind == .invalidArgument)
            #expect(error.code == nil)
        }
    }

    @Test func policyFourBehavesAsOneAndThreeFiveNeedACompanion() {
        #expect(LAPolicy.deviceOwnerAuthenticationWithBiometricsOrCompanion.kind == LAPolicy.deviceOwnerAuthenticationWithBiometrics.kind)
        #expect(LAPolicy.deviceOwnerAuthenticationWithCompanion.kind == .companion)
        #expect(LAPolicy.deviceOwnerAuthenticationWithWristDetection.kind == .companion)
    }
}
