// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials
import LocalAuthCore
import LocalAuthSystem
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The store uses only what the daemon made itself: real directories and regular files owned by
/// its uid, reached without following a symbolic link. Anything else is refused (the directory)
/// or corrupt (a file, so the user fails closed), and never changed.
@Suite("State directory trust", .timeLimit(.minutes(1)))
final class StateDirectoryTests {
    static let isRoot = geteuid() == 0
    static let nobody: uid_t = 65534

    let temporary: TemporaryDirectory
    var state: String { "\(temporary.path)/state" }
    let uid: UInt32 = 1000

    init() throws { temporary = try TemporaryDirectory() }
    deinit { temporary.remove() }

    func userFile(_ name: String) -> String { "\(state)/users/\(uid)/\(name)" }

    var ledger: UserLedger {
        var ledger = UserLedger()
        ledger.biometryFailures = 4
        return ledger
    }

    /// A directory another user owns with mode 0755 (only root can give it away; else our own).
    func foreignDirectory(_ name: String) throws -> String {
        let path = "\(temporary.path)/\(name)"
        try #require(mkdir(path, 0o755) == 0 && chmod(path, 0o755) == 0)
        if Self.isRoot { try #require(chown(path, Self.nobody, Self.nobody) == 0) }
        return path
    }

    func entries(_ path: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted()
    }

    func failure(_ body: () throws -> Void) -> StateStoreError? {
        do {
            try body()
            Issue.record("no error")
            return nil
        } catch let error as StateStoreError {
            return error
        } catch {
            Issue.record("not a StateStoreError: \(error)")
            return nil
        }
    }

    // MARK: The state directory

    @Test func aSymbolicLinkIsRefusedAndItsTargetLeftAlone() throws {
        let target = try foreignDirectory("elsewhere")
        #expect(symlink(target, state) == 0)
        let error = try #require(failure { _ = try FileStateStore(directory: state) })
        #expect(error.message.contains(state) && error.message.contains("symbolic link"), "\(error)")
        #expect(permissions(target) == 0o755, "the target is not chmodded")
        #expect(entries(target) == [], "nothing is created in the target")
    }

    /// localauthd(8): a state directory others may write to is refused and left as it is (they
    /// could have removed a ledger), whether it is the state directory or one below it.
    @Test(arguments: [("", 0o777), ("", 0o770), ("/users", 0o777), ("/users", 0o722)])
    func aDirectoryOthersMayWriteIsRefusedAndLeftAlone(below: String, mode: Int) throws {
        let directory = state + below
        _ = try FileStateStore(directory: state)
        #expect(chmod(directory, mode_t(mode)) == 0)
        let error = try #require(failure { _ = try FileStateStore(directory: state) })
        #expect(error.kind == .corrupt, "\(error)")
        #expect(error.message.contains("\(directory) is writable by other users (mode 0\(String(mode, radix: 8)))")
                && error.message.contains("chmod 0700 \(directory)"), "\(error)")
        #expect(permissions(directory) == mode_t(mode), "left as it was")
    }

    @Test func aRegularFileIsRefusedAndLeftAlone() throws {
        try writeFile(state, [7])
        #expect(chmod(state, 0o644) == 0)
        let error = try #require(failure { _ = try FileStateStore(directory: state) })
        #expect(error.message.contains(state) && error.message.contains("not a directory"), "\(error)")
        #expect(permissions(state) == 0o644)
        #expect(try readFile(state) == [7])
    }

    @Test(.enabled(if: isRoot, "only root can give a directory to another user"))
    func anotherUsersDirectoryIsRefusedAndLeftAlone() throws {
        let foreign = try foreignDirectory("state")
        let error = try #require(failure { _ = try FileStateStore(directory: foreign) })
        #expect(error.message.contains(foreign) && error.message.contains("owned by uid 65534"), "\(error)")
        #expect(permissions(foreign) == 0o755)
        #expect(entries(foreign) == [])
    }

    @Test func aParentOthersMayWriteIsRefusedUnlessSticky() throws {
        let shared = "\(temporary.path)/shared"
        #expect(mkdir(shared, 0o777) == 0 && chmod(shared, 0o777) == 0)
        let error = try #require(failure { _ = try FileStateStore(directory: "\(shared)/state") })
        #expect(error.message.contains(shared) && error.message.contains("writable"), "\(error)")
        #expect(entries(shared) == [], "nothing is created where others could swap it")
        #expect(chmod(shared, 0o1777) == 0)
        _ = try FileStateStore(directory: "\(shared)/state")  // like /tmp: others cannot move our entries
        #expect(permissions("\(shared)/state") == 0o700)
    }

    @Test(.enabled(if: isRoot, "only root can give a directory to another user"))
    func aParentAnotherUserOwnsIsRefused() throws {
        let parent = try foreignDirectory("theirs")
        let error = try #require(failure { _ = try FileStateStore(directory: "\(parent)/state") })
        #expect(error.message.contains(parent) && error.message.contains("owned by uid 65534"), "\(error)")
        #expect(entries(parent) == [])
    }

    @Test func usersAsASymbolicLinkIsRefused() throws {
        let target = try foreignDirectory("elsewhere")
        #expect(mkdir(state, 0o700) == 0 && symlink(target, "\(state)/users") == 0)
        let error = try #require(failure { _ = try FileStateStore(directory: state) })
        #expect(error.message.contains("\(state)/users") && error.message.contains("symbolic link"), "\(error)")
        #expect(permissions(target) == 0o755 && entries(target) == [])
    }

    // MARK: Below it: corrupt, never followed

    @Test func aUserDirectoryThatIsASymbolicLinkIsCorruptAndNotWrittenThrough() throws {
        let store = try FileStateStore(directory: state)
        let victim = "\(temporary.path)/victim"
        #expect(mkdir(victim, 0o755) == 0 && chmod(victim, 0o755) == 0)
        try writeFile("\(victim)/ledger.json", Array("{}".utf8))
        #expect(symlink(victim, "\(state)/users/\(uid)") == 0)
        #expect(failure { _ = try store.loadLedger(user: uid) }?.kind == .corrupt)
        #expect(failure { _ = try store.loadProfile(user: uid) }?.kind == .corrupt)
        let saving = try #require(failure { try store.saveLedger(ledger, user: uid) })
        #expect(saving.message.contains("\(state)/users/\(uid)"), "\(saving)")
        #expect(failure { try store.quarantineProfile(user: uid) } != nil)
        #expect(entries(victim) == ["ledger.json"])
        #expect(try readFile("\(victim)/ledger.json") == Array("{}".utf8))
        #expect(permissions(victim) == 0o755)
    }

    @Test func stateFilesThatAreSymbolicLinksAreCorruptAndReplacedNotFollowed() throws {
        let store = try FileStateStore(directory: state)
        try store.saveLedger(ledger, user: uid)
        let victim = "\(temporary.path)/victim.json"
        try writeFile(victim, Array("{}".utf8))
        #expect(unlink(userFile("ledger.json")) == 0 && symlink(victim, userFile("ledger.json")) == 0)
        #expect(symlink(victim, userFile("profile.json")) == 0)
        #expect(symlink(victim, "\(state)/installation-secret") == 0)
        #expect(failure { _ = try store.loadLedger(user: uid) }?.kind == .corrupt)
        #expect(failure { _ = try store.loadProfile(user: uid) }?.kind == .corrupt)
        #expect(failure { _ = try store.installationSecret() }?.kind == .corrupt)
        try store.saveLedger(ledger, user: uid)  // replaces the link itself
        #expect(try store.loadLedger(user: uid) == ledger)
        #expect(try readFile(victim) == Array("{}".utf8))
    }

    @Test func aFIFOIsCorruptWithoutBlocking() throws {
        let store = try FileStateStore(directory: state)
        try store.saveLedger(ledger, user: uid)
        #expect(unlink(userFile("ledger.json")) == 0 && mkfifo(userFile("ledger.json"), 0o600) == 0)
        #expect(failure { _ = try store.loadLedger(user: uid) }?.kind == .corrupt)
    }

    @Test(.enabled(if: isRoot, "only root can give a file to another user"))
    func stateOwnedByAnotherUserIsCorrupt() throws {
        let store = try FileStateStore(directory: state)
        try store.saveLedger(ledger, user: uid)
        _ = try store.installationSecret()
        #expect(chown(userFile("ledger.json"), Self.nobody, Self.nobody) == 0)
        #expect(chown("\(state)/installation-secret", Self.nobody, Self.nobody) == 0)
        let error = try #require(failure { _ = try store.loadLedger(user: uid) })
        #expect(error.kind == .corrupt && error.message.contains(userFile("ledger.json")) && error.message.contains("owned by uid 65534"), "\(error)")
        #expect(failure { _ = try store.installationSecret() }?.kind == .corrupt)

        try store.saveLedger(ledger, user: 1001)
        #expect(chown("\(state)/users/1001", Self.nobody, Self.nobody) == 0)
        #expect(failure { _ = try store.loadLedger(user: 1001) }?.kind == .corrupt)
        #expect(failure { try store.saveLedger(ledger, user: 1001) } != nil)
    }

    // MARK: Orphans

    @Test func orphanedTemporaryFilesAreRemovedAtStart() throws {
        let store = try FileStateStore(directory: state)
        try store.saveLedger(ledger, user: uid)
        _ = try store.installationSecret()
        let gone = Int32.max  // no process has this id
        let orphans = ["state/installation-secret.tmp-\(gone)-1", "state/users/1000/ledger.json.tmp-\(gone)-2",
                       "state/users/1000/profile.json.tmp-\(gone)-3"]
        let kept = ["state/users/1000/ledger.json.tmp-1-4",  // pid 1 is alive: maybe another daemon's write
                    "state/users/1000/notes.tmp", "state/users/1000/ledger.json.tmp-x-5"]
        for file in orphans + kept { try writeFile("\(temporary.path)/\(file)", [1]) }
        _ = try FileStateStore(directory: state)
        #expect(temporary.files == (["state/installation-secret", "state/users/1000/ledger.json"] + kept).sorted())
    }
}
