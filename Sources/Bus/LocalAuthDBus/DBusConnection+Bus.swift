// SPDX-License-Identifier: Apache-2.0
/// Calls to the bus driver (`org.freedesktop.DBus`): names, credentials, name owners.
extension DBusConnection {
    /// How `requestName` behaves when the name is taken (`RequestName` flags).
    public struct NameFlags: OptionSet, Sendable {
        public let rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }
        public static let allowReplacement = NameFlags(rawValue: 1)
        public static let replaceExisting = NameFlags(rawValue: 2)
        public static let doNotQueue = NameFlags(rawValue: 4)
    }

    /// Takes ownership of a well-known name, or throws.
    ///
    /// Succeeds only if this connection is now the primary owner (or already was). Otherwise
    /// throws `Failed` saying who has it, or `AccessDenied` if the bus policy forbids owning it.
    /// Without `.doNotQueue` a queued request stays queued even though this throws.
    public func requestName(_ name: String, flags: NameFlags = [.doNotQueue]) async throws {
        try DBusSyntax.requireBusName(name)
        let reply = try await callBus("RequestName", [.string(name), .uint32(flags.rawValue)])
        switch reply.first?.uint32 {
        case 1, 4: return  // primary owner, already owner
        case 2: throw DBusError(.failed, "the bus name \(name) is owned by another connection; this request is queued")
        case 3: throw DBusError(.failed, "the bus name \(name) is owned by another connection")
        default: throw DBusError(.failed, "unexpected reply to RequestName(\(name)): \(reply)")
        }
    }

    /// Gives up a well-known name.
    public func releaseName(_ name: String) async throws {
        try DBusSyntax.requireBusName(name)
        _ = try await callBus("ReleaseName", [.string(name)])
    }

    /// The uid and pid of the process behind a bus name, usually a method call's sender.
    ///
    /// Throws if the bus does not know the name (the caller already left) or does not report a
    /// uid; a service must treat any failure as "deny".
    public nonisolated(nonsending) func credentials(of busName: String) async throws -> DBusCredentials {
        try DBusSyntax.requireBusName(busName)
        let reply = try await callBus("GetConnectionCredentials", [.string(busName)])
        guard let values = reply.first?.vardict else {
            throw DBusError(.failed, "GetConnectionCredentials(\(busName)) returned \(reply.first?.signature ?? "nothing"), not a{sv}")
        }
        guard let uid = values["UnixUserID"]?.uint32 else {
            throw DBusError(.accessDenied, "the bus reports no uid for \(busName)")
        }
        let groups = values["UnixGroupIDs"]?.arrayElements?.compactMap(\.uint32) ?? []
        return DBusCredentials(uid: uid, pid: values["ProcessID"]?.uint32, groups: groups)
    }

    /// Calls `handler` (on `queue`) whenever a bus name changes owner, or only `name` if given.
    /// A unique name whose `newOwner` is nil has left the bus.
    public func watchNameOwners(
        _ name: String? = nil, handler: @escaping @Sendable (DBusNameOwnerChange) -> Void
    ) async throws -> DBusSubscription {
        let rule = DBusMatchRule(
            sender: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            member: "NameOwnerChanged", arg0: name)
        return try await subscribe(rule) { signal in
            var reader = DBusArgumentReader(signal.arguments)
            guard let name = try? reader.string(), let old = try? reader.string(), let new = try? reader.string()
            else { return }
            handler(DBusNameOwnerChange(name: name, oldOwner: old.isEmpty ? nil : old, newOwner: new.isEmpty ? nil : new))
        }
    }

    private nonisolated(nonsending) func callBus(_ member: String, _ arguments: [DBusValue]) async throws -> [DBusValue] {
        try await call(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            member: member, arguments: arguments)
    }
}
