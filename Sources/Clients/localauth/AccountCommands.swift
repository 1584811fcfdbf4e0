// SPDX-License-Identifier: Apache-2.0
import CommandLineKit
import LocalAuthAPI
import LocalAuthDBus
import LocalAuthProxies

/// Commands that change the caller's passcode, enrollments and settings, and the administrator's reset.
@MainActor
enum AccountCommands {
    struct SetPasscode: ParsableCommand {
        static let configuration = CommandConfiguration<Self>(
            words: ["passcode", "set"], summary: "Set a passcode (none may be set yet). Asks twice on a terminal; with --stdin reads one line.",
            options: [CommandTable.stdinOption(\.stdin)])
        var stdin = false

        func run(_ global: GlobalOptions) async throws(CLIError) -> Int32 {
            let client = try await DaemonClient.connect(global)
            defer { client.close() }
            guard try await !client.userState().passcodeSet else {
                throw .refused("A passcode is already set; change it with: localauth passcode change")
            }
            var new = try await newPasscode(stdin: stdin)
            defer { Secret.wipe(&new) }
            let argument = DaemonClient.passcodeArgument(new)
            try await client.manager { try await $0.setPasscode(current: .string(""), new: argument) }
            return done(global, "Passcode set.", action: "passcode-set")
        }
    }

    struct ChangePasscode: ParsableCommand {
        static let configuration = CommandConfiguration<Self>(
            words: ["passcode", "change"],
            summary: "Change the passcode. With --stdin: the current passcode on the first line, the new one on the second.",
            options: [CommandTable.stdinOption(\.stdin)])
        var stdin = false

        func run(_ global: GlobalOptions) async throws(CLIError) -> Int32 {
            let client = try await DaemonClient.connect(global)
            defer { client.close() }
            guard try await client.userState().passcodeSet else {
                throw .authentication(.passcodeNotSet, "")
            }
            var current: [UInt8], new: [UInt8]
            if stdin {
                let lines = try await Secret.readStandardInput(lines: 2)
                (current, new) = (lines[0], lines[1])
            } else {
                current = try await PasscodeInput.current(stdin: false)
                new = try await newPasscode(stdin: false)
            }
            defer { Secret.wipe(&current); Secret.wipe(&new) }
            let (currentArgument, newArgument) = (DaemonClient.passcodeArgument(current), DaemonClient.passcodeArgument(new))
            try await client.manager { try await $0.setPasscode(current: currentArgument, new: newArgument) }
            return done(global, "Passcode changed.", action: "passcode-change")
        }
    }

    struct RemovePasscode: ParsableCommand {
        static let configuration = CommandConfiguration<Self>(
            words: ["passcode", "remove"], summary: "Remove the passcode and with it every enrollment.", options: [CommandTable.stdinOption(\.stdin)])
        var stdin = false

        func run(_ global: GlobalOptions) async throws(CLIError) -> Int32 {
            try await withPasscode(global, stdin: stdin, { try await $0.removePasscode(current: $1) }, done: "Passcode removed, and with it every enrollment.",
                                   action: "passcode-remove")
        }
    }

    struct EnrollFingerprint: ParsableCommand {
        static let configuration = CommandConfiguration<Self>(
            words: ["enroll", "fingerprint"], summary: "Enroll a finger (fprintd's names: left-thumb … right-little-finger); needs the passcode.",
            options: [CommandTable.stdinOption(\.stdin)], arguments: [.argument(\.finger, "FINGER", parser: .choice(fingers))])
        var finger = ""
        var stdin = false

        func run(_ global: GlobalOptions) async throws(CLIError) -> Int32 {
            try await enroll(global, stdin: stdin, modality: BiometricModality.fingerprint.rawValue, label: finger, done: "Enrolled fingerprint \(finger).")
        }
    }

    struct EnrollFace: ParsableCommand {
        static let configuration = CommandConfiguration<Self>(
            words: ["enroll", "face"], summary: "Enroll the face (or its alternate appearance); needs the passcode.",
            options: [.flag(\.alternate, "--alternate", "enroll the alternate appearance"), CommandTable.stdinOption(\.stdin)])
        var alternate = false
        var stdin = false

        func run(_ global: GlobalOptions) async throws(CLIError) -> Int32 {
            let label = alternate ? "alternate" : "primary"
            return try await enroll(global, stdin: stdin, modality: BiometricModality.face.rawValue, label: label, done: "Enrolled face \(label).")
        }
    }

    struct UnenrollFingerprint: ParsableCommand {
        static let configuration = CommandConfiguration<Self>(
            words: ["unenroll", "fingerprint"], summary: "Remove an enrolled finger; needs the passcode.",
            options: [CommandTable.stdinOption(\.stdin)], arguments: [.argument(\.finger, "FINGER", parser: .choice(fingers))])
        var finger = ""
        var stdin = false

        func run(_ global: GlobalOptions) async throws(CLIError) -> Int32 {
            let finger = finger
            return try await withPasscode(global, stdin: stdin, { try await $0.unenroll(modality: BiometricModality.fingerprint.rawValue, label: finger, passcode: $1) },
                                   done: "Removed fingerprint \(finger).", action: "unenroll")
        }
    }

    struct UnenrollFace: ParsableCommand {
        static let configuration = CommandConfiguration<Self>(
            words: ["unenroll", "face"], summary: "Remove the enrolled face (both appearances) or only its alternate; needs the passcode.",
            options: [.flag(\.alternate, "--alternate", "remove only the alternate appearance"), CommandTable.stdinOption(\.stdin)])
        var alternate = false
        var stdin = false

        func run(_ global: GlobalOptions) async throws(CLIError) -> Int32 {
            let label = alternate ? "alternate" : "primary"
            return try await withPasscode(global, stdin: stdin, { try await $0.unenroll(modality: BiometricModality.face.rawValue, label: label, passcode: $1) },
                                   done: alternate ? "Removed the alternate face." : "Removed the face (both appearances).", action: "unenroll")
        }
    }

    struct Attention: ParsableCommand {
        static let configuration = CommandConfiguration<Self>(
            words: ["attention"], summary: "Require (on, the default) or do not require attention for a face match; needs the passcode.",
            options: [CommandTable.stdinOption(\.stdin)], arguments: [.argument(\.on, "on|off", parser: .choice([("on", true), ("off", false)]))])
        var on = true
        var stdin = false

        func run(_ global: GlobalOptions) async throws(CLIError) -> Int32 {
            let on = on
            return try await withPasscode(global, stdin: stdin, { try await $0.setRequireAttention(on, passcode: $1) },
                                   done: "Require attention: \(on ? "on" : "off").", action: "attention")
        }
    }

    struct ResetLockout: ParsableCommand {
        static let configuration = CommandConfiguration<Self>(
            words: ["lockout", "reset"],
            summary: "Clear a user's failure counters, delays and locks (root, or polkit's reset-lockout action).",
            options: [.value(\.uid, "--uid", "N", "the user whose counters and locks are cleared", required: true,
                             parser: ValueParser { text, _ throws(CommandLineError) in
                                 guard let uid = UInt32(text) else { throw CommandLineError("lockout reset needs --uid N (a numeric user id).") }
                                 return uid
                             })])
        var uid: UInt32 = 0

        func run(_ global: GlobalOptions) async throws(CLIError) -> Int32 {
            let client = try await DaemonClient.connect(global)
            defer { client.close() }
            let uid = uid
            try await client.manager { try await $0.resetLockout(uid: uid) }
            return done(global, "Lockout of uid \(uid) reset.", action: "lockout-reset")
        }
    }

    /// fprintd's finger names.
    nonisolated static let fingers = ["left-thumb", "left-index-finger", "left-middle-finger", "left-ring-finger", "left-little-finger",
                          "right-thumb", "right-index-finger", "right-middle-finger", "right-ring-finger", "right-little-finger"]

    /// Makes `call`, a Manager call that takes the current passcode (its second argument), after reading it.
    private static func withPasscode(_ global: GlobalOptions, stdin: Bool, _ call: @escaping @Sendable (ManagerProxy, DBusValue) async throws -> Void,
                                     done text: String, action: String) async throws(CLIError) -> Int32 {
        let client = try await DaemonClient.connect(global)
        defer { client.close() }
        guard try await client.userState().passcodeSet else { throw .authentication(.passcodeNotSet, "") }
        var passcode = try await PasscodeInput.current(stdin: stdin)
        defer { Secret.wipe(&passcode) }
        let argument = DaemonClient.passcodeArgument(passcode)
        try await client.manager { try await call($0, argument) }
        return done(global, text, action: action)
    }

    /// `Enroll`, showing each capture a provider's sensor takes (`EnrollProgress`, sent by the
    /// daemon to this connection only): a line on the terminal, a JSON line with `--json`. A
    /// built-in simulator enrolls at once and sends none. Ctrl-C cancels the enrollment.
    private static func enroll(_ global: GlobalOptions, stdin: Bool, modality: String, label: String, done text: String) async throws(CLIError) -> Int32 {
        let client = try await DaemonClient.connect(global)
        defer { client.close() }
        guard try await client.userState().passcodeSet else { throw .authentication(.passcodeNotSet, "") }
        var passcode = try await PasscodeInput.current(stdin: stdin)
        defer { Secret.wipe(&passcode) }
        let daemon = try await client.translate {
            try await client.connection.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                                             member: "GetNameOwner", arguments: [.string(LocalAuthBusNames.busName)]).first?.string ?? ""
        }
        let output = global.output
        let subscription = try await client.translate {
            try await client.connection.subscribe(
                DBusMatchRule(path: LocalAuthBusNames.managerPath, interface: LocalAuthBusNames.managerInterface, member: "EnrollProgress")) { signal in
                guard signal.sender == daemon, signal.arguments.count == 5, let status = signal.arguments[1].string,
                      let completed = signal.arguments[2].uint32, let stages = signal.arguments[3].uint32, let detail = signal.arguments[4].string
                else { return }
                let human = status == "retry"
                    ? "Capture \(completed + 1) of \(stages) could not be used (\(detail)); try again."
                    : "Capture \(completed) of \(stages) taken."
                if output.json {
                    output.result("", json: .object([("progress", .object([("modality", .string(modality)), ("status", .string(status)),
                                                                          ("completedStages", .int(Int(completed))), ("stages", .int(Int(stages))),
                                                                          ("detail", .string(detail))]))]))
                } else {
                    output.note(human)
                }
            }
        }
        defer { client.connection.unsubscribe(subscription) }
        Interrupts.handler = { Task { try? await client.managerProxy.cancelEnrollment() } }
        defer { Interrupts.handler = nil }
        let passcodeArgument = DaemonClient.passcodeArgument(passcode)
        let timeout = global.timeout ?? .seconds(180)
        _ = try await client.translate {
            try await client.managerProxy.enroll(modality: modality, label: label, passcode: passcodeArgument, timeout: timeout)
        }
        return done(global, text, action: "enroll")
    }

    /// The new passcode: asked twice on a terminal, or the first line of standard input with `--stdin`.
    private static func newPasscode(stdin: Bool) async throws(CLIError) -> [UInt8] {
        if stdin { return try await Secret.readStandardInput(lines: 1)[0] }
        var passcodes = try await PasscodeInput.read(stdin: false, prompts: ["New passcode: ", "Repeat the new passcode: "])
        defer { Secret.wipe(&passcodes[1]) }
        guard passcodes[0] == passcodes[1] else {
            Secret.wipe(&passcodes[0])
            throw .refused("The two passcodes differ; nothing was changed.")
        }
        return passcodes[0]
    }

    static func done(_ global: GlobalOptions, _ text: String, action: String) -> Int32 {
        global.output.result(text, json: .object([("ok", true), ("action", .string(action))]))
        return ExitStatus.success
    }
}
