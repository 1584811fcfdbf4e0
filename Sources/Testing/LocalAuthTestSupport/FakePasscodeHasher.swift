// SPDX-License-Identifier: Apache-2.0
import LocalAuthCore
import Synchronization

/// A fast stand-in for Argon2id in rule tests: an FNV-1a digest (never the passcode itself).
/// Not a secure hash; the real one is tested on its own.
public final class FakePasscodeHasher: PasscodeHasher {
    private let verifications = Mutex(0)

    public init() {}

    public var verificationCount: Int { verifications.withLock { $0 } }

    public func hash(_ passcode: Passcode) async throws(LocalAuthError) -> String {
        Self.storedHash(of: passcode)
    }

    public func verify(_ passcode: Passcode, against storedHash: String) async -> Bool {
        verifications.withLock { $0 += 1 }
        return storedHash == Self.storedHash(of: passcode)
    }

    /// What ``hash(_:)`` returns for `passcode`.
    public static func storedHash(of passcode: Passcode) -> String {
        "fnv$" + String(digest(passcode), radix: 16)
    }

    private static func digest(_ passcode: Passcode) -> UInt64 {
        passcode.withBytes { bytes in
            bytes.reduce(0xcbf2_9ce4_8422_2325 as UInt64) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
        }
    }
}

/// A deterministic domain-state hasher for rule tests: FNV-1a of the canonical input, 32 bytes.
public struct FakeDomainStateHasher: DomainStateHasher {
    public init() {}

    public func domainState(user: UInt32, profile: UserProfile) -> [UInt8] {
        let input = Self.canonicalInput(user: user, profile: profile)
        var result: [UInt8] = []
        for lane in 0..<4 as Range<UInt64> {
            let digest = input.reduce(0xcbf2_9ce4_8422_2325 ^ lane) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
            result += withUnsafeBytes(of: digest.littleEndian, Array.init)
        }
        return result
    }
}
