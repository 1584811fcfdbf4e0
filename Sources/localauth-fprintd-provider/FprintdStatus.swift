// SPDX-License-Identifier: Apache-2.0

/// What one fprintd `VerifyStatus` result means for the provider protocol.
///
/// | fprintd                       | reported to localauthd          |
/// |-------------------------------|---------------------------------|
/// | verify-match                  | match (the finger's name)       |
/// | verify-no-match               | no-match (counted by localauthd)|
/// | verify-swipe-too-short        | retry too-short                 |
/// | verify-finger-not-centered    | retry not-centered              |
/// | verify-remove-and-retry       | retry remove-and-retry          |
/// | verify-retry-scan             | retry remove-and-retry (1)      |
/// | verify-disconnected           | disconnected                    |
/// | verify-unknown-error, other   | disconnected (2)                |
///
/// (1) libfprint's "general" retry: the scan was too poor to use. The protocol has no reason for
/// it; remove-and-retry is what the person should do, so that is what they are told.
/// (2) fprintd ends the verification with verify-unknown-error when the reader fails or is
/// unplugged mid-scan (libfprint's virtual device does exactly that on UNPLUG). The reading did not
/// happen, so it is never a no-match; the evaluation ends as if the sensor went away, and the
/// provider then reports whether a reader is still there.
enum VerifyOutcome: Equatable, Sendable {
    case match
    case noMatch
    case retry(reason: String)
    case disconnected

    init(fprintdResult result: String) {
        switch result {
        case "verify-match": self = .match
        case "verify-no-match": self = .noMatch
        case "verify-swipe-too-short": self = .retry(reason: "too-short")
        case "verify-finger-not-centered": self = .retry(reason: "not-centered")
        case "verify-remove-and-retry", "verify-retry-scan": self = .retry(reason: "remove-and-retry")
        default: self = .disconnected
        }
    }

    /// The retry reasons this provider reports (Hello's RetryReasons).
    static let retryReasons = ["too-short", "not-centered", "remove-and-retry"]
}

/// What one fprintd `EnrollStatus` result means for the provider protocol.
///
/// enroll-stage-passed → stage-passed; enroll-completed → completed (the template id is the finger
/// name); enroll-swipe-too-short / -finger-not-centered / -remove-and-retry / -retry-scan → retry
/// with the same reasons as verification; enroll-data-full → failed data-full; enroll-duplicate →
/// failed duplicate (the finger is already enrolled, maybe as another finger); enroll-disconnected →
/// failed disconnected; enroll-failed and anything else → failed with fprintd's word minus "enroll-".
enum EnrollOutcome: Equatable, Sendable {
    case stagePassed
    case retry(reason: String)
    case completed
    case failed(reason: String)

    init(fprintdResult result: String) {
        switch result {
        case "enroll-stage-passed": self = .stagePassed
        case "enroll-completed": self = .completed
        case "enroll-swipe-too-short": self = .retry(reason: "too-short")
        case "enroll-finger-not-centered": self = .retry(reason: "not-centered")
        case "enroll-remove-and-retry", "enroll-retry-scan": self = .retry(reason: "remove-and-retry")
        case "enroll-data-full": self = .failed(reason: "data-full")
        case "enroll-duplicate": self = .failed(reason: "duplicate")
        case "enroll-disconnected": self = .failed(reason: "disconnected")
        default:
            let word = result.hasPrefix("enroll-") ? String(result.dropFirst("enroll-".count)) : result
            self = .failed(reason: word.isEmpty || !word.allSatisfy { $0.isASCII && ($0.isLetter || $0 == "-") } ? "failed" : word)
        }
    }
}
