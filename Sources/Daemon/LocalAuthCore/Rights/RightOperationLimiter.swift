// SPDX-License-Identifier: Apache-2.0
/// A token bucket on the boot clock: `capacity` operations at once, refilling `perSecond`.
/// Keeps one user's key and secret operations within bounds.
public struct RightOperationLimiter: Sendable, Hashable {
    /// Key and secret operations: 100 at once, 10 more each second.
    public static let operations = RightOperationLimiter(capacity: 100, perSecond: 10)

    public let capacity: Double
    public let perSecond: Double
    private var tokens: Double
    private var updated: BootTime?

    public init(capacity: Double, perSecond: Double) {
        self.capacity = capacity
        self.perSecond = perSecond
        tokens = capacity
    }

    /// Takes one token at `now`, or throws limitsExceeded saying when to retry; `what` names the
    /// operations in the message ("key and secret operations").
    public mutating func take(at now: BootTime, what: String) throws(LocalAuthError) {
        if let updated {
            let elapsed = max(0, now.seconds - updated.seconds)
            tokens = min(capacity, tokens + elapsed * perSecond)
        }
        updated = now
        guard tokens >= 1 else {
            let wait = Int(((1 - tokens) / perSecond).rounded(.up))
            throw LocalAuthError(.limitsExceeded, "Too many \(what) in a short time; try again in \(max(wait, 1)) s.")
        }
        tokens -= 1
    }
}
