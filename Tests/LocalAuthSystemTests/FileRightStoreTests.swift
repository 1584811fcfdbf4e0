// SPDX-License-Identifier: Apache-2.0
import LocalAuthCore
import LocalAuthSystem
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("Rights files", .timeLimit(.minutes(1)))
final class FileRightStoreTests {
    let temporary: TemporaryDirectory
    var state: String { "\(temporary.path)/state" }
    let uid: UInt32 = 1000

    init() throws { temporary = try TemporaryDirectory() }
    deinit { temporary.remove() }

    var file: String { "\(state)/rights/\(uid)" }

    let records = [
        RightRecord(identifier: "notes-key", application: "/usr/bin/notes", requirement: "biometry-current-set or passcode",
                    generation: UInt64.max - 7, created: 1_800_000_000, publicKey: [0x04] + [UInt8](repeating: 0xab, count: 64),
                    sealedPrivateKey: [1, 2, 3, 0, 255], sealedSecret: [9, 8, 7], domainState: [0xde, 0xad]),
        RightRecord(identifier: "ключ \"quoted\"", application: "flatpak:org.example.App", requirement: "default",
                    generation: 1, created: 0, publicKey: [0x04], sealedPrivateKey: [], sealedSecret: nil, domainState: nil),
    ]

    @Test func rightsAreSavedAndReadBackInFilesOnlyRootReads() throws {
        let store = try FileRightStore(directory: state)
        #expect(try store.loadRights(user: uid).isEmpty, "no file: no rights")
        try store.saveRights(records, user: uid)
        #expect(try store.loadRights(user: uid) == records)
        #expect(permissions(file) == 0o600)
        #expect(permissions("\(state)/rights") == 0o700)
        #expect(try FileRightStore(directory: state).loadRights(user: uid) == records, "another store (a restart) reads them")
        #expect(try store.loadRights(user: 1001).isEmpty)
        try store.saveRights([], user: uid)
        #expect(try store.loadRights(user: uid).isEmpty)
    }

    @Test func blobsAreHexNotNumberArrays() throws {
        let store = try FileRightStore(directory: state)
        try store.saveRights(records, user: uid)
        let text = String(decoding: try readFile(file), as: UTF8.self)
        #expect(text.contains("\"01020300ff\"") && text.contains("\"deadbeef\"") == false && text.contains("\"dead\""))
        #expect(text.contains("\"version\":1"))
    }

    @Test(arguments: [Array("not json".utf8), Array("{\"version\":2,\"rights\":[]}".utf8),
                      Array("{\"version\":1,\"rights\":[{\"identifier\":\"x\",\"application\":\"a\",\"requirement\":\"default\",\"generation\":1,\"created\":1,\"publicKey\":\"zz\",\"sealedPrivateKey\":\"\"}]}".utf8)])
    func anUnreadableFileThrowsAndIsLeftAlone(content: [UInt8]) throws {
        let store = try FileRightStore(directory: state)
        try store.saveRights(records, user: uid)
        try writeFile(file, content)
        let error = #expect(throws: StateStoreError.self) { try store.loadRights(user: uid) }
        #expect(error?.kind == .corrupt && error?.message.contains("\(uid)") == true)
        #expect(try readFile(file) == content, "never replaced by an empty file")
    }

    @Test func aLinkInPlaceOfTheFileIsNotFollowed() throws {
        let store = try FileRightStore(directory: state)
        try writeFile("\(temporary.path)/elsewhere", Array("{}".utf8))
        #expect(symlink("\(temporary.path)/elsewhere", file) == 0)
        #expect(throws: StateStoreError.self) { try store.loadRights(user: self.uid) }
        try store.saveRights(records, user: uid)
        #expect(try readFile("\(temporary.path)/elsewhere") == Array("{}".utf8), "the link was replaced, not written through")
        #expect(try store.loadRights(user: uid) == records)
    }
}
