// SPDX-License-Identifier: Apache-2.0
import Dispatch
import Glibc
import LocalAuthCore

/// Per-user state as JSON files under the state directory (coded by ``StateJSONEncoder`` and
/// ``StateJSONDecoder``, not Foundation, which the daemon does not link):
///
///     <state>/                      0700
///       installation-secret         0600  32 random bytes (domain-state key)
///       users/<uid>/                0700
///         ledger.json               0600  failure counts and locks
///         profile.json              0600  passcode hash, enrollments, settings
///         face-consent.json         0600  which apps may use the face sensor
///
/// Every write is atomic and durable (see ``AtomicFile``). Directories and files are reached
/// through ``StateDirectory`` descriptors, never by following a link, and only when the daemon's
/// uid owns them: a state directory it cannot trust stops the start, a user's file it cannot trust
/// is `.corrupt` (the user fails closed). Temporary files of writes a crash interrupted are removed
/// when the store opens. Immutable after init, so it may be used from any thread; callers
/// serialize writes per user (the engine's save turns do; saves come from any thread). Ledgers the engine submits are written
/// on the store's own writer queue (``LedgerWriter``: one fsync for every submission waiting).
public final class FileStateStore: StateStore, ConsentStore {
    public let directory: String
    private let root: StateDirectory
    private let users: StateDirectory
    private let ledgerWriter: LedgerWriter

    /// Opens (creating if needed, with mode 0700) the state directory; see ``StateDirectory/open(_:)``
    /// for what it must be.
    public init(directory: String) throws(StateStoreError) {
        self.directory = directory
        root = try StateDirectory.open(directory)
        let users = try root.subdirectory("users")
        self.users = users
        let queue = DispatchQueue(label: "localauthd.ledger-writer")
        ledgerWriter = LedgerWriter(
            write: { ledger, user throws(StateStoreError) in try Self.save(ledger, in: users, user: user, name: "ledger.json") },
            schedule: { queue.async(execute: $0) })
        try root.removeOrphanedTemporaryFiles()
        for name in try users.entries() where UInt32(name) != nil {
            // A user's directory that cannot be trusted is left alone; loading the user reports it.
            guard let home = try? users.existingSubdirectory(name) else { continue }
            try home.removeOrphanedTemporaryFiles()
        }
    }

    public func loadLedger(user: UInt32) throws(StateStoreError) -> UserLedger? {
        try load(UserLedger.self, user: user, name: "ledger.json")
    }

    public func saveLedger(_ ledger: UserLedger, user: UInt32) throws(StateStoreError) {
        try save(ledger, user: user, name: "ledger.json")
    }

    public func submitLedger(_ ledger: UserLedger, user: UInt32) -> LedgerCommit {
        ledgerWriter.submit(ledger, user: user)
    }

    public func loadProfile(user: UInt32) throws(StateStoreError) -> UserProfile? {
        try load(UserProfile.self, user: user, name: "profile.json")
    }

    public func saveProfile(_ profile: UserProfile, user: UInt32) throws(StateStoreError) {
        try save(profile, user: user, name: "profile.json")
    }

    /// `users/<uid>/face-consent.json`: the user's per-app face decisions.
    public func loadFaceConsents(user: UInt32) throws(StateStoreError) -> FaceConsents? {
        try load(FaceConsents.self, user: user, name: "face-consent.json")
    }

    public func saveFaceConsents(_ consents: FaceConsents, user: UInt32) throws(StateStoreError) {
        try save(consents, user: user, name: "face-consent.json")
    }

    public func quarantineProfile(user: UInt32) throws(StateStoreError) {
        guard let home = try users.existingSubdirectory(String(user)) else { return }
        let stamp = time(nil)
        _ = try home.rename("profile.json", to: "profile.json.unreadable-\(stamp)")
    }

    /// The per-installation secret that keys the domain state; created on first use.
    public func installationSecret() throws(StateStoreError) -> [UInt8] {
        if let existing = try root.read("installation-secret") {
            guard existing.count == 32 else {
                throw StateStoreError(.corrupt, "\(directory)/installation-secret holds \(existing.count) bytes instead of 32; remove it to create a new one (domain states will change).")
            }
            return existing
        }
        var generator = SystemRandomNumberGenerator()
        let secret = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        try root.write(secret, to: "installation-secret")
        return secret
    }

    private func load<Value: Decodable>(_ type: Value.Type, user: UInt32, name: String) throws(StateStoreError) -> Value? {
        guard let home = try users.existingSubdirectory(String(user)), let bytes = try home.read(name) else { return nil }
        do {
            return try StateJSONDecoder.decode(Value.self, from: bytes)
        } catch {
            throw StateStoreError(.corrupt, "\(home.path)/\(name) is not valid state (\(error))")
        }
    }

    private func save<Value: Encodable>(_ value: Value, user: UInt32, name: String) throws(StateStoreError) {
        try Self.save(value, in: users, user: user, name: name)
    }

    private static func save<Value: Encodable>(_ value: Value, in users: StateDirectory, user: UInt32, name: String) throws(StateStoreError) {
        let bytes: [UInt8]
        do { bytes = try StateJSONEncoder.encode(value) } catch {
            throw StateStoreError(.io, "Cannot encode \(name): \(error)")
        }
        try users.subdirectory(String(user)).write(bytes, to: name)
    }
}
