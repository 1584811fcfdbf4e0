// SPDX-License-Identifier: Apache-2.0
@testable import LocalAuthCore
import LocalAuthTestSupport
import Testing

/// The requirement grammar and how each term and connective is evaluated; biometry-current-set
/// after an enrollment change.
@Suite("Rights: requirements", .timeLimit(.minutes(1)))
struct RightsRequirementTests {
    typealias H = EngineHarness

    @Test(arguments: ["default", "biometry", "biometry-current-set", "passcode", "biometry or passcode",
                      "biometry-current-set and passcode", "default or biometry or passcode or biometry-current-set"])
    func validRequirementsReadBackAsWritten(text: String) throws {
        #expect(try AuthenticationRequirement(parsing: text).description == text)
    }

    @Test(arguments: ["", "face", "Default", "biometry  or passcode", "biometry or", "or passcode", "biometry or passcode and default",
                      "default or default or default or default or default", " default", "biometry xor passcode"])
    func anythingElseIsAnInvalidArgumentStatingTheGrammar(text: String) {
        let error = #expect(throws: LocalAuthError.self) { try AuthenticationRequirement(parsing: text) }
        #expect(error?.kind == .invalidArgument && error?.message.contains("biometry-current-set") == true)
    }

    @Test func eachRequirementBecomesItsEvaluations() throws {
        func steps(_ text: String, valid: Bool = true) throws -> [String] {
            try RightAuthorizationProbe.steps(text, valid: valid)
        }
        #expect(try steps("default") == ["policy 2"])
        #expect(try steps("biometry") == ["policy 1"])
        #expect(try steps("passcode") == ["passcode"])
        #expect(try steps("biometry or passcode") == ["policy 2"])
        #expect(try steps("biometry-current-set or passcode", valid: false) == ["passcode"])
        #expect(try steps("biometry-current-set or biometry", valid: false) == ["policy 1"])
        #expect(try steps("biometry and passcode") == ["policy 1", "passcode"])
        #expect(throws: LocalAuthError.self) { try steps("biometry-current-set", valid: false) }
        #expect(throws: LocalAuthError.self) { try steps("biometry-current-set and passcode", valid: false) }
    }

    @Test func thePasscodeTermAsksForThePasscodeAlone() async throws {
        let h = try await Rights.harness()
        try await Rights.save(h, requirement: "passcode")
        let context = try await Rights.context(h)
        let run = await Rights.authorize(h, on: context)
        #expect(try await h.state(of: context) == .passcode, "no sensor is offered")
        try await h.fingerprint.touch("right-index-finger")
        await Rights.expect(.authentication(.authenticationFailed)) {
            try await h.engine.submitPasscode(Passcode("0000-wrong"), context: context, caller: H.alice.client)
        }
        try await h.engine.submitPasscode(Passcode(H.passcode), context: context, caller: H.alice.client)
        try await run.result.get()
        #expect(await h.engine.userState(of: H.alice.uid).passcodeFailures == 0)
    }

    @Test func theDefaultTermTakesATouchOrThePasscode() async throws {
        let h = try await Rights.harness()
        try await Rights.save(h, requirement: "default")
        let context = try await Rights.context(h)
        let touched = await Rights.authorize(h, on: context)
        #expect(try await h.state(of: context) == .biometry)
        try await h.fingerprint.touch("right-index-finger")
        try await touched.result.get()
        try await Rights.authorizeWithPasscode(h, on: context)
    }

    @Test func andEvaluatesEachTermInTurn() async throws {
        let h = try await Rights.harness()
        try await Rights.save(h, requirement: "biometry and passcode")
        let context = try await Rights.context(h)
        let run = await Rights.authorize(h, on: context)
        #expect(try await h.state(of: context) == .biometry)
        await Rights.expect(.rightNotAuthorized) { try await h.engine.loadSecret("notes-key", context: context, caller: H.alice.client) }
        try await Rights.nextStep(h, on: context, run: run) { try await h.fingerprint.touch("right-index-finger") }
        #expect(try await h.state(of: context) == .passcode, "the passcode after the touch")
        await Rights.expect(.rightNotAuthorized) { try await h.engine.loadSecret("notes-key", context: context, caller: H.alice.client) }
        try await h.engine.submitPasscode(Passcode(H.passcode), context: context, caller: H.alice.client)
        try await run.result.get()
        #expect(Rights.text(try await h.engine.loadSecret("notes-key", context: context, caller: H.alice.client)) == "s3cret")
    }

    @Test func andFailsWhenALaterTermFails() async throws {
        let h = try await Rights.harness()
        try await Rights.save(h, requirement: "biometry and passcode")
        let context = try await Rights.context(h)
        let run = await Rights.authorize(h, on: context)
        try await Rights.nextStep(h, on: context, run: run) { try await h.fingerprint.touch("right-index-finger") }
        try await h.engine.cancel(context: context, caller: H.alice.client)
        #expect(await run.errorKind == .authentication(.userCancel))
        await Rights.expect(.rightNotAuthorized) { try await h.engine.loadSecret("notes-key", context: context, caller: H.alice.client) }
    }

    @Test func biometryCurrentSetStopsAuthorizingWhenTheEnrollmentsChange() async throws {
        let h = try await Rights.harness()
        try await Rights.save(h, requirement: "biometry-current-set")
        try await Rights.save(h, "with-fallback", requirement: "biometry-current-set or passcode")
        let context = try await Rights.context(h)
        let run = await Rights.authorize(h, on: context)
        try await h.fingerprint.touch("right-index-finger")
        try await run.result.get()
        #expect(Rights.text(try await h.engine.loadSecret("notes-key", context: context, caller: H.alice.client)) == "s3cret")

        try await h.engine.enroll(.fingerprint, label: "left-thumb", passcode: Passcode(H.passcode), caller: H.alice)
        await Rights.expect(.rightInvalidated) { try await h.engine.loadSecret("notes-key", context: context, caller: H.alice.client) }
        #expect(try await h.engine.right("notes-key", app: Rights.app, caller: H.alice).invalidated, "kept, shown invalidated")
        await Rights.expect(.rightInvalidated) { try await h.engine.checkCanAuthorizeRight("notes-key", context: context, caller: H.alice.client) }
        #expect(await Rights.authorize(h, on: context).errorKind == .rightInvalidated)

        let fallback = await Rights.authorize(h, "with-fallback", on: context)
        #expect(try await h.state(of: context) == .passcode, "only the passcode is left")
        try await h.engine.submitPasscode(Passcode(H.passcode), context: context, caller: H.alice.client)
        try await fallback.result.get()

        try await Rights.save(h, requirement: "biometry-current-set")
        #expect(try await !h.engine.right("notes-key", app: Rights.app, caller: H.alice).invalidated, "saved again under the new set")
    }

    @Test func aRequirementWithoutARightChecksTheDomainState() async throws {
        let h = try await Rights.harness()
        let context = try await Rights.context(h, app: nil)
        try await h.engine.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, context: context, caller: H.alice.client)
        let state = try await h.engine.snapshot(of: context, caller: H.alice.client).evaluatedPolicyDomainState
        try await h.engine.canEvaluateRequirement("biometry-current-set", domainState: state, context: context, caller: H.alice.client)
        let run = await Rights.evaluate(h, "biometry-current-set", domainState: state, on: context)
        try await h.fingerprint.touch("right-index-finger")
        try await run.result.get()
        await Rights.expect(.rightInvalidated) {
            try await h.engine.canEvaluateRequirement("biometry-current-set", domainState: [1, 2, 3], context: context, caller: H.alice.client)
        }
        #expect(await Rights.evaluate(h, "biometry-current-set", domainState: [1, 2, 3], on: context).errorKind == .rightInvalidated)
        await Rights.expect(.invalidArgument) {
            try await h.engine.canEvaluateRequirement("retina", domainState: nil, context: context, caller: H.alice.client)
        }
    }

    @Test func checkCanAuthorizeGivesTheRefusalsOfAnEvaluation() async throws {
        let h = try await Rights.harness()
        try await Rights.save(h, requirement: "biometry")
        let context = try await Rights.context(h)
        try await h.engine.checkCanAuthorizeRight("notes-key", context: context, caller: H.alice.client)
        await Rights.expect(.rightNotFound) { try await h.engine.checkCanAuthorizeRight("missing", context: context, caller: H.alice.client) }
        try await h.engine.unenroll(.fingerprint, label: "right-index-finger", passcode: Passcode(H.passcode), caller: H.alice)
        await Rights.expect(.authentication(.biometryNotEnrolled)) {
            try await h.engine.checkCanAuthorizeRight("notes-key", context: context, caller: H.alice.client)
        }
    }
}

/// The evaluations a requirement becomes, named for comparison.
enum RightAuthorizationProbe {
    static func steps(_ text: String, valid: Bool) throws -> [String] {
        try RightAuthorization.steps(for: AuthenticationRequirement(parsing: text), currentSetValid: valid).map { step in
            switch step {
            case .passcode: "passcode"
            case .policy(let policy): "policy \(policy.rawValue)"
            }
        }
    }
}

@Suite("Rights: configuration", .timeLimit(.minutes(1)))
struct RightsConfigurationTests {
    @Test func keyProtectionAndTheTCTIAreRead() throws {
        #expect(Configuration().keyProtection == .auto && Configuration().tpmTCTI == "device:/dev/tpmrm0")
        let configuration = try ConfigurationParser.parse("key_protection = wrapping-key\ntpm_tcti = swtpm:host=127.0.0.1,port=2321\n", file: "t.conf")
        #expect(configuration.keyProtection == .wrappingKey && configuration.tpmTCTI == "swtpm:host=127.0.0.1,port=2321")
        #expect(try ConfigurationParser.parse("key_protection = tpm2\n", file: "t.conf").keyProtection == .tpm2)
    }

    @Test(arguments: ["key_protection = tpm\n", "key_protection = \n", "tpm_tcti = :/dev/tpm0\n", "tpm_tcti = dev ice:x\n"])
    func badValuesAreConfigurationErrors(text: String) {
        #expect(throws: ConfigurationError.self) { try ConfigurationParser.parse(text, file: "t.conf") }
    }

    @Test func aReloadKeepsThemUntilARestart() async throws {
        let h = try EngineHarness()
        var changed = h.configuration
        changed.keyProtection = .tpm2
        changed.tpmTCTI = "swtpm:port=1"
        let needRestart = await h.engine.reload(changed)
        #expect(needRestart.contains("key_protection") && needRestart.contains("tpm_tcti"))
    }
}
