// SPDX-License-Identifier: Apache-2.0
/// The capabilities a provider announces in `Hello`'s `a{sv}` (docs/providers.md, Messages), each
/// with its value's signature. Absent keys take their defaults; a key of another type is refused.
public enum ProviderCapabilityKey: String, CaseIterable, Sendable {
    case providerVersion = "ProviderVersion"
    case description = "Description"
    case available = "Available"
    /// Whether it can tell which template matched without being told the user's.
    case identify = "Identify"
    /// Captures one enrollment takes; 0: it cannot enroll.
    case enrollStages = "EnrollStages"
    /// Whether it can tell an attentive face from an inattentive one.
    case attention = "Attention"
    /// The ``RetryReason``s it may report.
    case retryReasons = "RetryReasons"

    public var signature: String {
        switch self {
        case .providerVersion, .description: "s"
        case .available, .identify, .attention: "b"
        case .enrollStages: "u"
        case .retryReasons: "as"
        }
    }
}
