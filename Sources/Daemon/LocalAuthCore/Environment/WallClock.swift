// SPDX-License-Identifier: Apache-2.0
/// The source of "now" for every rule that involves time. Tests use a fake that they advance.
public protocol WallClock: Sendable {
    func now() -> UnixTime
    /// Time since this boot, on a clock that setting the date cannot move and that keeps counting
    /// while the machine sleeps; what running passcode delays are measured on.
    func uptime() -> BootTime
}

extension WallClock {
    /// Both readings at once.
    func reading() -> ClockReading { ClockReading(wall: now(), uptime: uptime()) }
}

