// SPDX-License-Identifier: Apache-2.0
import CommandLineKit
import LocalAuthDBus

/// The options every command accepts, before or after the command words.
struct GlobalOptions: Sendable {
    var bus: DBusBus = .system
    var json = false
    /// Reply timeout for ordinary calls; for `evaluate` only when given.
    var timeout: Duration?

    var busDescription: String { bus.description }
    var output: Output { Output(json: json) }
}

/// What the command line asks of the tool itself, besides a command: the global options, help, version.
struct ToolOptions: Sendable {
    var global = GlobalOptions()
    var help = false
    var version = false
    var manualPage = false
    var cHeader = false
    var pythonConstants = false

    static let rows: [Option<ToolOptions>] = [
        .flag(\.global.bus, "--system", setting: .system, "the system bus (default)"),
        .flag(\.global.bus, "--session", setting: .session, "the session bus"),
        .value(\.global.bus, "--address", "ADDR", "any D-Bus address, e.g. unix:path=/run/my-bus",
               parser: ValueParser.nonEmpty("--address needs a D-Bus address, e.g. unix:path=/run/my-bus.").map { .address($0) }),
        .flag(\.global.json, "--json", "machine-readable output: one JSON object per line on stdout, errors as JSON on stderr"),
        .value(\.global.timeout, "--timeout", "SECONDS", "how long to wait for localauthd's replies (default 25; evaluate: no limit)",
               parser: ValueParser { text, _ throws(CommandLineError) in
                   guard let seconds = Double(text), seconds > 0, seconds <= 86_400 else {
                       throw CommandLineError("--timeout needs a number of seconds between 0 and 86400, not “\(text)”.")
                   }
                   return .milliseconds(Int64(seconds * 1000))
               }),
        .flag(\.help, "--help", aliases: ["-h"], "help for localauth or for a command (also -h, and: localauth help COMMAND)"),
        .flag(\.version, "--version", "the version of localauth"),
        // Print the localauth(1) page and the contract's names for C; `make man` keeps man/localauth.1
        // and pam/localauth-api.h in step with them.
        .flag(\.manualPage, "--help-man", "the localauth(1) page in roff", hidden: true),
        .flag(\.cHeader, "--help-c-header", "the contract's names as a C header", hidden: true),
        .flag(\.pythonConstants, "--help-python-api", "the contract's names for the Python desktop agent", hidden: true),
    ]
}
