// SPDX-License-Identifier: Apache-2.0
/// Makes the unguessable values that name an agent's sheet and authorize its answers, and the
/// numbers of contexts (so that no user can count or name another's).
public protocol CookieSource: Sendable {
    /// 32 random bytes from a cryptographic generator, as 64 lowercase hex digits.
    func cookie() -> String
    /// `count` random 64-bit numbers from a cryptographic generator, drawn at once (one system
    /// call where the generator allows it).
    func randomNumbers(_ count: Int) -> [UInt64]
}

/// The standard library's generator: `getrandom(2)` on Linux, cryptographically secure.
public struct SystemCookieSource: CookieSource {
    public init() {}

    public func cookie() -> String {
        var generator = SystemRandomNumberGenerator()
        return Self.hex((0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }

    public func randomNumbers(_ count: Int) -> [UInt64] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in generator.next() }
    }
}

extension CookieSource {
    /// Lowercase hex digits of `bytes`.
    public static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
