// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthCore
@testable import LocalAuthVault
import Testing

@Suite("X9.63 KDF with SHA-256", .timeLimit(.minutes(2)))
struct X963KDFTests {
    private func derive(_ secret: [UInt8], _ sharedInfo: [UInt8], _ size: Int) throws(RightVaultError) -> [UInt8] {
        try secret.withUnsafeBufferPointer { secret throws(RightVaultError) in
            try X963KDF.sha256(secret: secret, sharedInfo: sharedInfo, size: size).revealed
        }
    }

    /// NIST CAVP's ANS X9.63-2001 KDF vectors (ansx963_2001.rsp), [SHA-256], shared secret 192 bits,
    /// no SharedInfo, 128 bits of key data, COUNT = 0.
    @Test func theNISTVectorDerives() throws {
        let key = try derive([UInt8](hexString: "96c05619d56c328ab95fe84b18264b08725b85e33fd34f08"), [], 16)
        #expect(key.hexString == "443024c3dae66b95e6f5670601558f71")
    }

    /// OpenSSL's own X963KDF (`openssl kdf … X963KDF`), a separate implementation, over one and
    /// several SHA-256 blocks (the counter runs 1, 2, 3, 4 big-endian).
    @Test(arguments: [1, 16, 32, 33, 64, 100])
    func itAgreesWithOpenSSLsX963KDF(size: Int) async throws {
        let tools = try ReferenceTools()
        let secret = (0..<32).map { _ in UInt8.random(in: 0...255) }
        let sharedInfo = (0..<(size % 7 * 5)).map { _ in UInt8.random(in: 0...255) }
        var arguments = ["kdf", "-keylen", String(size), "-kdfopt", "digest:SHA256", "-kdfopt", "hexsecret:" + secret.hexString]
        if !sharedInfo.isEmpty { arguments += ["-kdfopt", "hexinfo:" + sharedInfo.hexString] }
        let output = try await tools.opensslSucceeding(arguments + ["X963KDF"])
        let expected = output.trimmingCharacters(in: .whitespacesAndNewlines).replacingOccurrences(of: ":", with: "").lowercased()
        #expect(try derive(secret, sharedInfo, size).hexString == expected)
    }

    @Test(arguments: [0, -1, X963KDF.maximumSize + 1])
    func aSizeOutOfRangeIsRefused(size: Int) {
        #expect(throws: RightVaultError.self) { try derive([1, 2, 3], [], size) }
        do {
            _ = try derive([1, 2, 3], [], size)
        } catch {
            #expect(error.kind == .invalidInput)
            #expect(error.message.contains(String(size)))
        }
    }
}
