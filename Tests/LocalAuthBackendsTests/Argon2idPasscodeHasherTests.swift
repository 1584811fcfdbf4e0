// SPDX-License-Identifier: Apache-2.0
import LocalAuthBackends
import LocalAuthCore
import Testing

/// The real Argon2id at libsodium's interactive limits: ~50–150 ms per call, so few calls.
@Suite("Argon2id passcode hashing", .timeLimit(.minutes(1)))
struct Argon2idPasscodeHasherTests {
    static let secret = "correct horse battery"

    @Test func theHashIsArgon2idAtInteractiveLimitsAndVerifiesOnlyTheRightPasscode() async throws {
        let hasher = try Argon2idPasscodeHasher()
        let hash = try await hasher.hash(Passcode(Self.secret))
        #expect(hash.hasPrefix("$argon2id$"))
        #expect(hash.contains("$m=65536,t=2,p=1$"), "libsodium's interactive limits: \(hash)")
        #expect(!hash.contains(Self.secret))
        #expect(!hash.utf8.contains(0))
        #expect(await hasher.verify(Passcode(Self.secret), against: hash))
        #expect(await !hasher.verify(Passcode(Self.secret + "!"), against: hash))
    }

    @Test func twoHashesOfOnePasscodeDifferBecauseOfTheSalt() async throws {
        let hasher = try Argon2idPasscodeHasher()
        async let first = hasher.hash(Passcode(Self.secret))
        async let second = hasher.hash(Passcode(Self.secret))
        let (a, b) = try await (first, second)
        #expect(a != b)
        #expect(a.hasPrefix("$argon2id$") && b.hasPrefix("$argon2id$"))
    }

    @Test(arguments: ["", "garbage", "$argon2id$", "$argon2id$v=19$m=65536,t=2,p=1$AAAA$BBBB", "$2b$12$abcdefghijklmnopqrstuv"])
    func aGarbageHashNeverVerifies(_ stored: String) async throws {
        let hasher = try Argon2idPasscodeHasher()
        #expect(await !hasher.verify(Passcode(Self.secret), against: stored))
    }

    /// A passcode is a byte string, not a C string: bytes after a NUL count.
    @Test func bytesAfterANulCount() async throws {
        let hasher = try Argon2idPasscodeHasher(opsLimit: 1, memLimit: 8192)  // lowered: this is about lengths, not cost
        let withNul = Passcode(bytes: [0x31, 0x32, 0x00, 0x33, 0x34])
        let hash = try await hasher.hash(withNul)
        #expect(hash.hasPrefix("$argon2id$"))
        #expect(await hasher.verify(Passcode(bytes: [0x31, 0x32, 0x00, 0x33, 0x34]), against: hash))
        #expect(await !hasher.verify(Passcode(bytes: [0x31, 0x32]), against: hash))
        #expect(await !hasher.verify(Passcode(bytes: [0x31, 0x32, 0x00, 0x33, 0x35]), against: hash))
    }
}
