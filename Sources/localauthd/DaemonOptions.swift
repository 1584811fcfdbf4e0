// SPDX-License-Identifier: Apache-2.0
import LocalAuthDBus

/// `localauthd`'s command line.
struct DaemonOptions {
    var bus: DBusBus = .system
    var configPath: String?
    var stateDirectory: String?
    /// Seconds without any client context before exiting (bus activation); nil = never.
    var idleExit: Double?
    var showHelp = false
    var showVersion = false

    static let usage = """
    Usage: localauthd [OPTIONS]

    The LocalAuthentication service: evaluates Apple-style policies (biometrics, passcode) for
    clients on D-Bus as org.localauth.LocalAuthentication1.

    Options:
      --system             serve on the system bus (default)
      --session            serve on the user's session bus (development, per-user use)
      --address ADDR       serve on the bus at ADDR (e.g. unix:path=/run/x)
      --config FILE        read FILE instead of /etc/localauthd/localauthd.conf (must exist)
      --state-dir DIR      keep per-user state in DIR (overrides state_directory and $STATE_DIRECTORY)
      --idle-exit SECONDS  exit after SECONDS with no client context (for bus activation; off by default)
      --help               show this help
      --version            show the version

    Signals: SIGTERM/SIGINT stop (running evaluations end with SystemCancel), SIGHUP reloads
    the configuration (a bad file is refused and the running configuration kept).

    Exit status: 0 after SIGTERM/SIGINT or idle exit, 64 bad usage, 69 bus unavailable or name taken,
    73 state directory unusable, 78 bad configuration (the message names FILE:LINE).
    """

    struct UsageError: Error, CustomStringConvertible {
        let description: String
    }

    static func parse(_ arguments: [String]) throws(UsageError) -> DaemonOptions {
        var options = DaemonOptions()
        var remaining = arguments[...]
        func value(for flag: String) throws(UsageError) -> String {
            guard let value = remaining.popFirst(), !value.hasPrefix("--") else {
                throw UsageError(description: "\(flag) needs a value")
            }
            return value
        }
        while let argument = remaining.popFirst() {
            switch argument {
            case "--system": options.bus = .system
            case "--session": options.bus = .session
            case "--address": options.bus = .address(try value(for: argument))
            case "--config": options.configPath = try value(for: argument)
            case "--state-dir": options.stateDirectory = try value(for: argument)
            case "--idle-exit":
                let text = try value(for: argument)
                guard let seconds = Double(text), seconds.isFinite, seconds > 0 else {
                    throw UsageError(description: "--idle-exit needs a number of seconds above 0, not \(text)")
                }
                options.idleExit = seconds
            case "--help", "-h": options.showHelp = true
            case "--version": options.showVersion = true
            default: throw UsageError(description: "unknown option \(argument)")
            }
        }
        return options
    }
}
