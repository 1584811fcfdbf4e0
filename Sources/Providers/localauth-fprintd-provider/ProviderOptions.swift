// SPDX-License-Identifier: Apache-2.0
import CommandLineKit
import LocalAuthDBus
#if canImport(Glibc)
import Glibc
#endif

/// `localauth-fprintd-provider`'s command line, parsed by the same rules as `localauth`'s and
/// `localauthd`'s (CommandLineKit).
struct ProviderOptions {
    /// The bus that started the provider (`DBUS_STARTER_ADDRESS`: bus activation, or localauthd
    /// through the descriptor's Exec=), else the system bus.
    var bus: DBusBus = getenv("DBUS_STARTER_ADDRESS").map { .address(String(cString: $0)) } ?? .system
    var busName = "org.localauth.Provider.Fprintd"
    /// The bound on each fprintd call (fprintd may wait for polkit; a reader may take a moment to
    /// open). Below localauthd's default provider_timeout (5 s), which bounds each Provider1 call.
    var fprintdTimeout: Duration = .seconds(4)
    var showHelp = false

    /// Every option, once: the parser and `--help` read these rows.
    static let options: [Option<ProviderOptions>] = [
        .flag(\.bus, "--system", setting: .system,
              "serve on the system bus (default, or the bus in $DBUS_STARTER_ADDRESS when the bus or localauthd started the provider; fprintd lives there)"),
        .value(\.bus, "--address", "ADDR", "serve on the bus at ADDR (tests, development)",
               parser: ValueParser.nonEmpty("--address needs a D-Bus address, e.g. unix:path=/run/x.").map { .address($0) }),
        .value(\.busName, "--name", "NAME", "own NAME instead of org.localauth.Provider.Fprintd"),
        .value(\.fprintdTimeout, "--fprintd-timeout", "SEC", "give up on an fprintd call after SEC seconds (default 4)",
               parser: ValueParser { text, _ throws(CommandLineError) in
                   guard let seconds = Double(text), seconds > 0, seconds <= 600 else {
                       throw CommandLineError("--fprintd-timeout takes seconds between 0 and 600, not \(text)")
                   }
                   return .milliseconds(Int64(seconds * 1000))
               }),
        .flag(\.showHelp, "--help", aliases: ["-h"], "show this help"),
    ]

    static var usage: String {
        """
        Usage: localauth-fprintd-provider [OPTIONS]

        A localauthd biometric provider (org.localauth.Provider1) for the fingerprint readers fprintd
        drives. It serves /org/localauth/Provider1 under its bus name, answers only localauthd (the owner
        of org.localauth.LocalAuthentication1), and holds a reader's claim only during an evaluation or
        an enrollment.

        Options:
        \(options.map { TextLayout.entry($0.info.synopsis, $0.info.helpText, column: 25) }.joined(separator: "\n"))

        Exit status: 0 after SIGTERM/SIGINT, 64 bad usage, 69 bus unavailable or name taken.
        """
    }

    struct UsageError: Error, CustomStringConvertible {
        let description: String
    }

    static func parse(_ arguments: [String]) throws(UsageError) -> ProviderOptions {
        var parsed = ProviderOptions()
        do throws(CommandLineError) {
            try CommandLineParser.parse(arguments, into: &parsed, options: options, arguments: [],
                                        subject: CommandLineParser.Subject(name: nil, usage: "localauth-fprintd-provider [OPTIONS]"))
        } catch {
            throw UsageError(description: error.message)
        }
        return parsed
    }
}
