// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI

/// One evaluation of a policy on one context: a pure state machine.
///
/// It knows the per-evaluation rules (attempt limits, what each policy does when biometry ends,
/// fallback); the user-wide rules (consecutive failures, lockout, passcode checks) are the
/// ledger's, and the engine tells the machine their results through events. The engine performs
/// the returned action and derives sensor claims from ``wantedSensors``.
struct Evaluation: Sendable, Hashable {
    enum Phase: Sendable, Hashable {
        /// Listening on these sensors (a policy-2 evaluation also accepts the passcode).
        case biometry(BiometricModalitySet)
        /// Waiting for the passcode only (policy 2).
        case passcode
        case finished
    }

    enum Event: Sendable, Hashable {
        case matched(BiometricModality)
        /// A no-match, already counted in the ledger; `lockedOut` when that count locked biometry.
        case noMatch(BiometricModality, lockedOut: Bool)
        case retry(BiometricModality, RetryReason)
        case sensorLost(BiometricModality)
        /// Biometry was locked by another evaluation of the same user.
        case biometryLockedOut
        case fallback
        case passcodeAccepted
        case passcodeRejected
        /// The passcode is now locked until an administrator resets it.
        case passcodePermanentlyLocked
        /// Ended from outside: userCancel, appCancel or systemCancel.
        case ended(LAErrorCode)
    }

    enum Outcome: Sendable, Hashable {
        case success(EvaluationSuccess)
        case failure(LAErrorCode)
    }

    /// Something the user should be told.
    enum Notice: Sendable, Hashable {
        case noMatch(BiometricModality)
        case retry(RetryReason)
        case passcodeWanted(PasscodeReason)
        case passcodeWrong
    }

    enum Action: Sendable, Hashable {
        case none
        case notify(Notice)
        case finish(Outcome)
    }

    let kind: LAPolicy.Kind
    private let attemptLimits: ModalityMap<Int>
    private(set) var phase: Phase
    private(set) var noMatches = ModalityMap<Int>()

    /// Starts an evaluation that may use the `usable` sensors (available, enrolled, not locked out).
    /// Companion policies never get here: the engine refuses them first.
    static func start(kind: LAPolicy.Kind, usable: BiometricModalitySet,
                      attemptLimits: ModalityMap<Int>) -> (Evaluation, Action) {
        var evaluation = Evaluation(kind: kind, attemptLimits: attemptLimits, phase: .biometry(usable))
        guard usable.isEmpty else { return (evaluation, .none) }
        let action = evaluation.leaveBiometry(failing: .biometryNotAvailable, passcode: .noBiometry)
        return (evaluation, action)
    }

    private init(kind: LAPolicy.Kind, attemptLimits: ModalityMap<Int>, phase: Phase) {
        self.kind = kind
        self.attemptLimits = attemptLimits
        self.phase = phase
    }

    /// The sensors this evaluation wants to listen on now.
    var wantedSensors: BiometricModalitySet {
        if case .biometry(let sensors) = phase { return sensors }
        return []
    }

    /// Whether a submitted passcode is considered now.
    var acceptsPasscode: Bool {
        kind == .biometricsOrPasscode && phase != .finished
    }

    var isFinished: Bool { phase == .finished }

    mutating func handle(_ event: Event) -> Action {
        guard phase != .finished else { return .none }
        switch event {
        case .matched(let modality):
            guard wantedSensors.contains(modality) else { return .none }
            return finish(.success(.biometricMatch(modality)))

        case .noMatch(let modality, let lockedOut):
            guard wantedSensors.contains(modality) else { return .none }
            noMatches[modality, default: 0] += 1
            if lockedOut {
                return leaveBiometry(failing: .biometryLockout, passcode: .lockedOut)
            }
            if noMatches[modality, default: 0] >= attemptLimits[modality, default: 1] {
                return leaveBiometry(failing: .authenticationFailed, passcode: .attemptsExhausted)
            }
            return .notify(.noMatch(modality))

        case .retry(let modality, let reason):
            guard wantedSensors.contains(modality) else { return .none }
            return .notify(.retry(reason))

        case .sensorLost(let modality):
            guard case .biometry(var sensors) = phase, sensors.remove(modality) != nil else { return .none }
            guard sensors.isEmpty else {
                phase = .biometry(sensors)
                return .none
            }
            return leaveBiometry(failing: .biometryNotAvailable, passcode: .sensorLost)

        case .biometryLockedOut:
            guard case .biometry = phase else { return .none }
            return leaveBiometry(failing: .biometryLockout, passcode: .lockedOut)

        case .fallback:
            switch kind {
            case .biometricsOnly, .companion:
                return finish(.failure(.userFallback))
            case .biometricsOrPasscode:
                guard case .biometry = phase else { return .none }
                return leaveBiometry(failing: .userFallback, passcode: .fallback)
            }

        case .passcodeAccepted:
            guard acceptsPasscode else { return .none }
            return finish(.success(.passcode))

        case .passcodeRejected:
            guard acceptsPasscode else { return .none }
            return .notify(.passcodeWrong)

        case .passcodePermanentlyLocked:
            guard acceptsPasscode else { return .none }
            return finish(.failure(.passcodeLockout))

        case .ended(let code):
            return finish(.failure(code))
        }
    }

    /// Biometry is over for this evaluation: policy 1 ends with `code`, policy 2 asks for the passcode.
    private mutating func leaveBiometry(failing code: LAErrorCode, passcode reason: PasscodeReason) -> Action {
        switch kind {
        case .biometricsOnly, .companion:
            return finish(.failure(code))
        case .biometricsOrPasscode:
            phase = .passcode
            return .notify(.passcodeWanted(reason))
        }
    }

    private mutating func finish(_ outcome: Outcome) -> Action {
        phase = .finished
        return .finish(outcome)
    }
}

/// How an evaluation succeeded.
public enum EvaluationSuccess: Sendable, Hashable, CustomStringConvertible {
    case biometricMatch(BiometricModality)
    case passcode
    /// Satisfied by a recent unlock match inside the allowable reuse duration; no prompt shown.
    case reuse
    /// Satisfied by an earlier successful evaluation of the same context; no prompt shown.
    case earlierSuccess

    /// Every way to succeed.
    public static let all: [EvaluationSuccess] = BiometricModality.allCases.map(biometricMatch) + [.passcode, .reuse, .earlierSuccess]

    public var description: String {
        switch self {
        case .biometricMatch(.fingerprint): "fingerprint match"
        case .biometricMatch(.face): "face match"
        case .passcode: "passcode"
        case .reuse: "reuse of a recent unlock"
        case .earlierSuccess: "an earlier success of this context"
        }
    }
}
