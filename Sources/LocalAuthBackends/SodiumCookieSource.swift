// SPDX-License-Identifier: Apache-2.0
import CSodium
import LocalAuthCore

/// Cookies from libsodium's `randombytes_buf` (the kernel's generator).
public struct SodiumCookieSource: CookieSource {
    public init() {}

    public func cookie() -> String {
        var bytes = [UInt8](repeating: 0, count: 32)
        randombytes_buf(&bytes, bytes.count)
        return Self.hex(bytes)
    }
}
