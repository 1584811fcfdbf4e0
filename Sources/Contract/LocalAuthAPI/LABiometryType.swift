// SPDX-License-Identifier: Apache-2.0
/// The biometric hardware a context would use, with Apple's raw values (the `BiometryType`
/// property of a context).
public enum LABiometryType: Int, Sendable, Hashable, CaseIterable {
    case none = 0
    /// A fingerprint sensor.
    case touchID = 1
    /// A face sensor.
    case faceID = 2
    /// Apple's iris sensor. Declared so code written for Apple platforms builds; localauthd never reports it.
    case opticID = 4

    @available(*, deprecated, renamed: "none")
    public static var typeNone: LABiometryType { .none }

    /// Apple's name before iOS 11.2.
    @available(*, deprecated, renamed: "none")
    public static var LABiometryNone: LABiometryType { .none }
}
