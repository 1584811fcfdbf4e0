// SPDX-License-Identifier: Apache-2.0
/// A change of a bus name's owner (`NameOwnerChanged`).
public struct DBusNameOwnerChange: Sendable, Hashable {
    public let name: String
    /// nil when the name was not owned before.
    public let oldOwner: String?
    /// nil when the name is no longer owned: for a unique name, its connection left the bus.
    public let newOwner: String?

    public init(name: String, oldOwner: String?, newOwner: String?) {
        self.name = name
        self.oldOwner = oldOwner
        self.newOwner = newOwner
    }
}
