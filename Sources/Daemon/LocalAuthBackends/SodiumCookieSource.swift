// SPDX-License-Identifier: Apache-2.0
import CSodium
import LocalAuthCore

/// Cookies and random numbers from libsodium's `randombytes_buf` (the kernel's generator).
public struct SodiumCookieSource: CookieSource {
    public init() {}

    public func cookie() -> String {
        var bytes = [UInt8](repeating: 0, count: 32)
        randombytes_buf(&bytes, bytes.count)
        return Self.hex(bytes)
    }

    public func randomNumbers(_ count: Int) -> [UInt64] {
        var numbers = [UInt64](repeating: 0, count: count)
        numbers.withUnsafeMutableBytes { randombytes_buf($0.baseAddress!, $0.count) }
        return numbers
    }
}
