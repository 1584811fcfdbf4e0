// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The names of localauthd's D-Bus API v1 (`dbus/*.xml`), shared by the daemon and every client
/// in this repository so that none of them spells them out on its own. The interfaces behind
/// these names are declared in ``LocalAuthInterface``.
public enum LocalAuthBusNames {
    public static let busName = "org.localauth.LocalAuthentication1"
    public static let managerPath = "/org/localauth/LocalAuthentication1"
    /// Contexts are `<contextRoot>/<n>`, n > 0.
    public static let contextRoot = "/org/localauth/LocalAuthentication1/context"
    public static let simulatorPath = "/org/localauth/LocalAuthentication1/simulator"
    /// The user's saved rights (``LocalAuthInterface/rights``).
    public static let rightsPath = "/org/localauth/LocalAuthentication1/rights"
    public static let managerInterface = "org.localauth.LocalAuthentication1.Manager"
    public static let contextInterface = "org.localauth.LocalAuthentication1.Context"
    public static let simulatorInterface = "org.localauth.LocalAuthentication1.Simulator"
    public static let rightsInterface = "org.localauth.LocalAuthentication1.Rights"
    /// Served by each agent at ``agentPath`` on its own connection; the daemon calls it.
    public static let agentInterface = "org.localauth.LocalAuthentication1.Agent"
    public static let agentPath = "/org/localauth/LocalAuthentication1/Agent"
    /// Error names are `<errorPrefix><Name>` (`…Error.BiometryLockout`).
    public static let errorPrefix = "org.localauth.LocalAuthentication1.Error."
    /// Where providers report, on localauthd's own bus name.
    public static let providerHostPath = "/org/localauth/LocalAuthentication1/providers"
    public static let providerHostInterface = "org.localauth.LocalAuthentication1.ProviderHost"
    /// What a provider serves, on its own bus name; the daemon calls it.
    public static let providerInterface = "org.localauth.Provider1"
    public static let providerPath = "/org/localauth/Provider1"
    /// Errors a provider returns: `org.localauth.Provider1.Error.<Name>`.
    public static let providerErrorPrefix = "org.localauth.Provider1.Error."

    /// The object path of context number `number`.
    public static func contextPath(_ number: UInt64) -> String { "\(contextRoot)/\(number)" }

    /// The context number in a context object path, or nil for any other path, including another
    /// spelling of a number (`05`, `+5`): each context has exactly one path. Read from the path's
    /// UTF-8 bytes in place, as every call to a context pays for it.
    public static func contextNumber(in path: String) -> UInt64? {
        path.utf8.withContiguousStorageIfAvailable(parseContextNumber) ?? Array(path.utf8).withUnsafeBufferPointer(parseContextNumber)
    }

    private static let contextRootBytes = Array(contextRoot.utf8)
    private static let maximumDigits = Array(String(UInt64.max).utf8)

    private static func parseContextNumber(_ path: UnsafeBufferPointer<UInt8>) -> UInt64? {
        let prefixed = contextRootBytes.withUnsafeBufferPointer { prefix in
            path.count > prefix.count + 1 && path[prefix.count] == UInt8(ascii: "/")
                && memcmp(path.baseAddress!, prefix.baseAddress!, prefix.count) == 0
        }
        guard prefixed else { return nil }
        let digits = path[(contextRootBytes.count + 1)...]
        guard digits.first != UInt8(ascii: "0"), digits.count <= maximumDigits.count else { return nil }
        var number: UInt64 = 0
        for byte in digits {
            let digit = byte &- UInt8(ascii: "0")
            guard digit <= 9 else { return nil }
            number = number &* 10 &+ UInt64(digit)
        }
        // Fewer digits than UInt64.max cannot overflow; as many, they do past it (in the same
        // number of digits, the order of the spellings is the order of the numbers).
        if digits.count == maximumDigits.count, maximumDigits.lexicographicallyPrecedes(digits) { return nil }
        return number
    }
}
