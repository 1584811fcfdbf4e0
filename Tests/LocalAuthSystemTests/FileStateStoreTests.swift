// SPDX-License-Identifier: Apache-2.0
import LocalAuthCore
import LocalAuthSystem
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("State files", .timeLimit(.minutes(1)))
final class FileStateStoreTests {
    let temporary: TemporaryDirectory
    var state: String { "\(temporary.path)/state" }
    let uid: UInt32 = 1000

    init() throws { temporary = try TemporaryDirectory() }
    deinit { temporary.remove() }

    var ledger: UserLedger {
        var ledger = UserLedger()
        ledger.biometryFailures = 3
        ledger.passcodeFailures = 5
        ledger.passcodeRetryAfter = UnixTime(1_800_000_060.5)
        ledger.lastUnlockMatch = UnixTime(1_799_999_000)
        return ledger
    }

    var profile: UserProfile {
        var profile = UserProfile()
        profile.passcodeHash = "$argon2id$v=19$m=65536,t=2,p=1$c2FsdA$aGFzaA"
        profile.enroll(.fingerprint, label: "right-index-finger")
        profile.enroll(.face, label: "primary")
        profile.requireAttention = false
        return profile
    }

    func userFile(_ name: String) -> String { "\(state)/users/\(uid)/\(name)" }

    // MARK: Directories

    @Test func createsTheStateDirectoryAndUsersWithMode0700() throws {
        let nested = "\(temporary.path)/a/b/state"
        _ = try FileStateStore(directory: nested)
        #expect(permissions(nested) == 0o700)
        #expect(permissions("\(nested)/users") == 0o700)
    }

    @Test func tightensExistingDirectoriesOthersMayOnlyReadTo0700() throws {
        #expect(mkdir(state, 0o755) == 0 && chmod(state, 0o755) == 0)
        #expect(mkdir("\(state)/users", 0o755) == 0 && chmod("\(state)/users", 0o750) == 0)
        _ = try FileStateStore(directory: state)
        #expect(permissions(state) == 0o700)
        #expect(permissions("\(state)/users") == 0o700)
    }

    @Test func aStateDirectoryThatCannotBeMadeIsAnIOError() throws {
        try writeFile("\(temporary.path)/plain-file", [1])
        #expect(loadError { _ = try FileStateStore(directory: "\(temporary.path)/plain-file/state") } == .io)
    }

    // MARK: Round trips

    @Test func ledgerAndProfileRoundTripWithPrivateModes() throws {
        let store = try FileStateStore(directory: state)
        try store.saveLedger(ledger, user: uid)
        try store.saveProfile(profile, user: uid)
        #expect(try store.loadLedger(user: uid) == ledger)
        #expect(try store.loadProfile(user: uid) == profile)
        #expect(permissions("\(state)/users/\(uid)") == 0o700)
        #expect(permissions(userFile("ledger.json")) == 0o600)
        #expect(permissions(userFile("profile.json")) == 0o600)
        // A restarted daemon reads the same.
        let reopened = try FileStateStore(directory: state)
        #expect(try reopened.loadLedger(user: uid) == ledger)
        #expect(try reopened.loadProfile(user: uid) == profile)
        #expect(try reopened.loadProfile(user: uid)?.enrollmentGeneration == 2)
    }

    @Test func aSaveReplacesTheOldContentAndLeavesNoTemporaryFiles() throws {
        let store = try FileStateStore(directory: state)
        var ledger = UserLedger()
        for failures in 1...5 {
            ledger.biometryFailures = failures
            try store.saveLedger(ledger, user: uid)
            try store.saveProfile(profile, user: uid)
        }
        try store.saveLedger(UserLedger(), user: 1001)
        #expect(try store.loadLedger(user: uid)?.biometryFailures == 5)
        #expect(temporary.files == ["state/users/1000/ledger.json", "state/users/1000/profile.json", "state/users/1001/ledger.json"])
    }

    @Test func missingFilesLoadAsNil() throws {
        let store = try FileStateStore(directory: state)
        #expect(try store.loadLedger(user: uid) == nil)
        #expect(try store.loadProfile(user: uid) == nil)
        try store.saveLedger(ledger, user: uid)  // the user's directory exists, the profile does not
        #expect(try store.loadProfile(user: uid) == nil)
    }

    // MARK: Damaged files

    static let garbage: [[UInt8]] = [
        Array("garbage".utf8), [], Array("[1, 2, 3]".utf8), Array("{\"biometryFailures\": \"three\"}".utf8),
        [0xff, 0xfe, 0x00, 0x01],
    ]

    @Test(arguments: garbage)
    func garbageIsCorrupt(_ content: [UInt8]) throws {
        let store = try FileStateStore(directory: state)
        try store.saveLedger(ledger, user: uid)
        try store.saveProfile(profile, user: uid)
        try writeFile(userFile("ledger.json"), content)
        try writeFile(userFile("profile.json"), content)
        #expect(loadError { _ = try store.loadLedger(user: uid) } == .corrupt)
        #expect(loadError { _ = try store.loadProfile(user: uid) } == .corrupt)
    }

    @Test func aTruncatedFileIsCorrupt() throws {
        let store = try FileStateStore(directory: state)
        try store.saveProfile(profile, user: uid)
        let full = try readFile(userFile("profile.json"))
        try writeFile(userFile("profile.json"), Array(full.prefix(full.count / 2)))
        #expect(loadError { _ = try store.loadProfile(user: uid) } == .corrupt)
    }

    @Test func aDirectoryInPlaceOfTheFileIsCorrupt() throws {
        let store = try FileStateStore(directory: state)
        #expect(mkdir("\(state)/users/\(uid)", 0o700) == 0)
        #expect(mkdir(userFile("ledger.json"), 0o700) == 0)
        #expect(mkdir(userFile("profile.json"), 0o700) == 0)
        #expect(loadError { _ = try store.loadLedger(user: uid) } == .corrupt)
        #expect(loadError { _ = try store.loadProfile(user: uid) } == .corrupt)
    }

    @Test func aSymbolicLinkIsNotFollowed() throws {
        let store = try FileStateStore(directory: state)
        try store.saveLedger(ledger, user: 1001)
        #expect(mkdir("\(state)/users/\(uid)", 0o700) == 0)
        #expect(symlink("\(state)/users/1001/ledger.json", userFile("ledger.json")) == 0)
        #expect(loadError { _ = try store.loadLedger(user: uid) } == .corrupt)
    }

    func loadError(_ body: () throws -> Void) -> StateStoreError.Kind? {
        do {
            try body()
            return nil
        } catch let error as StateStoreError {
            return error.kind
        } catch {
            Issue.record("not a StateStoreError: \(error)")
            return nil
        }
    }

    // MARK: Quarantine

    @Test func quarantineMovesTheProfileAsideWithATimestamp() throws {
        let store = try FileStateStore(directory: state)
        try store.saveLedger(ledger, user: uid)
        try writeFile(userFile("profile.json"), Array("damaged".utf8))
        let before = time(nil)
        try store.quarantineProfile(user: uid)
        let after = time(nil)
        #expect(!exists(userFile("profile.json")))
        #expect(try store.loadProfile(user: uid) == nil)
        let moved = temporary.files.filter { $0.hasPrefix("state/users/1000/profile.json.unreadable-") }
        try #require(moved.count == 1, "\(temporary.files)")
        let stamp = try #require(Int(moved[0].dropFirst("state/users/1000/profile.json.unreadable-".count)))
        #expect((Int(before)...Int(after)).contains(stamp))
        #expect(try readFile("\(temporary.path)/\(moved[0])") == Array("damaged".utf8), "kept for inspection")
        #expect(try store.loadLedger(user: uid) == ledger, "the ledger is left alone")
    }

    @Test func quarantineWithoutAProfileIsANoOp() throws {
        let store = try FileStateStore(directory: state)
        try store.quarantineProfile(user: uid)  // not even the user's directory exists
        try store.saveLedger(ledger, user: uid)
        try store.quarantineProfile(user: uid)
        #expect(temporary.files == ["state/users/1000/ledger.json"])
    }

    // MARK: Installation secret

    @Test func theInstallationSecretIsMadeOnceAndKept() throws {
        let store = try FileStateStore(directory: state)
        let secret = try store.installationSecret()
        #expect(secret.count == 32)
        #expect(Set(secret).count > 1, "random, not a constant")
        #expect(permissions("\(state)/installation-secret") == 0o600)
        #expect(try readFile("\(state)/installation-secret") == secret)
        #expect(try store.installationSecret() == secret)
        #expect(try FileStateStore(directory: state).installationSecret() == secret)
        #expect(temporary.files == ["state/installation-secret"])
    }

    @Test func separateInstallationsGetDifferentSecrets() throws {
        let a = try FileStateStore(directory: "\(temporary.path)/a").installationSecret()
        let b = try FileStateStore(directory: "\(temporary.path)/b").installationSecret()
        #expect(a != b)
    }

    @Test(arguments: [0, 1, 31, 33, 64])
    func aSecretOfTheWrongSizeIsCorruptAndKept(_ size: Int) throws {
        let store = try FileStateStore(directory: state)
        let content = [UInt8](repeating: 9, count: size)
        try writeFile("\(state)/installation-secret", content)
        #expect(loadError { _ = try store.installationSecret() } == .corrupt)
        #expect(try readFile("\(state)/installation-secret") == content, "never replaced silently")
    }
}
