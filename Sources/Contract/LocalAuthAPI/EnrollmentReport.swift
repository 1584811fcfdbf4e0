// SPDX-License-Identifier: Apache-2.0
/// How a provider's enrollment went (`ProviderHost.ReportEnrollment`'s `status`, protocol 1).
public enum EnrollmentReport: String, Sendable, CaseIterable, Hashable {
    /// One more capture taken.
    case stagePassed = "stage-passed"
    /// A capture could not be used; the detail is a ``RetryReason``.
    case retry
    /// The template is made; the detail names it.
    case completed
    /// The enrollment ended without a template; the detail says why.
    case failed
}
