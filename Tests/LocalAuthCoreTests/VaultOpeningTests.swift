// SPDX-License-Identifier: Apache-2.0
import LocalAuthCore
import LocalAuthTestSupport
import Synchronization
import Testing

@Suite("The vault opens at its first use, once")
struct VaultOpeningTests {
    @Test func nothingIsOpenedBeforeTheFirstRead() {
        let opened = Atomic(0)
        let opening = VaultOpening {
            opened.add(1, ordering: .relaxed)
            return .success(SodiumTestVault())
        }
        #expect(opened.load(ordering: .relaxed) == 0)
        _ = opening.result
        _ = opening.result
        #expect(opened.load(ordering: .relaxed) == 1)
    }

    @Test func aFailureIsKeptAndNotRetried() {
        let opened = Atomic(0)
        let opening = VaultOpening {
            opened.add(1, ordering: .relaxed)
            return .failure(RightVaultError(.sealingUnavailable, "The TPM that sealed the wrapping key is not there."))
        }
        for _ in 0..<3 {
            guard case .failure(let error) = opening.result else { Issue.record("a failed opening became a vault"); return }
            #expect(error.kind == .sealingUnavailable)
        }
        #expect(opened.load(ordering: .relaxed) == 1)
    }

    @Test func anEngineDoesNotOpenItsVaultToStartOrToEvaluate() async throws {
        let opened = Atomic(0)
        let vault = SodiumTestVault()
        let h = try EngineHarness(vaultOpening: VaultOpening {
            opened.add(1, ordering: .relaxed)
            return .success(vault)
        })
        try await h.setUp(fingers: ["right-index-finger"])
        let context = try await h.context()
        let evaluation = await h.begin(.deviceOwnerAuthenticationWithBiometrics, on: context)
        try await h.fingerprint.touch("right-index-finger")
        #expect(try await evaluation.result.get() == .biometricMatch(.fingerprint))
        #expect(opened.load(ordering: .relaxed) == 0)
        #expect(await h.engine.keyProtection == vault.protection)
        #expect(opened.load(ordering: .relaxed) == 1)
    }
}
