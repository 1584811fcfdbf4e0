// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI

/// What the CLI makes of each error of the contract: a fixed exit status and the message a person
/// sees (after the feedback table of Apple's LocalAuthentication guides).
extension LocalAuthErrorName {
    /// The same in every command: 1…11 are Apple's codes negated, then 12 and 13, and 14 for an
    /// invalidated right; a missing right is 66; the other errors that are not LAErrors share the
    /// statuses of their kind.
    var exitStatus: Int32 {
        switch self {
        case .authenticationFailed: 1
        case .userCancel: 2
        case .userFallback: 3
        case .systemCancel: 4
        case .passcodeNotSet: 5
        case .biometryNotAvailable: 6
        case .biometryNotEnrolled: 7
        case .biometryLockout: 8
        case .appCancel: 9
        case .invalidContext: 10
        case .companionNotAvailable: 11
        case .notInteractive: 12
        case .passcodeLockout: 13
        case .busy: ExitStatus.temporary
        case .notEvaluating, .rightNotAuthorized: ExitStatus.refused
        case .rightNotFound: ExitStatus.rightNotFound
        case .rightInvalidated: ExitStatus.rightInvalidated
        }
    }

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
        case .busy, .notEvaluating: daemonMessage
        case .rightNotFound: (daemonMessage.isEmpty ? "No such right." : daemonMessage) + " See your rights with: localauth rights list"
        case .rightNotAuthorized: (daemonMessage.isEmpty ? "The right is not authorized." : daemonMessage) + " Authorize it first (the rights commands do)."
        case .rightInvalidated:
            "The enrolled biometry changed since this right was saved (biometry-current-set): it can no longer be used. Remove it and save it again."
        }
    }
}
