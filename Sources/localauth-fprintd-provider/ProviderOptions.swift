// SPDX-License-Identifier: Apache-2.0
import LocalAuthDBus
#if canImport(Glibc)
import Glibc
#endif

/// `localauth-fprintd-provider`'s command line.
struct ProviderOptions {
    /// The bus that started the provider (`DBUS_STARTER_ADDRESS`: bus activation, or localauthd
    /// through the descriptor's Exec=), else the system bus.
    var bus: DBusBus = getenv("DBUS_STARTER_ADDRESS").map { .address(String(cString: $0)) } ?? .system
    var busName = "org.localauth.Provider.Fprintd"
    /// The bound on each fprintd call (fprintd may wait for polkit; a reader may take a moment to
    /// open). Below localauthd's default provider_timeout (5 s), which bounds each Provider1 call.
    var fprintdTimeout: Duration = .seconds(4)
    var showHelp = false

    static let usage = """
    Usage: localauth-fprintd-provider [OPTIONS]

    A localauthd biometric provider (org.localauth.Provider1) for the fingerprint readers fprintd
    drives. It serves /org/localauth/Provider1 under its bus name, answers only localauthd (the owner
    of org.localauth.LocalAuthentication1), and holds a reader's claim only during an evaluation or
    an enrollment.

    Options:
      --system               serve on the system bus (default, or the bus in $DBUS_STARTER_ADDRESS
                             when the bus or localauthd started the provider; fprintd lives there)
      --address ADDR         serve on the bus at ADDR (tests, development)
      --name NAME            own NAME instead of org.localauth.Provider.Fprintd
      --fprintd-timeout SEC  give up on an fprintd call after SEC seconds (default 4)
      --help                 show this help

    Exit status: 0 after SIGTERM/SIGINT, 64 bad usage, 69 bus unavailable or name taken.
    """

    struct UsageError: Error, CustomStringConvertible {
        let description: String
    }

    static func parse(_ arguments: [String]) throws(UsageError) -> ProviderOptions {
        var options = ProviderOptions()
        var remaining = arguments[...]
        func value(_ option: String) throws(UsageError) -> String {
            guard let value = remaining.popFirst() else { throw UsageError(description: "\(option) needs a value") }
            return value
        }
        while let argument = remaining.popFirst() {
            switch argument {
            case "--system": options.bus = .system
            case "--address": options.bus = .address(try value(argument))
            case "--name": options.busName = try value(argument)
            case "--fprintd-timeout":
                let text = try value(argument)
                guard let seconds = Double(text), seconds > 0, seconds <= 600 else {
                    throw UsageError(description: "--fprintd-timeout takes seconds between 0 and 600, not \(text)")
                }
                options.fprintdTimeout = .milliseconds(Int64(seconds * 1000))
            case "--help", "-h": options.showHelp = true
            default: throw UsageError(description: "unknown option \(argument)")
            }
        }
        return options
    }
}
