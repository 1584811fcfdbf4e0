// SPDX-License-Identifier: Apache-2.0
/// Why a biometric read could not be judged: a provider's `retry` attempt detail, the simulator's
/// `FingerprintRetry` argument, and the `Advice` of a `retry` prompt. Fingerprint names are fprintd's.
public enum RetryReason: String, Sendable, CaseIterable, Hashable {
    case tooShort = "too-short"
    case notCentered = "not-centered"
    case removeAndRetry = "remove-and-retry"
    case tooFast = "too-fast"
    /// No face in view.
    case noFace = "no-face"
    /// A matching face that was not looking at the screen while require-attention is on.
    case attentionRequired = "attention-required"

    /// The reasons a fingerprint reader gives.
    public static let fingerprint: [RetryReason] = [.tooShort, .notCentered, .removeAndRetry, .tooFast]
}
