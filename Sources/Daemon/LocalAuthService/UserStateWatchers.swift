// SPDX-License-Identifier: Apache-2.0
import LocalAuthCore
import LocalAuthDBus

/// Which connections follow which user's state, and what each user was last told; owned by
/// ``BusObserver`` behind its mutex. A connection follows only its own uid.
struct UserStateWatchers {
    private var uidByClient: [ClientID: UInt32] = [:]
    /// The state last sent per watched uid; dropped with the uid's last watcher, so a later
    /// watcher is never denied a change because an earlier one saw the same value.
    private var lastSent: [UInt32: DBusValue] = [:]

    mutating func add(_ client: ClientID, uid: UInt32) {
        uidByClient[client] = uid
    }

    mutating func remove(_ client: ClientID) {
        guard let uid = uidByClient.removeValue(forKey: client) else { return }
        if !uidByClient.values.contains(uid) { lastSent[uid] = nil }
    }

    /// The connections to tell that `uid`'s state is now `value`; none when nobody follows it or
    /// it is what they were last told.
    mutating func recipients(of uid: UInt32, _ value: DBusValue) -> [ClientID] {
        let clients = uidByClient.filter { $0.value == uid }.map(\.key)
        guard !clients.isEmpty, lastSent[uid] != value else { return [] }
        lastSent[uid] = value
        return clients
    }
}
