// SPDX-License-Identifier: Apache-2.0
/// One user's saved rights, with the limits on how many there may be and on what names them.
public struct UserRights: Sendable, Hashable {
    /// Identifier length in UTF-8 bytes.
    public static let maximumIdentifierLength = 128
    /// A secret's length in bytes.
    public static let maximumSecretLength = 16_384
    /// Data of one key operation (sign, decrypt, encrypt, verify, exchange).
    public static let maximumDataLength = 65_536
    /// Rights of one application of one user.
    public static let maximumPerApplication = 64
    /// Rights of one user, every application together.
    public static let maximumPerUser = 1_024
    /// The secrets, identifiers and application names of one user's rights together, in bytes:
    /// the user's file is rewritten at every save and read on the engine, so its size is bounded
    /// (1 024 rights of the largest secret would make it 37 MB and each save take seconds).
    public static let maximumBytesPerUser = 1 << 20

    /// By application, then identifier.
    private(set) var records: [RightKey: RightRecord] = [:]

    /// The rights `records` (a user's file as read); a later record of the same application and identifier wins.
    public init(_ records: [RightRecord] = []) {
        for record in records { self.records[RightKey(application: record.application, identifier: record.identifier)] = record }
    }

    /// Sorted by application, then identifier: the order they are saved and listed in.
    public var all: [RightRecord] {
        records.values.sorted { ($0.application, $0.identifier) < ($1.application, $1.identifier) }
    }

    /// How many rights the user has.
    public var count: Int { records.count }

    func record(_ key: RightKey) -> RightRecord? { records[key] }

    func count(of application: String) -> Int {
        records.keys.reduce(0) { $0 + ($1.application == application ? 1 : 0) }
    }

    /// What a right takes of ``maximumBytesPerUser``: its (sealed) secret, identifier and application name.
    static func size(of key: RightKey, secretCount: Int) -> Int {
        secretCount + key.identifier.utf8.count + key.application.utf8.count
    }

    /// Refuses a save that would go beyond the per-application or per-user limits: the counts (a
    /// replacement never does) and the bytes (a replacement that grows may).
    func checkRoom(for key: RightKey, secretCount: Int) throws(LocalAuthError) {
        let old = records[key].map { Self.size(of: key, secretCount: $0.sealedSecret?.count ?? 0) } ?? 0
        let new = Self.size(of: key, secretCount: secretCount)
        if new > old {
            let total = records.reduce(0) { $0 + Self.size(of: $1.key, secretCount: $1.value.sealedSecret?.count ?? 0) }
            guard total - old + new <= Self.maximumBytesPerUser else {
                throw LocalAuthError(.limitsExceeded, "Your rights' secrets and names may take at most \(Self.maximumBytesPerUser / 1024) KiB together, and this save would make them \((total - old + new + 1023) / 1024) KiB; remove some rights (localauth rights) or save a smaller secret.")
            }
        }
        guard records[key] == nil else { return }
        guard count(of: key.application) < Self.maximumPerApplication else {
            throw LocalAuthError(.limitsExceeded, "This application already has \(Self.maximumPerApplication) rights; remove some before saving more.")
        }
        guard count < Self.maximumPerUser else {
            throw LocalAuthError(.limitsExceeded, "You already have \(Self.maximumPerUser) rights across your applications; remove some (localauth rights) before saving more.")
        }
    }

    mutating func insert(_ record: RightRecord) {
        records[RightKey(application: record.application, identifier: record.identifier)] = record
    }

    @discardableResult
    mutating func remove(_ key: RightKey) -> RightRecord? {
        records.removeValue(forKey: key)
    }

    /// Removes every right of `application`; returns how many went.
    @discardableResult
    mutating func removeAll(of application: String) -> Int {
        let keys = records.keys.filter { $0.application == application }
        for key in keys { records[key] = nil }
        return keys.count
    }

    /// Checks an identifier from a client: 1…128 bytes of UTF-8 without control or format characters.
    public static func validateIdentifier(_ identifier: String) throws(LocalAuthError) {
        let length = identifier.utf8.count
        guard length >= 1, length <= maximumIdentifierLength else {
            throw LocalAuthError(.invalidArgument, "A right's identifier must be 1 to \(maximumIdentifierLength) bytes long (this one has \(length)).")
        }
        guard !identifier.unicodeScalars.contains(where: { [.control, .format].contains($0.properties.generalCategory) }) else {
            throw LocalAuthError(.invalidArgument, "A right's identifier must not contain control or format characters.")
        }
    }
}
