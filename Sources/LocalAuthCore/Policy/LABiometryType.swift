// SPDX-License-Identifier: Apache-2.0
/// The kind of biometric hardware a context reports, with Apple's raw values.
public enum LABiometryType: Int, Sendable, CaseIterable, Hashable {
    case none = 0
    case touchID = 1
    case faceID = 2
}
