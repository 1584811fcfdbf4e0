import FoundationEssentials
import LocalAuthCore

/// Per-user state as JSON files under the state directory:
///
///     <state>/                      0700
///       installation-secret         0600  32 random bytes (domain-state key)
///       users/<uid>/                0700
///         ledger.json               0600  failure counts and locks
///         profile.json              0600  passcode hash, enrollments, settings
///
/// Every write is atomic and durable (see ``AtomicFile``). Immutable after init, so it may be
/// used from any thread; callers serialize writes per user (the engine's actor does).
public final class FileStateStore: StateStore {
    public let directory: String

    /// Opens (creating if needed, with mode 0700) the state directory.
    public init(directory: String) throws(StateStoreError) {
        self.directory = directory
        do throws(AtomicFile.Failure) {
            try AtomicFile.makeDirectory(directory)
            try AtomicFile.makeDirectory("\(directory)/users")
        } catch {
            throw StateStoreError(.io, "Cannot use the state directory: \(error.message)")
        }
    }

    public func loadLedger(user: UInt32) throws(StateStoreError) -> UserLedger? {
        try load(UserLedger.self, from: path(user, "ledger.json"))
    }

    public func saveLedger(_ ledger: UserLedger, user: UInt32) throws(StateStoreError) {
        try save(ledger, user: user, name: "ledger.json")
    }

    public func loadProfile(user: UInt32) throws(StateStoreError) -> UserProfile? {
        try load(UserProfile.self, from: path(user, "profile.json"))
    }

    public func saveProfile(_ profile: UserProfile, user: UInt32) throws(StateStoreError) {
        try save(profile, user: user, name: "profile.json")
    }

    public func quarantineProfile(user: UInt32) throws(StateStoreError) {
        let source = path(user, "profile.json")
        let stamp = Int(Date().timeIntervalSince1970)
        do throws(AtomicFile.Failure) {
            try AtomicFile.move(source, to: "\(source).unreadable-\(stamp)")
        } catch where error.isMissing {
            return
        } catch {
            throw StateStoreError(.io, error.message)
        }
    }

    /// The per-installation secret that keys the domain state; created on first use.
    public func installationSecret() throws(StateStoreError) -> [UInt8] {
        let path = "\(directory)/installation-secret"
        let existing: [UInt8]?
        do throws(AtomicFile.Failure) { existing = try AtomicFile.read(path) } catch {
            throw StateStoreError(.io, error.message)
        }
        if let existing {
            guard existing.count == 32 else {
                throw StateStoreError(.corrupt, "\(path) holds \(existing.count) bytes instead of 32; remove it to create a new one (domain states will change).")
            }
            return existing
        }
        var generator = SystemRandomNumberGenerator()
        let secret = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        do throws(AtomicFile.Failure) { try AtomicFile.write(secret, to: path) } catch {
            throw StateStoreError(.io, error.message)
        }
        return secret
    }

    private func path(_ user: UInt32, _ name: String) -> String {
        "\(directory)/users/\(user)/\(name)"
    }

    private func load<Value: Decodable>(_ type: Value.Type, from path: String) throws(StateStoreError) -> Value? {
        let bytes: [UInt8]
        do throws(AtomicFile.Failure) {
            guard let read = try AtomicFile.read(path) else { return nil }
            bytes = read
        } catch {
            throw StateStoreError(.io, error.message)
        }
        do {
            return try JSONDecoder().decode(Value.self, from: Data(bytes))
        } catch {
            throw StateStoreError(.corrupt, "\(path) is not valid state (\(error))")
        }
    }

    private func save<Value: Encodable>(_ value: Value, user: UInt32, name: String) throws(StateStoreError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data: Data
        do { data = try encoder.encode(value) } catch {
            throw StateStoreError(.io, "Cannot encode \(name): \(error)")
        }
        do throws(AtomicFile.Failure) {
            try AtomicFile.makeDirectory("\(directory)/users/\(user)")
            try AtomicFile.write(Array(data), to: path(user, name))
        } catch {
            throw StateStoreError(.io, error.message)
        }
    }
}
