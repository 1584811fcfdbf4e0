// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI
@testable import LocalAuthCore
import Testing

@Suite("Apple's values in the core", .timeLimit(.minutes(1)))
struct PolicyValuesTests {
    /// The raw values themselves are LocalAuthAPI's, tested in LocalAuthAPITests; the core adds the messages.
    @Test(arguments: LAErrorCode.allCases)
    func everyCodeHasADefaultMessage(code: LAErrorCode) {
        #expect(!code.defaultMessage.isEmpty)
    }

    @Test("any other policy value is an invalid argument, not an LAError", arguments: [0, 6, -1, 1000])
    func otherPolicyValuesAreInvalidArguments(raw: Int) {
        #expect(throws: LocalAuthError.self) { try LAPolicy(validating: raw) }
        do { _ = try LAPolicy(validating: raw) } catch {
            #expect(error.kind == .invalidArgument)
            #expect(error.code == nil)
        }
    }

    @Test(arguments: LAPolicy.allCases)
    func everySuccessOfEveryPolicyHasItsAuditMessage(policy: LAPolicy) {
        #expect(EvaluationSuccess.all.count == BiometricModality.allCases.count + 3)
        for success in EvaluationSuccess.all {
            #expect(PolicyEngine.message(policy, satisfiedBy: success) == "Policy \(policy.rawValue) satisfied by \(success.description).")
        }
    }

    @Test func policyFourBehavesAsOneAndThreeFiveNeedACompanion() {
        #expect(LAPolicy.deviceOwnerAuthenticationWithBiometricsOrCompanion.kind == LAPolicy.deviceOwnerAuthenticationWithBiometrics.kind)
        #expect(LAPolicy.deviceOwnerAuthenticationWithCompanion.kind == .companion)
        #expect(LAPolicy.deviceOwnerAuthenticationWithWristDetection.kind == .companion)
    }
}
