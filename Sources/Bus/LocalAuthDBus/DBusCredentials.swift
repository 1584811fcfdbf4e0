// SPDX-License-Identifier: Apache-2.0
/// What the bus knows about a connection's process (`GetConnectionCredentials`).
public struct DBusCredentials: Sendable, Hashable {
    public let uid: UInt32
    /// Absent if the bus could not find out (e.g. a connection over TCP).
    public let pid: UInt32?
    /// Supplementary and primary group ids, when the bus reports them (dbus ≥ 1.13).
    public let groups: [UInt32]

    public init(uid: UInt32, pid: UInt32?, groups: [UInt32] = []) {
        self.uid = uid
        self.pid = pid
        self.groups = groups
    }
}
