import Foundation

/// Apple's `LAContext.domainState` (iOS 18, macOS 15): what the context knows of the user's
/// biometric enrollments and paired companions, as of its last `canEvaluatePolicy` or evaluation.
///
/// A snapshot: it does not change after it is read; read `domainState` again after the next check.
open class LADomainState: NSObject, @unchecked Sendable {
    /// The biometric part.
    public let biometry: LADomainStateBiometry
    /// The companion part; always empty here (localauthd has no companions).
    public let companion: LADomainStateCompanion

    init(biometry: LADomainStateBiometry, companion: LADomainStateCompanion) {
        self.biometry = biometry
        self.companion = companion
    }

    /// The hash of the whole state: the biometric hash here, since no companion contributes;
    /// nil when neither has one.
    open var stateHash: Data? {
        biometry.stateHash ?? companion.stateHash
    }
}

/// The biometric part of ``LADomainState``.
open class LADomainStateBiometry: NSObject, @unchecked Sendable {
    /// The sensor localauthd would use (`biometryType` of the context).
    public let biometryType: LABiometryType
    /// 32 bytes that change whenever the user's enrollments change (the context's
    /// `evaluatedPolicyDomainState`); nil before a biometric `canEvaluatePolicy` succeeds or a
    /// biometric evaluation succeeds, as `evaluatedPolicyDomainState`.
    public let stateHash: Data?

    init(biometryType: LABiometryType, stateHash: Data?) {
        self.biometryType = biometryType
        self.stateHash = stateHash
    }
}

/// The companion part of ``LADomainState``: localauthd pairs no companion devices.
open class LADomainStateCompanion: NSObject, @unchecked Sendable {
    /// Always empty.
    public let availableCompanionTypes: Set<LACompanionType> = []

    /// nil: Apple's value when no companion is paired.
    open var stateHash: Data? { nil }

    /// nil for every type: none is paired.
    open func stateHash(for companionType: LACompanionType) -> Data? { nil }
}
