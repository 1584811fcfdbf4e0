// SPDX-License-Identifier: Apache-2.0
import LocalAuthDBus

/// Commands that change the caller's passcode, enrollments and settings, and the administrator's reset.
@MainActor
enum AccountCommands {
    static func setPasscode(_ invocation: Invocation) async throws(CLIError) -> Int32 {
        let client = try await DaemonClient.connect(invocation.global)
        defer { client.close() }
        guard try await !client.userState().passcodeSet else {
            throw .refused("A passcode is already set; change it with: localauth passcode change")
        }
        var new = try await newPasscode(invocation)
        defer { Secret.wipe(&new) }
        try await client.manager("SetPasscode", [.string(""), DaemonClient.passcodeArgument(new)])
        return done(invocation, "Passcode set.", action: "passcode-set")
    }

    static func changePasscode(_ invocation: Invocation) async throws(CLIError) -> Int32 {
        let client = try await DaemonClient.connect(invocation.global)
        defer { client.close() }
        guard try await client.userState().passcodeSet else {
            throw .authentication(.passcodeNotSet, "")
        }
        var current: [UInt8], new: [UInt8]
        if invocation.flag("--stdin") {
            let lines = try await Secret.readStandardInput(lines: 2)
            (current, new) = (lines[0], lines[1])
        } else {
            current = try await PasscodeInput.current(invocation)
            new = try await newPasscode(invocation)
        }
        defer { Secret.wipe(&current); Secret.wipe(&new) }
        try await client.manager("SetPasscode", [DaemonClient.passcodeArgument(current), DaemonClient.passcodeArgument(new)])
        return done(invocation, "Passcode changed.", action: "passcode-change")
    }

    static func removePasscode(_ invocation: Invocation) async throws(CLIError) -> Int32 {
        try await withPasscode(invocation, "RemovePasscode", [], done: "Passcode removed, and with it every enrollment.", action: "passcode-remove")
    }

    static func enrollFingerprint(_ invocation: Invocation) async throws(CLIError) -> Int32 {
        let finger = try invocation.choice(0, of: fingers)
        return try await enroll(invocation, modality: "fingerprint", label: finger, done: "Enrolled fingerprint \(finger).")
    }

    static func enrollFace(_ invocation: Invocation) async throws(CLIError) -> Int32 {
        let label = invocation.flag("--alternate") ? "alternate" : "primary"
        return try await enroll(invocation, modality: "face", label: label, done: "Enrolled face \(label).")
    }

    static func unenrollFingerprint(_ invocation: Invocation) async throws(CLIError) -> Int32 {
        let finger = try invocation.choice(0, of: fingers)
        return try await withPasscode(invocation, "Unenroll", [.string("fingerprint"), .string(finger)],
                                      done: "Removed fingerprint \(finger).", action: "unenroll")
    }

    static func unenrollFace(_ invocation: Invocation) async throws(CLIError) -> Int32 {
        let label = invocation.flag("--alternate") ? "alternate" : "primary"
        return try await withPasscode(invocation, "Unenroll", [.string("face"), .string(label)],
                                      done: label == "primary" ? "Removed the face (both appearances)." : "Removed the alternate face.",
                                      action: "unenroll")
    }

    static func attention(_ invocation: Invocation) async throws(CLIError) -> Int32 {
        let on = try invocation.choice(0, of: ["on", "off"]) == "on"
        return try await withPasscode(invocation, "SetRequireAttention", [.bool(on)],
                                      done: "Require attention: \(on ? "on" : "off").", action: "attention")
    }

    static func resetLockout(_ invocation: Invocation) async throws(CLIError) -> Int32 {
        guard let text = invocation.value("--uid"), let uid = UInt32(text) else {
            throw .usage("lockout reset needs --uid N (a numeric user id).")
        }
        let client = try await DaemonClient.connect(invocation.global)
        defer { client.close() }
        try await client.manager("ResetLockout", [.uint32(uid)])
        return done(invocation, "Lockout of uid \(uid) reset.", action: "lockout-reset")
    }

    /// fprintd's finger names.
    static let fingers = ["left-thumb", "left-index-finger", "left-middle-finger", "left-ring-finger", "left-little-finger",
                          "right-thumb", "right-index-finger", "right-middle-finger", "right-ring-finger", "right-little-finger"]

    /// Calls a Manager method whose last argument is the current passcode.
    private static func withPasscode(_ invocation: Invocation, _ member: String, _ arguments: [DBusValue],
                                     done text: String, action: String) async throws(CLIError) -> Int32 {
        let client = try await DaemonClient.connect(invocation.global)
        defer { client.close() }
        guard try await client.userState().passcodeSet else { throw .authentication(.passcodeNotSet, "") }
        var passcode = try await PasscodeInput.current(invocation)
        defer { Secret.wipe(&passcode) }
        try await client.manager(member, arguments + [DaemonClient.passcodeArgument(passcode)])
        return done(invocation, text, action: action)
    }

    /// `Enroll`, showing each capture a provider's sensor takes (`EnrollProgress`, sent by the
    /// daemon to this connection only): a line on the terminal, a JSON line with `--json`. A
    /// built-in simulator enrolls at once and sends none. Ctrl-C cancels the enrollment.
    private static func enroll(_ invocation: Invocation, modality: String, label: String, done text: String) async throws(CLIError) -> Int32 {
        let client = try await DaemonClient.connect(invocation.global)
        defer { client.close() }
        guard try await client.userState().passcodeSet else { throw .authentication(.passcodeNotSet, "") }
        var passcode = try await PasscodeInput.current(invocation)
        defer { Secret.wipe(&passcode) }
        let daemon = try await client.translate {
            try await client.connection.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                                             member: "GetNameOwner", arguments: [.string(LocalAuthBusNames.busName)]).first?.string ?? ""
        }
        let output = invocation.output
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
        let arguments: [DBusValue] = [.string(modality), .string(label), DaemonClient.passcodeArgument(passcode)]
        let timeout = invocation.global.timeout ?? .seconds(180)
        _ = try await client.translate {
            try await client.managerProxy.proxy.call("Enroll", arguments, timeout: timeout)
        }
        return done(invocation, text, action: "enroll")
    }

    /// The new passcode: asked twice on a terminal, or the first line of standard input with `--stdin`.
    private static func newPasscode(_ invocation: Invocation) async throws(CLIError) -> [UInt8] {
        if invocation.flag("--stdin") { return try await Secret.readStandardInput(lines: 1)[0] }
        var passcodes = try await PasscodeInput.read(invocation, prompts: ["New passcode: ", "Repeat the new passcode: "])
        defer { Secret.wipe(&passcodes[1]) }
        guard passcodes[0] == passcodes[1] else {
            Secret.wipe(&passcodes[0])
            throw .refused("The two passcodes differ; nothing was changed.")
        }
        return passcodes[0]
    }

    static func done(_ invocation: Invocation, _ text: String, action: String) -> Int32 {
        invocation.output.result(text, json: .object([("ok", true), ("action", .string(action))]))
        return ExitStatus.success
    }
}
