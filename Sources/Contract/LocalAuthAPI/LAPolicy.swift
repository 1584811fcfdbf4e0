// SPDX-License-Identifier: Apache-2.0
/// What an evaluation must establish, with Apple's names and raw values (the `policy` argument of
/// `Context.Evaluate`, the `Policy` key of an agent request).
///
/// As in Apple's framework, `deviceOwnerAuthenticationWithWatch` and
/// `deviceOwnerAuthenticationWithBiometricsOrWatch` are older names of the companion policies 3 and 4.
/// No companion device (Apple Watch) exists on Linux: the companion and wrist-detection policies
/// always fail with ``LAErrorCode/companionNotAvailable``.
public enum LAPolicy: Int, Sendable, Hashable, CaseIterable {
    /// A biometric match (fingerprint or face).
    case deviceOwnerAuthenticationWithBiometrics = 1
    /// A biometric match or the device passcode.
    case deviceOwnerAuthentication = 2
    /// A paired companion device. localauthd has none: always `companionNotAvailable`.
    case deviceOwnerAuthenticationWithCompanion = 3
    /// Biometry or a companion; here exactly as `deviceOwnerAuthenticationWithBiometrics`.
    case deviceOwnerAuthenticationWithBiometricsOrCompanion = 4
    /// A watch on the user's wrist. localauthd has none: always `companionNotAvailable`.
    case deviceOwnerAuthenticationWithWristDetection = 5

    @available(*, deprecated, renamed: "deviceOwnerAuthenticationWithCompanion")
    public static var deviceOwnerAuthenticationWithWatch: LAPolicy { .deviceOwnerAuthenticationWithCompanion }

    @available(*, deprecated, renamed: "deviceOwnerAuthenticationWithBiometricsOrCompanion")
    public static var deviceOwnerAuthenticationWithBiometricsOrWatch: LAPolicy { .deviceOwnerAuthenticationWithBiometricsOrCompanion }
}

extension LAPolicy {
    /// Why `rawValue` is refused as a policy: any value but 1…5.
    public static func unknown(_ rawValue: Int) -> String {
        "Unknown policy \(rawValue): use 1 (biometrics), 2 (device owner: biometrics or passcode), 3, 4 or 5."
    }
}
