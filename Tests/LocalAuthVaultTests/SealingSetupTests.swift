// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials
import LocalAuthCore
import LocalAuthTestSupport
import LocalAuthVault
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `key_protection`: auto takes the TPM when one works and the file otherwise, and once a key is
/// made it is the only one (no silent fall back from a TPM to a file).
@Suite(.timeLimit(.minutes(3)))
struct SealingSetupTests {
    /// A TCTI that reaches no TPM (a socket that does not exist).
    static func absentTCTI(_ scratch: SealingScratch) -> String { "swtpm:path=\(scratch.path)/no-tpm.sock" }

    @Test func theSealingDirectoryIsInTheStateDirectory() {
        #expect(SealingSetup.directory(state: "/var/lib/localauthd") == "/var/lib/localauthd/sealing")
        #expect(SealingSetup.defaultTCTI == "device:/dev/tpmrm0")
        #expect(KeyProtectionChoice.allCases.map(\.rawValue) == ["auto", "tpm2", "wrapping-key"])
    }

    @Test func autoWithoutATPMTakesTheFileAndSaysWhy() throws {
        let scratch = try SealingScratch()
        defer { scratch.remove() }
        let said = Mutex<[String]>([])
        let sealer = try SealingSetup.open(.auto, tcti: Self.absentTCTI(scratch), directory: scratch.sealing) { line in
            said.withLock { $0.append(line) }
        }
        #expect(sealer.protection == .wrappingKey)
        #expect(WrappingKeyFile(directory: scratch.sealing).exists)
        let lines = said.withLock { $0 }
        #expect(lines.count == 1 && lines[0].contains("No usable TPM 2.0 at \(Self.absentTCTI(scratch))"), "\(lines)")
        // Next start: the file, silently.
        let again = try SealingSetup.open(.auto, tcti: Self.absentTCTI(scratch), directory: scratch.sealing) { _ in Issue.record("no fall back to explain") }
        #expect(again.protection == .wrappingKey)
    }

    @Test func explicitTPM2WithoutATPMFails() throws {
        let scratch = try SealingScratch()
        defer { scratch.remove() }
        let error = #expect(throws: RightVaultError.self) { try SealingSetup.open(.tpm2, tcti: Self.absentTCTI(scratch), directory: scratch.sealing) }
        #expect(error?.kind == .sealingUnavailable)
        #expect(error?.message.contains("No TPM 2.0 at") == true, "\(error?.message ?? "")")
        #expect(!WrappingKeyFile(directory: scratch.sealing).exists)
    }

    @Test func aNotPrivateSealingDirectoryFailsEveryChoice() throws {
        let scratch = try SealingScratch()
        defer { scratch.remove() }
        _ = try SealingSetup.open(.wrappingKey, tcti: Self.absentTCTI(scratch), directory: scratch.sealing)
        chmod(scratch.sealing, 0o750)
        for choice in KeyProtectionChoice.allCases {
            let error = #expect(throws: RightVaultError.self, "\(choice)") { try SealingSetup.open(choice, tcti: Self.absentTCTI(scratch), directory: scratch.sealing) }
            #expect(error?.message.contains("chmod 0700") == true, "\(error?.message ?? "")")
        }
    }

    @Test(.enabled(if: Swtpm.unavailableReason == nil, "\(Swtpm.unavailableReason ?? "")"))
    func autoWithATPMTakesItAndNeverFallsBackOnceItSealed() async throws {
        let scratch = try SealingScratch()
        defer { scratch.remove() }
        try await Swtpm.with { tpm in
            let sealer = try SealingSetup.open(.auto, tcti: tpm.tcti, directory: scratch.sealing) { Issue.record("unexpected: \($0)") }
            #expect(sealer.protection == .tpm2)
            #expect(!WrappingKeyFile(directory: scratch.sealing).exists)
        }

        // The TPM is gone (removed, disabled in the firmware, another tpm_tcti): refused, with no file made.
        for choice in [KeyProtectionChoice.auto, .tpm2] {
            let error = #expect(throws: RightVaultError.self, "\(choice)") {
                try SealingSetup.open(choice, tcti: Self.absentTCTI(scratch), directory: scratch.sealing)
            }
            #expect(error?.kind == .sealingUnavailable)
            #expect(error?.message.contains("sealed to a TPM 2.0, and the TPM at \(Self.absentTCTI(scratch)) cannot be reached") == true,
                    "\(error?.message ?? "")")
        }
        #expect(!WrappingKeyFile(directory: scratch.sealing).exists)
        // Nor may the configuration switch to the file under the TPM's rights.
        let switched = #expect(throws: RightVaultError.self) {
            try SealingSetup.open(.wrappingKey, tcti: Self.absentTCTI(scratch), directory: scratch.sealing)
        }
        #expect(switched?.message.contains("Set key_protection = tpm2") == true, "\(switched?.message ?? "")")
        #expect(!WrappingKeyFile(directory: scratch.sealing).exists)
    }

    @Test(.enabled(if: Swtpm.unavailableReason == nil, "\(Swtpm.unavailableReason ?? "")"))
    func aKeyInTheFileStaysInUseWhenATPMAppears() async throws {
        let scratch = try SealingScratch()
        defer { scratch.remove() }
        try await Swtpm.with { tpm in
            let file = try SealingSetup.open(.wrappingKey, tcti: tpm.tcti, directory: scratch.sealing)
            #expect(file.protection == .wrappingKey, "wrapping-key: the file even with a TPM")
            let blob = try Array("s".utf8).withUnsafeBufferPointer { try file.seal($0, label: []) }

            let auto = try SealingSetup.open(.auto, tcti: tpm.tcti, directory: scratch.sealing)
            #expect(auto.protection == .wrappingKey)
            #expect(try auto.unseal(blob, label: []).count == 1)
            #expect(!TPMSealedKey(directory: scratch.sealing, tcti: tpm.tcti).exists)

            let error = #expect(throws: RightVaultError.self) { try SealingSetup.open(.tpm2, tcti: tpm.tcti, directory: scratch.sealing) }
            #expect(error?.message.contains("Set key_protection = wrapping-key") == true, "\(error?.message ?? "")")
        }
    }
}
