// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI

/// The LAErrors the daemon replies with, each with its fixed exit status and the message a person
/// sees (after the feedback table of Apple's LocalAuthentication guides).
enum LAErrorName: String, CaseIterable, Sendable {
    case authenticationFailed = "AuthenticationFailed"
    case userCancel = "UserCancel"
    case userFallback = "UserFallback"
    case systemCancel = "SystemCancel"
    case passcodeNotSet = "PasscodeNotSet"
    case biometryNotAvailable = "BiometryNotAvailable"
    case biometryNotEnrolled = "BiometryNotEnrolled"
    case biometryLockout = "BiometryLockout"
    case appCancel = "AppCancel"
    case invalidContext = "InvalidContext"
    case companionNotAvailable = "CompanionNotAvailable"
    case notInteractive = "NotInteractive"
    case passcodeLockout = "PasscodeLockout"

    static let dbusPrefix = LocalAuthBusNames.errorPrefix

    /// The error a D-Bus error name stands for, or nil for anything that is not an LAError.
    init?(dbusName: String) {
        guard dbusName.hasPrefix(Self.dbusPrefix) else { return nil }
        self.init(rawValue: String(dbusName.dropFirst(Self.dbusPrefix.count)))
    }

    /// Apple's `LAError.Code` value (`passcodeLockout` is this project's extension).
    var code: Int {
        switch self {
        case .authenticationFailed: -1
        case .userCancel: -2
        case .userFallback: -3
        case .systemCancel: -4
        case .passcodeNotSet: -5
        case .biometryNotAvailable: -6
        case .biometryNotEnrolled: -7
        case .biometryLockout: -8
        case .appCancel: -9
        case .invalidContext: -10
        case .companionNotAvailable: -11
        case .notInteractive: -1004
        case .passcodeLockout: -9001
        }
    }

    /// The same in every command: 1…11 are Apple's codes negated, then 12 and 13.
    var exitStatus: Int32 {
        switch self {
        case .notInteractive: 12
        case .passcodeLockout: 13
        default: Int32(-code)
        }
    }

    /// The Swift spelling, as in `LAError.Code.biometryLockout`; used in `--json` output.
    var swiftName: String { rawValue.prefix(1).lowercased() + rawValue.dropFirst() }

    /// What to tell a person. The daemon's own message is used where it carries facts the table
    /// cannot know (the time until the next passcode try).
    func feedback(daemonMessage: String) -> String {
        switch self {
        case .authenticationFailed: "Authentication failed: the passcode, finger or face was not recognized."
        case .userCancel: "Cancelled."
        case .userFallback: "Fallback chosen: authenticate another way (for example: localauth evaluate --policy owner)."
        case .systemCancel: "The system cancelled the request (it timed out or localauthd stopped); try again."
        case .passcodeNotSet: "No passcode is set. Set one with: localauth passcode set"
        case .biometryNotAvailable: "No fingerprint or face sensor is available; connect one, or use the passcode (--policy owner)."
        case .biometryNotEnrolled: "No fingerprint or face is enrolled. Enroll one with: localauth enroll fingerprint right-index-finger"
        case .biometryLockout: "Biometry locked after too many failed attempts: enter your passcode (localauth evaluate --policy owner) to unlock it."
        case .appCancel: "The application cancelled the request."
        case .invalidContext: "The authentication context was invalidated; start again."
        case .companionNotAvailable: "No companion device is available (companion devices are not supported on this system)."
        case .notInteractive: "Authentication needs interaction, which --no-interaction forbids."
        case .passcodeLockout: daemonMessage.isEmpty ? "Passcode locked after too many wrong attempts." : daemonMessage
        }
    }
}
