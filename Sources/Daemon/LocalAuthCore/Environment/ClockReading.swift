// SPDX-License-Identifier: Apache-2.0
/// "Now" on both of the engine's clocks.
public struct ClockReading: Sendable, Hashable {
    public var wall: UnixTime
    public var uptime: BootTime

    public init(wall: UnixTime, uptime: BootTime) {
        self.wall = wall
        self.uptime = uptime
    }
}
