// SPDX-License-Identifier: Apache-2.0
import LocalAuthDBus

/// One option of a command: a flag, or an option with a value (`--reason TEXT`, `--reason=TEXT`).
struct OptionSpec: Sendable {
    let name: String
    /// nil for a flag.
    let valueName: String?
    let help: String
    /// The parser refuses the command without it; usage and help show it without brackets.
    var required = false

    static func flag(_ name: String, _ help: String) -> OptionSpec { OptionSpec(name: name, valueName: nil, help: help) }
    static func value(_ name: String, _ valueName: String, _ help: String, required: Bool = false) -> OptionSpec {
        OptionSpec(name: name, valueName: valueName, help: help, required: required)
    }

    /// `--name VALUE` or `--name`.
    var synopsis: String { name + (valueName.map { " " + $0 } ?? "") }
    var helpText: String { help + (required ? " (required)" : "") }
}

/// One command: its words, arguments, options, help and what runs it.
struct CommandSpec: Sendable {
    let words: [String]
    /// Positional arguments as shown in the usage; those in brackets are optional.
    let arguments: [String]
    let options: [OptionSpec]
    let summary: String
    /// Extra help text (what it prints, what it needs).
    let details: String
    let run: @Sendable @MainActor (Invocation) async throws(CLIError) -> Int32

    var name: String { words.joined(separator: " ") }
    var requiredArguments: Int { arguments.filter { !$0.hasPrefix("[") }.count }

    /// The command and its arguments, as the overview lists it.
    var synopsis: String { ([name] + arguments).joined(separator: " ") }

    /// Required options first and without brackets, then the arguments, then the optional options.
    var usage: String { usageWords.joined(separator: " ") }

    /// The usage in the units a line may break between.
    var usageWords: [String] {
        ["localauth", name] + options.filter(\.required).map(\.synopsis) + arguments
            + options.filter { !$0.required }.map { "[" + $0.synopsis + "]" }
    }

    var help: String {
        let usageLines = TextLayout.fill(["Usage:"] + usageWords, width: TextLayout.width - 4)
        var lines = [usageLines[0]] + usageLines.dropFirst().map { "    " + $0 } + [""] + TextLayout.wrap(summary)
        if !details.isEmpty { lines += [""] + TextLayout.wrap(details) }
        if !options.isEmpty {
            lines += ["", "Options:"] + options.map { TextLayout.entry($0.synopsis, $0.helpText, column: CommandTable.optionColumn) }
        }
        return (lines + ["", CommandTable.globalHelp]).joined(separator: "\n")
    }
}

/// Every command of `localauth`, in the order `--help` lists them.
@MainActor
enum CommandTable {
    static let policyOption = OptionSpec.value(
        "--policy", "POLICY", "biometrics (1), owner (2, the default: biometrics or passcode), companion (3), biometrics-or-companion (4), wrist (5)")
    nonisolated static let optionColumn = 24
    nonisolated static let commandColumn = 26
    static let stdinOption = OptionSpec.flag("--stdin", "read passcodes from standard input, one per line, instead of the terminal")

    static let commands: [CommandSpec] = [
        CommandSpec(words: ["status"], arguments: [], options: [], summary: "Show backends, biometry type, enrollments, passcode, require-attention and lockouts.",
                    details: "", run: StatusCommands.status),
        CommandSpec(words: ["backends"], arguments: [], options: [],
                    summary: "List the enabled backends: id, modality, kind (built-in or provider), provider version, state.",
                    details: "A provider is a sensor in a separate process; its state says why it is not available (down: …, refused: …).",
                    run: StatusCommands.backends),
        CommandSpec(words: ["can-evaluate"], arguments: [], options: [policyOption],
                    summary: "Check whether a policy could be evaluated now; the exit status says yes (0) or why not.",
                    details: "Counts nothing and asks for nothing.", run: StatusCommands.canEvaluate),
        CommandSpec(words: ["evaluate"], arguments: [], options: [
            .value("--reason", "TEXT", "why you ask, shown to the user", required: true),
            policyOption,
            .value("--fallback-title", "T", "title of the fallback choice (default “Enter Password”; empty: no fallback)"),
            .value("--cancel-title", "T", "title of the cancel choice (default “Cancel”)"),
            .flag("--no-interaction", "fail with notInteractive unless the reuse window satisfies the policy"),
            .value("--reuse", "SECONDS", "accept a device unlock within this many seconds (at most 300)"),
            .flag("--passcode-stdin", "read the passcode from the first line of standard input (policy owner)"),
        ], summary: "Evaluate a policy: show the daemon's prompts, take a touch, a face or the passcode.",
                    details: """
                    Prompts appear as they come. With policy owner the passcode is read from the terminal without
                    echo, also while the sensors listen: type it and press Enter. Press Enter on an empty line to
                    choose the fallback (“Enter Password”: policy biometrics ends with userFallback, policy owner
                    asks for the passcode). Ctrl-C cancels the evaluation (exit status 2, userCancel).
                    """, run: EvaluateCommand.run),
        CommandSpec(words: ["passcode", "set"], arguments: [], options: [stdinOption],
                    summary: "Set a passcode (none may be set yet). Asks twice on a terminal; with --stdin reads one line.",
                    details: "", run: AccountCommands.setPasscode),
        CommandSpec(words: ["passcode", "change"], arguments: [], options: [stdinOption],
                    summary: "Change the passcode. With --stdin: the current passcode on the first line, the new one on the second.",
                    details: "", run: AccountCommands.changePasscode),
        CommandSpec(words: ["passcode", "remove"], arguments: [], options: [stdinOption],
                    summary: "Remove the passcode and with it every enrollment.", details: "", run: AccountCommands.removePasscode),
        CommandSpec(words: ["enroll", "fingerprint"], arguments: ["FINGER"], options: [stdinOption],
                    summary: "Enroll a finger (fprintd's names: left-thumb … right-little-finger); needs the passcode.",
                    details: "", run: AccountCommands.enrollFingerprint),
        CommandSpec(words: ["enroll", "face"], arguments: [], options: [.flag("--alternate", "enroll the alternate appearance"), stdinOption],
                    summary: "Enroll the face (or its alternate appearance); needs the passcode.", details: "", run: AccountCommands.enrollFace),
        CommandSpec(words: ["unenroll", "fingerprint"], arguments: ["FINGER"], options: [stdinOption],
                    summary: "Remove an enrolled finger; needs the passcode.", details: "", run: AccountCommands.unenrollFingerprint),
        CommandSpec(words: ["unenroll", "face"], arguments: [], options: [.flag("--alternate", "remove only the alternate appearance"), stdinOption],
                    summary: "Remove the enrolled face (both appearances) or only its alternate; needs the passcode.", details: "",
                    run: AccountCommands.unenrollFace),
        CommandSpec(words: ["enrollments"], arguments: [], options: [], summary: "List your enrollments.", details: "",
                    run: StatusCommands.enrollments),
        CommandSpec(words: ["attention"], arguments: ["on|off"], options: [stdinOption],
                    summary: "Require (on, the default) or do not require attention for a face match; needs the passcode.",
                    details: "", run: AccountCommands.attention),
        CommandSpec(words: ["sim", "touch"], arguments: ["FINGER"], options: [],
                    summary: "Simulator: touch the fingerprint sensor with a finger (a match if enrolled).", details: SimulatorCommands.queueNote,
                    run: SimulatorCommands.touch),
        CommandSpec(words: ["sim", "retry"], arguments: ["REASON"], options: [],
                    summary: "Simulator: a fingerprint read that cannot be judged: too-short, not-centered, remove-and-retry, too-fast.",
                    details: SimulatorCommands.queueNote, run: SimulatorCommands.retry),
        CommandSpec(words: ["sim", "face"], arguments: ["[primary|alternate|unknown|none]"],
                    options: [.flag("--inattentive", "the face does not pay attention")],
                    summary: "Simulator: show a face (default primary; unknown is a non-match, none is no face).",
                    details: SimulatorCommands.queueNote, run: SimulatorCommands.face),
        CommandSpec(words: ["sim", "connect"], arguments: ["fingerprint|face"], options: [],
                    summary: "Simulator: connect a sensor.", details: "", run: SimulatorCommands.connect),
        CommandSpec(words: ["sim", "disconnect"], arguments: ["fingerprint|face"], options: [],
                    summary: "Simulator: disconnect a sensor.", details: "", run: SimulatorCommands.disconnect),
        CommandSpec(words: ["sim", "cancel"], arguments: [], options: [],
                    summary: "Simulator: press Cancel on the sheet of the oldest running evaluation (it ends with userCancel).",
                    details: SimulatorCommands.sheetNote, run: SimulatorCommands.cancel),
        CommandSpec(words: ["sim", "fallback"], arguments: [], options: [],
                    summary: "Simulator: press the fallback button on that sheet (userFallback, or the passcode for policy 2).",
                    details: SimulatorCommands.sheetNote, run: SimulatorCommands.fallback),
        CommandSpec(words: ["sim", "reset"], arguments: [], options: [],
                    summary: "Simulator: drop queued input and connect every sensor.", details: "", run: SimulatorCommands.reset),
        CommandSpec(words: ["monitor"], arguments: [], options: [
            .value("--interval", "SECONDS", "ignored: monitor follows the daemon's signals (kept for old scripts)"),
            .value("--count", "N", "stop after N lines"),
        ], summary: "Follow your state live: one line per change (--json: JSON lines).", details: MonitorCommand.details,
                    run: MonitorCommand.run),
        CommandSpec(words: ["lockout", "reset"], arguments: [],
                    options: [.value("--uid", "N", "the user whose counters and locks are cleared", required: true)],
                    summary: "Clear a user's failure counters, delays and locks (root, or polkit's reset-lockout action).", details: "", run: AccountCommands.resetLockout),
        CommandSpec(words: ["help"], arguments: ["[COMMAND]", "[SUBCOMMAND]"], options: [],
                    summary: "Show the help of localauth, of a command or of a group of commands (like --help).", details: "",
                    run: { invocation throws(CLIError) in
                        Output.write(try ArgumentParser.helpText(for: invocation.positionals), to: 1)
                        return ExitStatus.success
                    }),
        CommandSpec(words: ["completion"], arguments: ["bash"], options: [],
                    summary: "Print the bash completion script (the package installs it for bash-completion).", details: "",
                    run: { invocation throws(CLIError) in
                        _ = try invocation.choice(0, of: ["bash"])
                        Output.write(CompletionScript.bash, to: 1)
                        return ExitStatus.success
                    }),
    ]

    /// The options every command accepts, before or after the command words.
    nonisolated static let globalOptions: [OptionSpec] = [
        .flag("--system", "the system bus (default)"),
        .flag("--session", "the session bus"),
        .value("--address", "ADDR", "any D-Bus address, e.g. unix:path=/run/my-bus"),
        .flag("--json", "machine-readable output: one JSON object per line on stdout, errors as JSON on stderr"),
        .value("--timeout", "SECONDS", "how long to wait for localauthd's replies (default 25; evaluate: no limit)"),
        .flag("--help", "help for localauth or for a command (also -h, and: localauth help COMMAND)"),
        .flag("--version", "the version of localauth"),
    ]

    nonisolated static var globalHelp: String {
        (["Global options (before or after the command):"]
            + globalOptions.map { TextLayout.entry($0.synopsis, $0.helpText, column: optionColumn) }).joined(separator: "\n")
    }

    static var overview: String {
        var lines = ["Usage: localauth [global options] COMMAND [arguments]", ""]
        lines += TextLayout.wrap("A client of localauthd, the LocalAuthentication service, for people and scripts.")
        lines += ["", "Commands:"] + commands.map { TextLayout.entry($0.synopsis, $0.summary, column: commandColumn) }
        lines += ["", globalHelp, "", "Exit status:", ExitStatus.table, ""]
        lines += ["localauth help COMMAND (or localauth COMMAND --help) shows a command's options."]
        return lines.joined(separator: "\n")
    }

    /// The commands whose first word is `group` (`sim`, `passcode`, ...), with their summaries.
    static func groupHelp(_ group: [CommandSpec]) -> String {
        (["Usage: localauth \(group[0].words[0]) COMMAND [arguments]", "", "Commands:"]
            + group.map { TextLayout.entry($0.synopsis, $0.summary, column: commandColumn) }
            + ["", "localauth help \(group[0].words[0]) COMMAND shows a command's options."]).joined(separator: "\n")
    }

    /// The words an argument or an option value may be, for completion; empty when it is free text.
    static func values(of placeholder: String) -> [String] {
        switch placeholder {
        case "FINGER": AccountCommands.fingers
        case "REASON": SimulatorCommands.retryReasons
        case "POLICY": Policy.allCases.map(\.name)
        case "[COMMAND]": Array(Set(commands.map { $0.words[0] })).sorted()
        case "[SUBCOMMAND]": Array(Set(commands.compactMap { $0.words.count > 1 ? $0.words[1] : nil })).sorted()
        default:  // literal choices such as on|off, or none for free text such as TEXT
            placeholder.first(where: \.isLetter)?.isLowercase == true
                ? placeholder.filter { $0 != "[" && $0 != "]" }.split(separator: "|").map(String.init) : []
        }
    }

    /// Every command name and group word, for "did you mean".
    static var vocabulary: [String] {
        var names = Set(commands.map(\.name))
        names.formUnion(commands.map { $0.words[0] })
        return names.sorted()
    }
}
