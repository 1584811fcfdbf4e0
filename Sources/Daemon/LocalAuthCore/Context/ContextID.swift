// SPDX-License-Identifier: Apache-2.0
/// A context's number: counts up from 1 and is never reused while the engine runs.
public struct ContextID: Hashable, Sendable, Comparable, CustomStringConvertible {
    public let rawValue: UInt64

    public init(_ rawValue: UInt64) { self.rawValue = rawValue }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
    public var description: String { "\(rawValue)" }

    /// The hash the engine's tables use (a cycle looks contexts up ~40 times): a 64-bit mix of the
    /// number and the table's seed (splitmix64's finalizer) instead of SipHash, ~10 instructions
    /// instead of ~200. The keys need no protection against chosen collisions: the daemon draws
    /// every context number at random (``ContextTable/newID(drawing:)``), no client picks one.
    public func _rawHashValue(seed: Int) -> Int {
        var x = rawValue ^ UInt64(UInt(bitPattern: seed))
        x = (x ^ (x >> 30)) &* 0xBF58_476D_1CE4_E5B9
        x = (x ^ (x >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int(truncatingIfNeeded: x ^ (x >> 31))
    }
}

/// A client connection, as the bus names it (its unique name, `:1.42`).
public struct ClientID: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String

    public init(_ rawValue: String) { self.rawValue = rawValue }

    public var description: String { rawValue }
}

/// Who is asking, as established by the transport (the bus), never by an argument.
public struct Caller: Hashable, Sendable {
    public let client: ClientID
    public let uid: UInt32
    /// The client's process id, for audit entries; nil when the transport cannot tell.
    public let pid: UInt32?

    public init(client: ClientID, uid: UInt32, pid: UInt32? = nil) {
        self.client = client
        self.uid = uid
        self.pid = pid
    }

    /// Root: passes every ``PolicyEngine/authorize(_:caller:)`` without asking, and may use the
    /// contexts kept for logins and sudo (``Configuration/rootReservedContexts``).
    public var isPrivileged: Bool { uid == 0 }
}
