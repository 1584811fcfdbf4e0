// SPDX-License-Identifier: Apache-2.0
/// At most ``maximumPerMinute`` saves and removals of one user's rights in any 60 seconds (a
/// sliding window on the boot clock), so no caller can wear the disk out with rewrites.
public struct RightChangeLimiter: Sendable, Hashable {
    public static let maximumPerMinute = 30
    /// Boot-clock seconds of the recent changes, oldest first; at most ``maximumPerMinute``.
    private var recent: [Double] = []
    private var boot: String?

    public init() {}

    /// Counts one change at `now`, or throws limitsExceeded saying when to retry.
    public mutating func take(at now: BootTime) throws(LocalAuthError) {
        if boot != now.boot { recent = [] }
        boot = now.boot
        recent.removeAll { now.seconds - $0 >= 60 }
        guard recent.count < Self.maximumPerMinute else {
            let wait = Int((recent[0] + 60 - now.seconds).rounded(.up))
            throw LocalAuthError(.limitsExceeded, "Too many saves and removals of rights in a minute (at most \(Self.maximumPerMinute)); try again in \(max(wait, 1)) s.")
        }
        recent.append(now.seconds)
    }
}
