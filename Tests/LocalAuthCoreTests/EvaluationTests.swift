// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI
@testable import LocalAuthCore
import Testing

/// The per-evaluation state machine on its own: no engine, no threads.
@Suite("Evaluation state machine", .timeLimit(.minutes(1)))
struct EvaluationTests {
    let limits: ModalityMap<Int> = [.fingerprint: 3, .face: 2]

    func start(_ kind: LAPolicy.Kind, _ usable: BiometricModalitySet = [.fingerprint, .face]) -> (Evaluation, Evaluation.Action) {
        Evaluation.start(kind: kind, usable: usable, attemptLimits: limits)
    }

    @Test func perEvaluationLimitThreeFingerprintNoMatchesEndsPolicyOne() {
        var (machine, _) = start(.biometricsOnly)
        #expect(machine.handle(.noMatch(.fingerprint, lockedOut: false)) == .notify(.noMatch(.fingerprint)))
        #expect(machine.handle(.noMatch(.fingerprint, lockedOut: false)) == .notify(.noMatch(.fingerprint)))
        #expect(machine.handle(.noMatch(.fingerprint, lockedOut: false)) == .finish(.failure(.authenticationFailed)))
        #expect(machine.isFinished)
    }

    @Test func perEvaluationLimitTwoFaceNoMatchesMovesPolicyTwoToPasscode() {
        var (machine, _) = start(.biometricsOrPasscode)
        #expect(machine.handle(.noMatch(.face, lockedOut: false)) == .notify(.noMatch(.face)))
        #expect(machine.handle(.noMatch(.face, lockedOut: false)) == .notify(.passcodeWanted(.attemptsExhausted)))
        #expect(machine.phase == .passcode)
        #expect(machine.wantedSensors.isEmpty)
        #expect(machine.acceptsPasscode)
    }

    @Test func limitsAreCountedPerModality() {
        var (machine, _) = start(.biometricsOnly)
        _ = machine.handle(.noMatch(.face, lockedOut: false))
        _ = machine.handle(.noMatch(.fingerprint, lockedOut: false))
        _ = machine.handle(.noMatch(.fingerprint, lockedOut: false))
        #expect(!machine.isFinished)
        #expect(machine.handle(.noMatch(.face, lockedOut: false)) == .finish(.failure(.authenticationFailed)))
    }

    @Test func lockoutEndsPolicyOneAndMovesPolicyTwoToPasscode() {
        var (one, _) = start(.biometricsOnly)
        #expect(one.handle(.noMatch(.face, lockedOut: true)) == .finish(.failure(.biometryLockout)))
        var (two, _) = start(.biometricsOrPasscode)
        #expect(two.handle(.biometryLockedOut) == .notify(.passcodeWanted(.lockedOut)))
    }

    @Test func retriesAreNeverCounted() {
        var (machine, _) = start(.biometricsOnly, [.fingerprint])
        for reason in [RetryReason.tooShort, .notCentered, .removeAndRetry, .tooFast, .tooShort, .tooFast] {
            #expect(machine.handle(.retry(.fingerprint, reason)) == .notify(.retry(reason)))
        }
        #expect(machine.noMatches.isEmpty)
        #expect(machine.handle(.matched(.fingerprint)) == .finish(.success(.biometricMatch(.fingerprint))))
    }

    @Test func fallbackEndsPolicyOneWithUserFallbackAndMovesPolicyTwoToPasscode() {
        var (one, _) = start(.biometricsOnly)
        #expect(one.handle(.fallback) == .finish(.failure(.userFallback)))
        var (two, _) = start(.biometricsOrPasscode)
        #expect(two.handle(.fallback) == .notify(.passcodeWanted(.fallback)))
        #expect(two.handle(.fallback) == Evaluation.Action.none)
    }

    @Test func losingTheLastSensorEndsPolicyOneWithBiometryNotAvailable() {
        var (one, _) = start(.biometricsOnly)
        #expect(one.handle(.sensorLost(.face)) == Evaluation.Action.none)
        #expect(one.wantedSensors == [.fingerprint])
        #expect(one.handle(.sensorLost(.fingerprint)) == .finish(.failure(.biometryNotAvailable)))
        var (two, _) = start(.biometricsOrPasscode, [.face])
        #expect(two.handle(.sensorLost(.face)) == .notify(.passcodeWanted(.sensorLost)))
    }

    @Test func policyTwoWithoutUsableBiometryStartsInThePasscodePhase() {
        let (machine, action) = start(.biometricsOrPasscode, [])
        #expect(machine.phase == .passcode)
        #expect(action == .notify(.passcodeWanted(.noBiometry)))
    }

    @Test func passcodeIsAcceptedDuringTheBiometricPhaseOfPolicyTwoOnly() {
        var (two, _) = start(.biometricsOrPasscode)
        #expect(two.acceptsPasscode)
        #expect(two.handle(.passcodeRejected) == .notify(.passcodeWrong))
        #expect(two.handle(.passcodeAccepted) == .finish(.success(.passcode)))
        var (one, _) = start(.biometricsOnly)
        #expect(!one.acceptsPasscode)
        #expect(one.handle(.passcodeAccepted) == Evaluation.Action.none)
    }

    @Test func eventsAfterTheEndChangeNothing() {
        var (machine, _) = start(.biometricsOnly)
        _ = machine.handle(.ended(.userCancel))
        #expect(machine.handle(.matched(.face)) == Evaluation.Action.none)
        #expect(machine.handle(.ended(.appCancel)) == Evaluation.Action.none)
    }
}
