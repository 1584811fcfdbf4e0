// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthAPI

/// Apple's `LAContext.domainState` (iOS 18, macOS 15): what the context knows of the user's
/// biometric enrollments and paired companions, as of its last `canEvaluatePolicy` or evaluation.
///
/// A snapshot: it does not change after it is read; read `domainState` again after the next check.
open class LADomainState: NSObject, @unchecked Sendable {
    private let biometryState: LADomainStateBiometry
    private let companionState: LADomainStateCompanion

    init(biometry: LADomainStateBiometry, companion: LADomainStateCompanion) {
        biometryState = biometry
        companionState = companion
    }

    /// The biometric part.
    open var biometry: LADomainStateBiometry { biometryState }

    /// The companion part; always empty here (localauthd has no companions).
    open var companion: LADomainStateCompanion { companionState }

    /// The hash of the whole state: the biometric hash here, since no companion contributes;
    /// nil when neither has one.
    open var stateHash: Data? {
        biometry.stateHash ?? companion.stateHash
    }
}

/// The biometric part of ``LADomainState``.
open class LADomainStateBiometry: NSObject, @unchecked Sendable {
    private let type: LABiometryType
    private let stateHashValue: Data?

    init(biometryType: LABiometryType, stateHash: Data?) {
        type = biometryType
        stateHashValue = stateHash
    }

    /// The sensor localauthd would use (the context's `biometryType`).
    open var biometryType: LABiometryType { type }

    /// 32 bytes that change whenever the user's enrollments change (the context's
    /// `evaluatedPolicyDomainState`); nil until a biometric `canEvaluatePolicy` or a biometric
    /// evaluation succeeds, as `evaluatedPolicyDomainState`.
    open var stateHash: Data? { stateHashValue }
}

/// The companion part of ``LADomainState``: localauthd pairs no companion devices.
open class LADomainStateCompanion: NSObject, @unchecked Sendable {
    /// Always empty.
    open var availableCompanionTypes: Set<LACompanionType> { [] }

    /// nil: Apple's value when no companion is paired.
    open var stateHash: Data? { nil }

    /// nil for every type: none is paired.
    open func stateHash(for companionType: LACompanionType) -> Data? { nil }
}
