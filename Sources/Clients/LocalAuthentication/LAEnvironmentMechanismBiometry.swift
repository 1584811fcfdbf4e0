// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthAPI

/// Apple's `LAEnvironment.MechanismBiometry`: the user's biometry in localauthd — the face
/// sensor when it has the user's enrollments or no fingerprint sensor does, else the fingerprint sensor.
open class LAEnvironmentMechanismBiometry: LAEnvironmentMechanism, @unchecked Sendable {
    private let snapshot: EnvironmentSnapshot.Biometry

    init(_ snapshot: EnvironmentSnapshot.Biometry) {
        self.snapshot = snapshot
        let face = snapshot.type == .faceID
        super.init(isUsable: snapshot.isUsable, localizedName: face ? "Face ID" : "Touch ID", iconSystemName: face ? "faceid" : "touchid")
    }

    /// The sensor's kind, whether or not it can be used now.
    open var biometryType: LABiometryType { snapshot.type }

    /// Whether the user enrolled a face (or finger) for this sensor.
    open var isEnrolled: Bool { snapshot.isEnrolled }

    /// Whether biometry is locked after too many failed attempts (the passcode unlocks it).
    open var isLockedOut: Bool { snapshot.isLockedOut }

    /// 32 bytes that change whenever the user's enrollments change (as `LAContext`'s
    /// `evaluatedPolicyDomainState`); nil while nothing is enrolled.
    open var stateHash: Data { snapshot.stateHash ?? Data() }

    /// Whether the sensor is present in the configuration but not reachable now (its provider
    /// or device is gone).
    open var builtInSensorInaccessible: Bool { snapshot.sensorInaccessible }
}
