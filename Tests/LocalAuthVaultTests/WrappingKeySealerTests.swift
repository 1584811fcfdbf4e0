// SPDX-License-Identifier: Apache-2.0
import LocalAuthCore
import LocalAuthVault
import Testing

/// XChaCha20-Poly1305 sealing with a wrapping key: a blob opens with its key and label only, and
/// any change to it is caught.
@Suite struct WrappingKeySealerTests {
    static func sealer(_ byte: UInt8, protection: KeyProtection = .wrappingKey) throws -> WrappingKeySealer {
        try WrappingKeySealer(protection: protection) { $0.update(repeating: byte) }
    }

    static func seal(_ sealer: WrappingKeySealer, _ text: String, label: String) throws -> [UInt8] {
        try Array(text.utf8).withUnsafeBufferPointer { try sealer.seal($0, label: Array(label.utf8)) }
    }

    static func open(_ sealer: WrappingKeySealer, _ blob: [UInt8], label: String) throws -> String {
        try sealer.unseal(blob, label: Array(label.utf8)).withBytes { String(decoding: $0, as: UTF8.self) }
    }

    @Test func aBlobOpensWithItsKeyAndLabel() throws {
        let sealer = try Self.sealer(7)
        #expect(sealer.protection == .wrappingKey)
        let blob = try Self.seal(sealer, "correct horse battery staple", label: "right-1")
        #expect(blob.count == 1 + 24 + 28 + 16, "version ‖ nonce ‖ ciphertext ‖ tag")
        #expect(blob[0] == 1)
        #expect(!blob.indices.dropLast(5).contains { Array(blob[$0..<$0 + 5]) == Array("horse".utf8) }, "no plaintext in the blob")
        #expect(try Self.open(sealer, blob, label: "right-1") == "correct horse battery staple")
        // The same key in another sealer (the next start) opens it too.
        #expect(try Self.open(try Self.sealer(7), blob, label: "right-1") == "correct horse battery staple")
    }

    @Test func sealingTwiceGivesDifferentBlobs() throws {
        let sealer = try Self.sealer(1)
        let first = try Self.seal(sealer, "same", label: "l")
        let second = try Self.seal(sealer, "same", label: "l")
        #expect(first != second, "a fresh random nonce each time")
        #expect(try Self.open(sealer, second, label: "l") == "same")
    }

    @Test func anEmptyPlaintextRoundTrips() throws {
        let sealer = try Self.sealer(2)
        let blob = try Self.seal(sealer, "", label: "empty")
        #expect(blob.count == 41)
        #expect(try sealer.unseal(blob, label: Array("empty".utf8)).isEmpty)
        #expect(throws: RightVaultError.self) { try sealer.unseal(blob, label: Array("other".utf8)) }
    }

    @Test func aWrongLabelDoesNotOpen() throws {
        let sealer = try Self.sealer(3)
        let blob = try Self.seal(sealer, "secret", label: "localauthd-right-v1\u{0}1000\u{0}app\u{0}id\u{0}1")
        let error = #expect(throws: RightVaultError.self) {
            try Self.open(sealer, blob, label: "localauthd-right-v1\u{0}1001\u{0}app\u{0}id\u{0}1")
        }
        #expect(error?.kind == .corrupt)
        #expect(error?.message.contains("does not open") == true)
    }

    @Test func anotherKeyDoesNotOpen() throws {
        let blob = try Self.seal(try Self.sealer(4), "secret", label: "l")
        let error = #expect(throws: RightVaultError.self) { try Self.open(try Self.sealer(5), blob, label: "l") }
        #expect(error?.kind == .corrupt)
    }

    @Test func everyAlteredByteIsCaught() throws {
        let sealer = try Self.sealer(6)
        let blob = try Self.seal(sealer, "tamper me", label: "l")
        for index in blob.indices {
            var altered = blob
            altered[index] ^= 0x01
            let error = #expect(throws: RightVaultError.self, "byte \(index)") { try sealer.unseal(altered, label: Array("l".utf8)) }
            #expect(error?.kind == .corrupt)
        }
        let truncated = #expect(throws: RightVaultError.self) { try sealer.unseal(Array(blob.prefix(40)), label: Array("l".utf8)) }
        #expect(truncated?.kind == .corrupt)
        #expect(throws: RightVaultError.self) { try sealer.unseal(Array(blob.dropLast()), label: Array("l".utf8)) }
        #expect(throws: RightVaultError.self) { try sealer.unseal(blob + [0], label: Array("l".utf8)) }
    }

    @Test func theProtectionIsTheSourcesWord() throws {
        #expect(try Self.sealer(8, protection: .tpm2).protection == .tpm2)
    }

    @Test func aFailingKeySourceFailsTheSealer() {
        let error = #expect(throws: RightVaultError.self) {
            try WrappingKeySealer(protection: .wrappingKey) { (_) throws(RightVaultError) in
                throw RightVaultError(.sealingUnavailable, "no key here")
            }
        }
        #expect(error == RightVaultError(.sealingUnavailable, "no key here"))
    }
}
