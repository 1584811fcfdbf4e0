// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI

/// How `status` and `can-evaluate` show a context's `BiometryType`.
extension LABiometryType {
    /// The `BiometryType` property's `u`; a value the daemon never sends reads as `none`.
    init(wireValue: UInt32) { self = LABiometryType(rawValue: Int(wireValue)) ?? .none }

    /// Apple's case name (`touchID`), as the JSON output spells it.
    var cliName: String {
        switch self {
        case .none: "none"
        case .touchID: "touchID"
        case .faceID: "faceID"
        case .opticID: "opticID"
        }
    }

    /// The backend modality behind this type; nil for none (and Apple's optic ID, never reported).
    var modality: BiometricModality? {
        switch self {
        case .none, .opticID: nil
        case .touchID: .fingerprint
        case .faceID: .face
        }
    }

    /// `simulated`: the sensor behind it is a built-in simulator, not hardware.
    func words(simulated: Bool) -> String {
        switch self {
        case .none: "none"
        case .touchID: simulated ? "Touch ID (simulator)" : "Touch ID (fingerprint)"
        case .faceID: simulated ? "Face ID (simulator)" : "Face ID (face)"
        case .opticID: "Optic ID"
        }
    }
}
