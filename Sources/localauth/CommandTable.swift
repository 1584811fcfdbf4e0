import LocalAuthDBus

/// One option of a command: a flag, or an option with a value (`--reason TEXT`, `--reason=TEXT`).
struct OptionSpec: Sendable {
    let name: String
    /// nil for a flag.
    let valueName: String?
    let help: String

    static func flag(_ name: String, _ help: String) -> OptionSpec { OptionSpec(name: name, valueName: nil, help: help) }
    static func value(_ name: String, _ valueName: String, _ help: String) -> OptionSpec {
        OptionSpec(name: name, valueName: valueName, help: help)
    }
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

    var usage: String {
        (["localauth", name] + arguments + options.map { option in
            "[" + option.name + (option.valueName.map { " " + $0 } ?? "") + "]"
        }).joined(separator: " ")
    }

    var help: String {
        var text = "Usage: \(usage)\n\n\(summary)\n"
        if !details.isEmpty { text += "\n\(details)\n" }
        if !options.isEmpty {
            text += "\nOptions:\n"
            for option in options {
                let left = option.name + (option.valueName.map { " " + $0 } ?? "")
                text += "  \(left.padding(toLength: 22))\(option.help)\n"
            }
        }
        return text + "\n" + CommandTable.globalHelp
    }
}

/// Every command of `localauth`, in the order `--help` lists them.
@MainActor
enum CommandTable {
    static let policyOption = OptionSpec.value(
        "--policy", "POLICY", "biometrics (1), owner (2, the default: biometrics or passcode), companion (3), biometrics-or-companion (4), wrist (5)")
    static let stdinOption = OptionSpec.flag("--stdin", "read passcodes from standard input, one per line, instead of the terminal")

    static let commands: [CommandSpec] = [
        CommandSpec(words: ["status"], arguments: [], options: [], summary: "Show backends, biometry type, enrollments, passcode, require-attention and lockouts.",
                    details: "", run: StatusCommands.status),
        CommandSpec(words: ["can-evaluate"], arguments: [], options: [policyOption],
                    summary: "Check whether a policy could be evaluated now; the exit status says yes (0) or why not.",
                    details: "Counts nothing and asks for nothing.", run: StatusCommands.canEvaluate),
        CommandSpec(words: ["evaluate"], arguments: [], options: [
            .value("--reason", "TEXT", "why you ask, shown to the user (required)"),
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
            .value("--interval", "SECONDS", "how often to read your state (default 1, at least 0.05)"),
            .value("--count", "N", "stop after N lines"),
        ], summary: "Follow your state live: one line per change (--json: JSON lines).", details: MonitorCommand.details,
                    run: MonitorCommand.run),
        CommandSpec(words: ["lockout", "reset"], arguments: [], options: [.value("--uid", "N", "the user whose counters and locks are cleared (required)")],
                    summary: "Clear a user's failure counters, delays and locks (root only).", details: "", run: AccountCommands.resetLockout),
    ]

    nonisolated static let globalHelp = """
        Global options (before or after the command):
          --system              the system bus (default)
          --session             the session bus
          --address ADDR        any D-Bus address, e.g. unix:path=/run/my-bus
          --json                machine-readable output: one JSON object per line on stdout, errors as JSON on stderr
          --timeout SECONDS     how long to wait for localauthd's replies (default 25; evaluate: no limit)
          --help, -h            help for localauth or for a command
          --version             the version of localauth
        """

    static var overview: String {
        var text = "Usage: localauth [global options] COMMAND [arguments]\n\n"
        text += "A client of localauthd, the LocalAuthentication service, for people and scripts.\n\nCommands:\n"
        for command in commands {
            text += "  \((command.name + (command.arguments.isEmpty ? "" : " " + command.arguments.joined(separator: " "))).padding(toLength: 40))\(command.summary)\n"
        }
        text += "\n" + globalHelp + "\n\nExit status:\n" + ExitStatus.table + "\n\n"
        text += "localauth COMMAND --help shows a command's options.\n"
        return text
    }

    /// Every command name and group word, for "did you mean".
    static var vocabulary: [String] {
        var names = Set(commands.map(\.name))
        names.formUnion(commands.map { $0.words[0] })
        return names.sorted()
    }
}
