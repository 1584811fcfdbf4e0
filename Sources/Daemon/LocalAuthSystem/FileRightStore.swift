// SPDX-License-Identifier: Apache-2.0
import LocalAuthCore

/// Each user's saved rights as one JSON file under the state directory:
///
///     <state>/rights/               0700
///       <uid>                       0600  {"version":1,"rights":[…]}, blobs in lowercase hex
///
/// The secrets and private keys in it are sealed by the vault; the file only keeps them. Writes are
/// atomic and durable before they return (``AtomicFile`` through ``StateDirectory``, which also
/// refuses links and files the daemon's uid does not own). A file that cannot be read or decoded
/// throws, so that the engine makes that user's rights unavailable and logs why; it is never taken
/// for an empty one. Immutable, so any thread may use it; the engine serializes saves per user.
public final class FileRightStore: RightStore {
    public let directory: String
    private let rights: StateDirectory
    /// 1 024 rights with 16 KiB secrets, in hex, fit.
    static let readLimit = 64 << 20

    /// Opens (creating with mode 0700 when missing) `<directory>/rights`; `directory` is the
    /// state directory and must be one the daemon can trust (``StateDirectory/open(_:)``).
    public init(directory: String) throws(StateStoreError) {
        self.directory = directory
        rights = try StateDirectory.open(directory).subdirectory("rights")
        try rights.removeOrphanedTemporaryFiles()
    }

    public func loadRights(user: UInt32) throws(StateStoreError) -> [RightRecord] {
        guard let bytes = try rights.read(String(user), limit: Self.readLimit) else { return [] }
        let file: StoredFile
        do {
            file = try StateJSONDecoder.decode(StoredFile.self, from: bytes)
        } catch {
            throw StateStoreError(.corrupt, "\(rights.path)/\(user) is not a rights file (\(error))")
        }
        guard file.version == StoredFile.currentVersion else {
            throw StateStoreError(.corrupt, "\(rights.path)/\(user) has version \(file.version); this localauthd reads version \(StoredFile.currentVersion).")
        }
        return try file.rights.map { (stored) throws(StateStoreError) in
            guard let record = stored.record else {
                throw StateStoreError(.corrupt, "\(rights.path)/\(user) holds a right whose keys are not hex; restore the file from a backup.")
            }
            return record
        }
    }

    public func saveRights(_ records: [RightRecord], user: UInt32) throws(StateStoreError) {
        let bytes: [UInt8]
        do {
            bytes = try StateJSONEncoder.encode(StoredFile(version: StoredFile.currentVersion, rights: records.map(StoredRight.init)))
        } catch {
            throw StateStoreError(.io, "Cannot encode the rights of uid \(user): \(error)")
        }
        try rights.write(bytes, to: String(user))
    }

    /// The file's form.
    private struct StoredFile: Codable {
        static let currentVersion = 1
        var version: Int
        var rights: [StoredRight]
    }

    /// A record with its byte strings in hex (a JSON array of numbers would be four times larger).
    private struct StoredRight: Codable {
        var identifier: String
        var application: String
        var requirement: String
        var generation: UInt64
        var created: UInt64
        var publicKey: String
        var sealedPrivateKey: String
        var sealedSecret: String?
        var domainState: String?

        init(_ record: RightRecord) {
            identifier = record.identifier
            application = record.application
            requirement = record.requirement
            generation = record.generation
            created = record.created
            publicKey = Self.hex(record.publicKey)
            sealedPrivateKey = Self.hex(record.sealedPrivateKey)
            sealedSecret = record.sealedSecret.map(Self.hex)
            domainState = record.domainState.map(Self.hex)
        }

        /// nil when a byte string is not hex.
        var record: RightRecord? {
            guard let publicKey = Self.bytes(publicKey), let sealedPrivateKey = Self.bytes(sealedPrivateKey) else { return nil }
            var sealedSecretBytes: [UInt8]?
            if let sealedSecret {
                guard let bytes = Self.bytes(sealedSecret) else { return nil }
                sealedSecretBytes = bytes
            }
            var domainStateBytes: [UInt8]?
            if let domainState {
                guard let bytes = Self.bytes(domainState) else { return nil }
                domainStateBytes = bytes
            }
            return RightRecord(identifier: identifier, application: application, requirement: requirement, generation: generation,
                               created: created, publicKey: publicKey, sealedPrivateKey: sealedPrivateKey,
                               sealedSecret: sealedSecretBytes, domainState: domainStateBytes)
        }

        static func hex(_ bytes: [UInt8]) -> String {
            SystemCookieSource.hex(bytes)
        }

        static func bytes(_ hex: String) -> [UInt8]? {
            let digits = Array(hex.utf8)
            guard digits.count % 2 == 0 else { return nil }
            var bytes: [UInt8] = []
            bytes.reserveCapacity(digits.count / 2)
            for index in stride(from: 0, to: digits.count, by: 2) {
                guard let high = value(digits[index]), let low = value(digits[index + 1]) else { return nil }
                bytes.append(high << 4 | low)
            }
            return bytes
        }

        private static func value(_ digit: UInt8) -> UInt8? {
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
            default: nil
            }
        }
    }
}
