// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI

/// What one fprintd `EnrollStatus` result means for the provider protocol.
///
/// enroll-stage-passed → stage-passed; enroll-completed → completed (the template id is the finger
/// name); enroll-swipe-too-short / -finger-not-centered / -remove-and-retry / -retry-scan → retry
/// with the same reasons as verification; enroll-data-full → failed data-full; enroll-duplicate →
/// failed duplicate (the finger is already enrolled, maybe as another finger); enroll-disconnected →
/// failed disconnected; enroll-failed and anything else → failed with fprintd's word minus "enroll-".
enum EnrollOutcome: Equatable, Sendable {
    case stagePassed
    case retry(reason: RetryReason)
    case completed
    case failed(reason: String)

    init(fprintdResult result: String) {
        switch result {
        case "enroll-stage-passed": self = .stagePassed
        case "enroll-completed": self = .completed
        case "enroll-swipe-too-short": self = .retry(reason: .tooShort)
        case "enroll-finger-not-centered": self = .retry(reason: .notCentered)
        case "enroll-remove-and-retry", "enroll-retry-scan": self = .retry(reason: .removeAndRetry)
        case "enroll-data-full": self = .failed(reason: "data-full")
        case "enroll-duplicate": self = .failed(reason: "duplicate")
        case "enroll-disconnected": self = .failed(reason: "disconnected")
        default:
            let word = result.hasPrefix("enroll-") ? String(result.dropFirst("enroll-".count)) : result
            self = .failed(reason: word.isEmpty || !word.allSatisfy { $0.isASCII && ($0.isLetter || $0 == "-") } ? "failed" : word)
        }
    }
}
