// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials
import LocalAuthCore
import LocalAuthTestSupport
import LocalAuthVault
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The wrapping key sealed to a TPM 2.0 (a real `swtpm`): made and sealed at the first start,
/// unsealed to the same key at the next, and useless with another TPM.
@Suite(.timeLimit(.minutes(3)), .enabled(if: Swtpm.unavailableReason == nil, "\(Swtpm.unavailableReason ?? "")"))
struct TPMSealedKeyTests {
    static func seal(_ sealer: some Sealer, _ text: String) throws -> [UInt8] {
        try Array(text.utf8).withUnsafeBufferPointer { try sealer.seal($0, label: Array("right".utf8)) }
    }

    static func open(_ sealer: some Sealer, _ blob: [UInt8]) throws -> String {
        try sealer.unseal(blob, label: Array("right".utf8)).withBytes { String(decoding: $0, as: UTF8.self) }
    }

    @Test func theKeyIsSealedAtTheFirstStartAndUnsealedAfterARestart() async throws {
        let scratch = try SealingScratch()
        defer { scratch.remove() }
        let state = scratch.path + "/tpm-state"
        mkdir(state, 0o700)

        let (blob, stored) = try await Swtpm.with(stateDirectory: state) { tpm in
            let key = TPMSealedKey(directory: scratch.sealing, tcti: tpm.tcti)
            #expect(!key.exists)
            let first = try key.open()
            #expect(first.protection == .tpm2)
            #expect(key.exists)
            let files = try FileManager.default.contentsOfDirectory(atPath: scratch.sealing).sorted()
            #expect(files == ["tpm-wrapping-key.priv", "tpm-wrapping-key.pub"], "no key in the clear, no temporary file")
            for name in files {
                #expect(SealingScratch.mode(scratch.sealing + "/" + name) == 0o600, "\(name)")
                #expect((SealingScratch.bytes(scratch.sealing + "/" + name)?.count ?? 0) > 32, "\(name): a marshalled TPM2B object")
            }
            let blob = try Self.seal(first, "kept across restarts")
            // The same TPM, a new process state (another sealer): the same key.
            #expect(try Self.open(try key.open(), blob) == "kept across restarts")
            return (blob, SealingScratch.bytes(scratch.sealing + "/tpm-wrapping-key.pub"))
        }
        // The TPM restarted on its saved state (a reboot).
        try await Swtpm.with(stateDirectory: state) { rebooted in
            let restarted = try TPMSealedKey(directory: scratch.sealing, tcti: rebooted.tcti).open()
            #expect(restarted.protection == .tpm2)
            #expect(try Self.open(restarted, blob) == "kept across restarts")
            #expect(SealingScratch.bytes(scratch.sealing + "/tpm-wrapping-key.pub") == stored, "the sealed object is not replaced")
        }
    }

    @Test func anotherMachinesTPMCannotUnsealTheKey() async throws {
        let scratch = try SealingScratch()
        defer { scratch.remove() }
        let blob = try await Swtpm.with { mine in
            try Self.seal(try TPMSealedKey(directory: scratch.sealing, tcti: mine.tcti).open(), "mine")
        }
        try await Swtpm.with { other in
            let error = #expect(throws: RightVaultError.self) { try TPMSealedKey(directory: scratch.sealing, tcti: other.tcti).open() }
            #expect(error?.kind == .sealingUnavailable)
            #expect(error?.message.contains("sealed by another TPM") == true, "\(error?.message ?? "")")
        }
        #expect(!FileManager.default.fileExists(atPath: scratch.sealing + "/wrapping-key"), "no fall back to a file")
        #expect(SealingScratch.bytes(scratch.sealing + "/tpm-wrapping-key.pub") != nil, "the stored key is kept for its own TPM")
        #expect(blob.count > 41)
    }

    @Test func twoSealingDirectoriesOnOneTPMHaveDifferentKeys() async throws {
        let one = try SealingScratch(), two = try SealingScratch()
        defer { one.remove(); two.remove() }
        try await Swtpm.with { tpm in
            let blob = try Self.seal(try TPMSealedKey(directory: one.sealing, tcti: tpm.tcti).open(), "x")
            let error = #expect(throws: RightVaultError.self) {
                try Self.open(try TPMSealedKey(directory: two.sealing, tcti: tpm.tcti).open(), blob)
            }
            #expect(error?.kind == .corrupt, "each key is 32 fresh random bytes, even on one TPM")
        }
    }

    @Test func damagedOrOpenSealedObjectsAreRefused() async throws {
        let scratch = try SealingScratch()
        defer { scratch.remove() }
        try await Swtpm.with { tpm in
            let key = TPMSealedKey(directory: scratch.sealing, tcti: tpm.tcti)
            _ = try key.open()
            let pub = scratch.sealing + "/tpm-wrapping-key.pub", priv = scratch.sealing + "/tpm-wrapping-key.priv"

            chmod(priv, 0o644)
            let open = #expect(throws: RightVaultError.self) { try key.open() }
            #expect(open?.message.contains("chmod 0600") == true, "\(open?.message ?? "")")
            chmod(priv, 0o600)

            let original = try #require(SealingScratch.bytes(priv))
            var altered = original
            altered[altered.count - 1] ^= 0x01
            _ = FileManager.default.createFile(atPath: priv, contents: Data(altered))
            chmod(priv, 0o600)
            let damaged = #expect(throws: RightVaultError.self) { try key.open() }
            #expect(damaged?.kind == .sealingUnavailable, "\(damaged?.message ?? "")")

            _ = FileManager.default.createFile(atPath: priv, contents: Data(original))
            chmod(priv, 0o600)
            _ = try key.open()

            unlink(priv)
            let missing = #expect(throws: RightVaultError.self) { try key.open() }
            #expect(missing?.message.contains("is missing") == true, "\(missing?.message ?? "")")
            #expect(FileManager.default.fileExists(atPath: pub), "the key is not made again over the stored one")
        }
    }
}
