// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI

/// What a prompt is about, structured, so an agent can render it in its own language.
public enum PromptDetail: Sendable, Hashable {
    case listening(BiometricModalitySet)
    case waiting(BiometricModalitySet)
    case noMatch(BiometricModality)
    case retry(RetryReason)
    /// The passcode is wanted, and why.
    case passcodeWanted(PasscodeReason)
    case passcodeWrong

    /// The machine-readable detail an agent receives as `Advice`.
    public var advice: String {
        switch self {
        case .listening, .waiting, .passcodeWrong: ""
        case .noMatch(let modality): modality.rawValue
        case .retry(let reason): reason.rawValue
        case .passcodeWanted(let why): why.rawValue
        }
    }

    public var sensors: BiometricModalitySet {
        switch self {
        case .listening(let sensors), .waiting(let sensors): sensors
        case .noMatch(let modality): [modality]
        case .retry, .passcodeWanted, .passcodeWrong: []
        }
    }
}
