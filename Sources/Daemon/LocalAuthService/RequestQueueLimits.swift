// SPDX-License-Identifier: Apache-2.0
import LocalAuthCore

/// How much unfinished work one client connection, and one uid over all its connections, may
/// have queued in the daemon (`max_queued_*` in the configuration). Fixed at start-up.
struct RequestQueueLimits: Sendable {
    /// A bound on requests and on their bytes.
    struct Bound: Sendable, CustomStringConvertible {
        let requests: Int
        let bytes: Int

        func admits(_ usage: Usage) -> Bool { usage.requests <= requests && usage.bytes <= bytes }

        /// Back to half the bound: where an episode of refusals ends.
        func hasDrained(_ usage: Usage) -> Bool { usage.requests <= requests / 2 && usage.bytes <= bytes / 2 }

        var description: String { "\(requests) requests / \(bytes) bytes" }
    }

    /// Requests queued and their bytes.
    struct Usage: Sendable {
        var requests = 0
        var bytes = 0

        static func + (lhs: Usage, rhs: Usage) -> Usage { Usage(requests: lhs.requests + rhs.requests, bytes: lhs.bytes + rhs.bytes) }
        static func += (lhs: inout Usage, rhs: Usage) { lhs = lhs + rhs }
        static func -= (lhs: inout Usage, rhs: Usage) { lhs = Usage(requests: lhs.requests - rhs.requests, bytes: lhs.bytes - rhs.bytes) }
    }

    let perClient: Bound
    let perUser: Bound

    init(_ configuration: Configuration) {
        perClient = Bound(requests: configuration.maxQueuedRequestsPerClient, bytes: configuration.maxQueuedBytesPerClient)
        perUser = Bound(requests: configuration.maxQueuedRequestsPerUser, bytes: configuration.maxQueuedBytesPerUser)
    }

    init(perClient: Bound, perUser: Bound) {
        self.perClient = perClient
        self.perUser = perUser
    }
}
