// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI

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
    case retry(reason: RetryReason)
    case disconnected

    init(fprintdResult result: String) {
        switch result {
        case "verify-match": self = .match
        case "verify-no-match": self = .noMatch
        case "verify-swipe-too-short": self = .retry(reason: .tooShort)
        case "verify-finger-not-centered": self = .retry(reason: .notCentered)
        case "verify-remove-and-retry", "verify-retry-scan": self = .retry(reason: .removeAndRetry)
        default: self = .disconnected
        }
    }

    /// The retry reasons this provider reports (Hello's RetryReasons).
    static let retryReasons: [RetryReason] = [.tooShort, .notCentered, .removeAndRetry]
}
