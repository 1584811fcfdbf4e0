// SPDX-License-Identifier: Apache-2.0
/// Where a client sits relative to the person at the machine, as the login manager tells it.
/// Decides which evaluation a sensor serves first (see ``SensorArbiter``); a smaller value goes first.
public enum SessionStanding: Int, Sendable, Hashable, Comparable {
    /// The active session of a local seat: the person at the sensor.
    case foreground = 0
    /// No session information: the login manager is not running, or a process outside every
    /// session of a user who has none.
    case unknown = 1
    /// A local session in the background (another user is at the seat) or a remote one (ssh).
    case background = 2

    public static func < (lhs: SessionStanding, rhs: SessionStanding) -> Bool { lhs.rawValue < rhs.rawValue }
}
