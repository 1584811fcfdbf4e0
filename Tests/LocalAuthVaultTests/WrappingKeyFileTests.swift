// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials
import LocalAuthCore
import LocalAuthTestSupport
import LocalAuthVault
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A scratch state directory (``ScratchDirectory``); `sealing` is where SealingSetup keeps its files.
typealias SealingScratch = ScratchDirectory

extension ScratchDirectory {
    var sealing: String { path + "/sealing" }

    static func mode(_ path: String) -> mode_t? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return info.st_mode & 0o7777
    }

    static func bytes(_ path: String) -> [UInt8]? {
        FileManager.default.contents(atPath: path).map { Array($0) }
    }
}

/// The root-only wrapping key file: created once with private modes, the same key at every start,
/// and refused with a message saying what to do when it or its directory is not private.
@Suite struct WrappingKeyFileTests {
    @Test func theFirstOpenCreatesAPrivateKeyAndTheNextOpensReadIt() throws {
        let scratch = try SealingScratch()
        defer { scratch.remove() }
        let file = WrappingKeyFile(directory: scratch.sealing)
        #expect(!file.exists)
        #expect(SealingScratch.mode(scratch.sealing) == nil, "asking creates nothing")
        let first = try file.open()
        #expect(first.protection == .wrappingKey)
        #expect(file.exists)
        #expect(SealingScratch.mode(scratch.sealing) == 0o700)
        #expect(SealingScratch.mode(file.path) == 0o600)
        let key = try #require(SealingScratch.bytes(file.path))
        #expect(key.count == 32)
        #expect(Set(key).count > 8, "random bytes")
        #expect((try FileManager.default.contentsOfDirectory(atPath: scratch.sealing)) == ["wrapping-key"], "no temporary file left")

        let blob = try Array("pass".utf8).withUnsafeBufferPointer { try first.seal($0, label: [1]) }
        let restarted = try WrappingKeyFile(directory: scratch.sealing).open()
        #expect(try restarted.unseal(blob, label: [1]).withBytes { Array($0) } == Array("pass".utf8))
        #expect(SealingScratch.bytes(file.path) == key, "the key is not replaced")
    }

    @Test func twoMachinesHaveDifferentKeys() throws {
        let one = try SealingScratch(), two = try SealingScratch()
        defer { one.remove(); two.remove() }
        let blob = try Array("pass".utf8).withUnsafeBufferPointer { try WrappingKeyFile(directory: one.sealing).open().seal($0, label: []) }
        let error = #expect(throws: RightVaultError.self) { try WrappingKeyFile(directory: two.sealing).open().unseal(blob, label: []) }
        #expect(error?.kind == .corrupt)
    }

    @Test func aKeyFileOthersCanReadOrWriteIsRefused() throws {
        let scratch = try SealingScratch()
        defer { scratch.remove() }
        let file = WrappingKeyFile(directory: scratch.sealing)
        _ = try file.open()
        for mode: mode_t in [0o644, 0o640, 0o602, 0o604] {
            chmod(file.path, mode)
            let error = #expect(throws: RightVaultError.self, "\(String(mode, radix: 8))") { try file.open() }
            #expect(error?.message.contains("chmod 0600 '\(file.path)'") == true, "\(error?.message ?? "")")
            #expect(error?.message.contains("has mode \(String(mode, radix: 8))") == true)
        }
        chmod(file.path, 0o400)
        _ = try file.open()
    }

    @Test func aDirectoryOthersCanEnterIsRefused() throws {
        let scratch = try SealingScratch()
        defer { scratch.remove() }
        let file = WrappingKeyFile(directory: scratch.sealing)
        _ = try file.open()
        chmod(scratch.sealing, 0o755)
        let error = #expect(throws: RightVaultError.self) { try file.open() }
        #expect(error?.message.contains("chmod 0700 '\(scratch.sealing)'") == true, "\(error?.message ?? "")")
        chmod(scratch.sealing, 0o700)
        _ = try file.open()
    }

    @Test func aKeyFileOfTheWrongSizeIsRefused() throws {
        let scratch = try SealingScratch()
        defer { scratch.remove() }
        let file = WrappingKeyFile(directory: scratch.sealing)
        _ = try file.open()
        for size in [0, 31, 33, 4096] {
            let fd = open(file.path, O_WRONLY | O_TRUNC)
            _ = [UInt8](repeating: 9, count: size).withUnsafeBufferPointer { write(fd, $0.baseAddress, size) }
            close(fd)
            let error = #expect(throws: RightVaultError.self, "\(size) bytes") { try file.open() }
            #expect(error?.message.contains("has \(size) bytes, not 32") == true, "\(error?.message ?? "")")
            #expect(error?.message.contains("restore it from a backup") == true)
        }
    }

    @Test func linksAndOtherOwnersAreRefused() throws {
        let scratch = try SealingScratch()
        defer { scratch.remove() }
        let elsewhere = scratch.path + "/elsewhere"
        _ = try WrappingKeyFile(directory: elsewhere).open()

        // The key file a symbolic link to a valid key: refused, never followed.
        mkdir(scratch.sealing, 0o700)
        symlink(elsewhere + "/wrapping-key", scratch.sealing + "/wrapping-key")
        let link = #expect(throws: RightVaultError.self) { try WrappingKeyFile(directory: scratch.sealing).open() }
        #expect(link?.message.contains("symbolic link") == true, "\(link?.message ?? "")")

        // The sealing directory a link to a valid one: refused.
        let linked = scratch.path + "/linked"
        symlink(elsewhere, linked)
        let directory = #expect(throws: RightVaultError.self) { try WrappingKeyFile(directory: linked).open() }
        #expect(directory?.message.contains("is not a directory") == true, "\(directory?.message ?? "")")

        // Someone else's key file (only root can give it away).
        guard geteuid() == 0 else { return }
        chown(elsewhere + "/wrapping-key", 65534, 65534)
        let owner = #expect(throws: RightVaultError.self) { try WrappingKeyFile(directory: elsewhere).open() }
        #expect(owner?.message.contains("belongs to uid 65534") == true, "\(owner?.message ?? "")")
    }

    @Test func aMissingStateDirectoryIsReportedNotCreated() throws {
        let scratch = try SealingScratch()
        defer { scratch.remove() }
        let error = #expect(throws: RightVaultError.self) { try WrappingKeyFile(directory: scratch.path + "/absent/sealing").open() }
        #expect(error?.message.contains("Create its parent directory") == true, "\(error?.message ?? "")")
        #expect(!FileManager.default.fileExists(atPath: scratch.path + "/absent"))
    }
}
