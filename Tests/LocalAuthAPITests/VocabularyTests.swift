// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthAPI
import Testing

/// The values both sides share: Apple's raw values, and wire strings that are exactly what
/// `dbus/*.xml` documents and read back to the same case.
@Suite("Vocabulary: Apple's values and the wire strings")
struct VocabularyTests {
    @Test func policiesHaveApplesRawValues() {
        let expected: [LAPolicy: Int] = [
            .deviceOwnerAuthenticationWithBiometrics: 1, .deviceOwnerAuthentication: 2,
            .deviceOwnerAuthenticationWithCompanion: 3, .deviceOwnerAuthenticationWithBiometricsOrCompanion: 4,
            .deviceOwnerAuthenticationWithWristDetection: 5,
        ]
        #expect(Dictionary(uniqueKeysWithValues: LAPolicy.allCases.map { ($0, $0.rawValue) }) == expected)
        #expect(LAPolicy(rawValue: 0) == nil && LAPolicy(rawValue: 6) == nil)
    }

    @Test func biometryTypesHaveApplesRawValues() {
        #expect(LABiometryType.allCases.map(\.rawValue) == [0, 1, 2, 4])
        #expect(LABiometryType.allCases == [.none, .touchID, .faceID, .opticID])
    }

    @Test func errorCodesHaveApplesRawValuesAndNames() {
        let expected: [(LAErrorCode, Int, String)] = [
            (.authenticationFailed, -1, "AuthenticationFailed"), (.userCancel, -2, "UserCancel"),
            (.userFallback, -3, "UserFallback"), (.systemCancel, -4, "SystemCancel"),
            (.passcodeNotSet, -5, "PasscodeNotSet"), (.biometryNotAvailable, -6, "BiometryNotAvailable"),
            (.biometryNotEnrolled, -7, "BiometryNotEnrolled"), (.biometryLockout, -8, "BiometryLockout"),
            (.appCancel, -9, "AppCancel"), (.invalidContext, -10, "InvalidContext"),
            (.companionNotAvailable, -11, "CompanionNotAvailable"), (.biometryNotPaired, -12, "BiometryNotPaired"),
            (.biometryDisconnected, -13, "BiometryDisconnected"), (.invalidDimensions, -14, "InvalidDimensions"),
            (.notInteractive, -1004, "NotInteractive"), (.passcodeLockout, -9001, "PasscodeLockout"),
        ]
        #expect(LAErrorCode.allCases == expected.map(\.0))
        for (code, rawValue, name) in expected {
            #expect(code.rawValue == rawValue, "\(code)")
            #expect(code.name == name, "\(code)")
            #expect(LAErrorCode(rawValue: rawValue) == code)
        }
    }

    @Test func everyLAErrorNameOfTheContractCarriesTheCodeOfItsName() {
        for name in LocalAuthErrorName.allCases {
            guard let code = name.laErrorCode else { continue }
            #expect(code.name == name.rawValue)
            #expect(LocalAuthErrorName(laErrorCode: code) == name)
        }
        for code in [LAErrorCode.biometryNotPaired, .biometryDisconnected, .invalidDimensions] {
            #expect(LocalAuthErrorName(laErrorCode: code) == nil, "\(code) is macOS-only: no name on the bus")
        }
    }

    @Test func contextStatesAreTheStatePropertysStrings() throws {
        #expect(ContextState.allCases.map(\.rawValue) == ["idle", "waiting", "biometry", "passcode", "invalidated"])
        // `invalidated` is the engine's last state of a context; Invalidate announces nothing and
        // the property cannot be read afterwards, so the bus never shows it.
        try expectDocumented(ContextState.allCases.filter { $0 != .invalidated }.map(\.rawValue), in: "Context", after: #"<property name="State""#)
    }

    @Test func promptKindsAreThePromptSignalsStrings() throws {
        #expect(PromptKind.allCases.map(\.rawValue) == ["biometry", "waiting", "retry", "attention-required", "no-match", "passcode", "passcode-wrong"])
        #expect(PromptKind.allCases.filter(\.isPasscodeRequest) == [.passcode, .passcodeWrong])
        try expectDocumented(PromptKind.allCases.map(\.rawValue), in: "Context", after: #"<arg name="kind""#)
    }

    @Test func agentUpdateKindsArePromptKindsAndReady() throws {
        #expect(AgentUpdateKind.allCases.map(\.rawValue) == PromptKind.allCases.map(\.rawValue) + ["ready"])
        for kind in AgentUpdateKind.allCases {
            #expect(AgentUpdateKind(rawValue: kind.rawValue) == kind)
        }
        #expect(AgentUpdateKind(rawValue: "Ready") == nil && AgentUpdateKind(rawValue: "") == nil)
        try expectDocumented(AgentUpdateKind.allCases.map(\.rawValue), in: "Agent", after: #"<arg name="update""#)
    }

    @Test func agentResponsesAreTheAgentResponseCallsStrings() throws {
        #expect(AgentResponse.allCases.map(\.rawValue) == ["passcode", "fallback", "cancel", "allow-face", "deny-face"])
        try expectDocumented(AgentResponse.allCases.map(\.rawValue), in: "Manager", after: #"<arg name="response""#)
    }

    @Test func requirementTermsAndConnectivesAreTheGrammarsWords() throws {
        #expect(RequirementTerm.allCases.map(\.rawValue) == ["default", "biometry", "biometry-current-set", "passcode"])
        #expect(RequirementTerm.allCases.filter(\.acceptsPasscode) == [.default, .passcode])
        #expect(RequirementTerm.allCases.filter(\.acceptsBiometry) == [.default, .biometry, .biometryCurrentSet])
        #expect(RequirementConnective.allCases.map(\.rawValue) == ["or", "and"])
        #expect(RequirementConnective.or.join([.biometry, .passcode]) == "biometry or passcode")
        #expect(RequirementConnective.and.join([.biometryCurrentSet]) == "biometry-current-set")
        #expect(RequirementTerm.terms(of: "biometry-current-set and passcode") == [.biometryCurrentSet, .passcode])
        #expect(RequirementTerm.terms(of: "passcodes or biometryx") == [])
        try expectDocumented(RequirementTerm.allCases.map(\.rawValue), in: "Context", after: #"<arg name="requirement""#)
    }

    @Test func modalitiesAreTheEnrollCallsStringsAndTheirBiometryTypes() {
        #expect(BiometricModality.allCases.map(\.rawValue) == ["fingerprint", "face"])
        #expect(BiometricModality.allCases.map(\.biometryType) == [.touchID, .faceID])
        #expect(BiometricModality(rawValue: "passcode") == nil && BiometricModality(rawValue: "Face") == nil)
    }

    @Test func fingerNamesAreFprintds() {
        let hands = ["left", "right"].flatMap { hand in
            ["thumb", "index-finger", "middle-finger", "ring-finger", "little-finger"].map { "\(hand)-\($0)" }
        }
        #expect(FingerName.allCases.map(\.rawValue) == hands)
        #expect(hands.map { FingerName(rawValue: $0)?.rawValue } == hands)
        #expect(["", "Right-thumb", "right-thumb ", "thumb"].allSatisfy { FingerName(rawValue: $0) == nil })
    }

    @Test(arguments: ContextState.allCases.map(\.rawValue) + PromptKind.allCases.map(\.rawValue)
          + AgentResponse.allCases.map(\.rawValue) + FingerName.allCases.map(\.rawValue) + RequirementTerm.allCases.map(\.rawValue))
    func everyWireStringRoundTrips(string: String) {
        let readBack = [ContextState(rawValue: string)?.rawValue, PromptKind(rawValue: string)?.rawValue,
                        AgentResponse(rawValue: string)?.rawValue, FingerName(rawValue: string)?.rawValue,
                        RequirementTerm(rawValue: string)?.rawValue].compactMap { $0 }
        #expect(!readBack.isEmpty && readBack.allSatisfy { $0 == string })
    }

    @Test func wireStringsAreCaseSensitiveAndExact() {
        #expect(ContextState(rawValue: "Idle") == nil)
        #expect(PromptKind(rawValue: "passcode_wrong") == nil && PromptKind(rawValue: "passcodeWrong") == nil)
        #expect(AgentResponse(rawValue: "allowFace") == nil && AgentResponse(rawValue: "allow-face ") == nil)
        #expect(FingerName(rawValue: "rightIndexFinger") == nil)
    }

    @Test func passcodeReasonsAndRetryReasonsAreTheAdviceWords() throws {
        try expectDocumented(PasscodeReason.allCases.map(\.rawValue), in: "Agent", after: #"<arg name="update""#)
        #expect(Set(RetryReason.fingerprint).isSubset(of: RetryReason.allCases))
    }

    /// The provider protocol's words, as docs/providers.md's message table gives them.
    @Test func providerWordsAreTheProtocolTables() throws {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/providers.md")
        let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n")
        func row(_ message: String) throws -> String {
            String(try #require(lines.first { $0.hasPrefix("| `\(message)`") }, "no row for \(message) in docs/providers.md"))
        }
        let hello = try row("Hello"), attempt = try row("ReportAttempt"), enrollment = try row("ReportEnrollment")
        for key in ProviderCapabilityKey.allCases { #expect(hello.contains("`\(key.rawValue)` \(key.signature)")) }
        for result in AttemptResult.allCases { #expect(attempt.contains("`\(result.rawValue)`")) }
        for reason in RetryReason.allCases { #expect(attempt.contains("`\(reason.rawValue)`")) }
        for report in EnrollmentReport.allCases { #expect(enrollment.contains("`\(report.rawValue)`")) }
    }

    /// Each value appears, as a word, in the doc string of the interface element that starts with `marker`.
    private func expectDocumented(_ values: [String], in interface: String, after marker: String,
                                  sourceLocation: SourceLocation = #_sourceLocation) throws {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("dbus/org.localauth.LocalAuthentication1.\(interface).xml")
        let xml = try String(contentsOf: file, encoding: .utf8)
        let start = try #require(xml.range(of: marker), "\(marker) not in \(file.lastPathComponent)", sourceLocation: sourceLocation)
        let docString = try #require(xml[start.upperBound...].range(of: #"value=("[^"]*"|'[^']*')"#, options: .regularExpression),
                                     sourceLocation: sourceLocation)
        let words = Set(xml[docString].split(whereSeparator: { !$0.isLetter && $0 != "-" }).map(String.init))
        for value in values {
            #expect(words.contains(value), "\(value) is not documented for \(marker)", sourceLocation: sourceLocation)
        }
    }
}
