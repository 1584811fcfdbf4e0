// SPDX-License-Identifier: Apache-2.0
import CommandLineKit
import LocalAuthDBus

/// `localauthd`'s command line, parsed by the same rules as `localauth`'s (CommandLineKit).
struct DaemonOptions {
    var bus: DBusBus = .system
    var configPath: String?
    var stateDirectory: String?
    /// Seconds without any client context before exiting (bus activation); nil = never.
    var idleExit: Double?
    var showHelp = false
    var showVersion = false

    /// Every option, once: the parser and `--help` read these rows.
    static let options: [Option<DaemonOptions>] = [
        .flag(\.bus, "--system", setting: .system, "serve on the system bus (default)"),
        .flag(\.bus, "--session", setting: .session, "serve on the user's session bus (development, per-user use)"),
        .value(\.bus, "--address", "ADDR", "serve on the bus at ADDR (e.g. unix:path=/run/x)",
               parser: ValueParser.nonEmpty("--address needs a D-Bus address, e.g. unix:path=/run/x.").map { .address($0) }),
        .value(\.configPath, "--config", "FILE", "read FILE instead of /etc/localauthd/localauthd.conf (must exist)"),
        .value(\.stateDirectory, "--state-dir", "DIR", "keep per-user state in DIR (overrides state_directory and $STATE_DIRECTORY)"),
        .value(\.idleExit, "--idle-exit", "SECONDS", "exit after SECONDS with no client context and no session agent registered (for bus activation; off by default)",
               parser: ValueParser { text, _ throws(CommandLineError) in
                   guard let seconds = Double(text), seconds.isFinite, seconds > 0 else {
                       throw CommandLineError("--idle-exit needs a number of seconds above 0, not \(text)")
                   }
                   return seconds
               }),
        .flag(\.showHelp, "--help", aliases: ["-h"], "show this help"),
        .flag(\.showVersion, "--version", "show the version"),
    ]

    static var usage: String {
        """
        Usage: localauthd [OPTIONS]

        The LocalAuthentication service: evaluates Apple-style policies (biometrics, passcode) for
        clients on D-Bus as org.localauth.LocalAuthentication1.

        Options:
        \(options.map { TextLayout.entry($0.info.synopsis, $0.info.helpText, column: 23) }.joined(separator: "\n"))

        Signals: SIGTERM/SIGINT stop (running evaluations end with SystemCancel), SIGHUP reloads
        the configuration (a bad file is refused and the running configuration kept).

        Exit status: 0 after SIGTERM/SIGINT or idle exit, 64 bad usage, 69 bus unavailable or name taken,
        73 state directory unusable, 78 bad configuration (the message names FILE:LINE).
        """
    }

    struct UsageError: Error, CustomStringConvertible {
        let description: String
    }

    static func parse(_ arguments: [String]) throws(UsageError) -> DaemonOptions {
        var parsed = DaemonOptions()
        do throws(CommandLineError) {
            try CommandLineParser.parse(arguments, into: &parsed, options: options, arguments: [],
                                        subject: CommandLineParser.Subject(name: nil, usage: "localauthd [OPTIONS]",))
        } catch {
            throw UsageError(description: error.message)
        }
        return parsed
    }
}
