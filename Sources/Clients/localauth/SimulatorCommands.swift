// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI
import LocalAuthDBus
import LocalAuthProxies

/// `sim …`: the simulator's "Matching Touch / Non-matching Face" menu as commands (root, localauthd's
/// user or members of simulator_group).
@MainActor
enum SimulatorCommands {
    nonisolated static let queueNote = "Input that arrives while no evaluation reads that sensor waits (256 events, simulator_event_ttl s each) for the next evaluation, so it may come before `localauth evaluate` starts."

    nonisolated static let retryReasons = RetryReason.fingerprint.map(\.rawValue)

    nonisolated static let sheetNote = "Not queued: an evaluation must be running (the command fails with NotEvaluating otherwise)."

    struct Touch: ParsableCommand {
        static let configuration = CommandConfiguration<Self>(
            words: ["sim", "touch"], summary: "Simulator: touch the fingerprint sensor with a finger (a match if enrolled).", details: queueNote,
            arguments: [.argument(\.finger, "FINGER", parser: .choice(AccountCommands.fingers))])
        var finger = ""

        func run(_ global: GlobalOptions) async throws(CLIError) -> Int32 {
            let finger = finger
            return try await send(global, { try await $0.touch(finger) }, done: "Touched the fingerprint sensor with \(finger).", action: "touch")
        }
    }

    struct Retry: ParsableCommand {
        static let configuration = CommandConfiguration<Self>(
            words: ["sim", "retry"],
            summary: "Simulator: a fingerprint read that cannot be judged: too-short, not-centered, remove-and-retry, too-fast.",
            details: queueNote, arguments: [.argument(\.reason, "REASON", parser: .choice(retryReasons))])
        var reason = ""

        func run(_ global: GlobalOptions) async throws(CLIError) -> Int32 {
            let reason = reason
            return try await send(global, { try await $0.fingerprintRetry(reason) }, done: "Fingerprint read: \(reason).", action: "retry")
        }
    }

    struct Face: ParsableCommand {
        static let configuration = CommandConfiguration<Self>(
            words: ["sim", "face"], summary: "Simulator: show a face (default primary; unknown is a non-match, none is no face).",
            details: queueNote, options: [.flag(\.inattentive, "--inattentive", "the face does not pay attention")],
            arguments: [.argument(\.appearance, "[primary|alternate|unknown|none]", parser: .choice(["primary", "alternate", "unknown", "none"]))])
        var appearance = "primary"
        var inattentive = false

        func run(_ global: GlobalOptions) async throws(CLIError) -> Int32 {
            let (appearance, attentive) = (appearance, !inattentive)
            return try await send(global, { try await $0.presentFace(appearance, attentive: attentive) },
                           done: "Showed the face sensor: \(appearance)\(inattentive ? ", not paying attention" : "").", action: "face")
        }
    }

    struct Connect: ParsableCommand {
        static let configuration = CommandConfiguration<Self>(
            words: ["sim", "connect"], summary: "Simulator: connect a sensor.",
            arguments: [.argument(\.modality, "fingerprint|face", parser: .choice(BiometricModality.allCases.map(\.rawValue)))])
        var modality = ""

        func run(_ global: GlobalOptions) async throws(CLIError) -> Int32 {
            let modality = modality
            return try await send(global, { try await $0.setConnected(modality, true) }, done: "Connected the \(modality) sensor.", action: "connect")
        }
    }

    struct Disconnect: ParsableCommand {
        static let configuration = CommandConfiguration<Self>(
            words: ["sim", "disconnect"], summary: "Simulator: disconnect a sensor.",
            arguments: [.argument(\.modality, "fingerprint|face", parser: .choice(BiometricModality.allCases.map(\.rawValue)))])
        var modality = ""

        func run(_ global: GlobalOptions) async throws(CLIError) -> Int32 {
            let modality = modality
            return try await send(global, { try await $0.setConnected(modality, false) },
                           done: "Disconnected the \(modality) sensor.", action: "disconnect")
        }
    }

    struct Cancel: ParsableCommand {
        static let configuration = CommandConfiguration<Self>(
            words: ["sim", "cancel"],
            summary: "Simulator: press Cancel on the sheet of the oldest running evaluation (it ends with userCancel).", details: sheetNote)

        func run(_ global: GlobalOptions) async throws(CLIError) -> Int32 {
            try await send(global, { try await $0.pressCancel() }, done: "Pressed the sheet's Cancel button.", action: "cancel")
        }
    }

    struct Fallback: ParsableCommand {
        static let configuration = CommandConfiguration<Self>(
            words: ["sim", "fallback"],
            summary: "Simulator: press the fallback button on that sheet (userFallback, or the passcode for policy 2).", details: sheetNote)

        func run(_ global: GlobalOptions) async throws(CLIError) -> Int32 {
            try await send(global, { try await $0.pressFallback() }, done: "Pressed the sheet's fallback button.", action: "fallback")
        }
    }

    struct Reset: ParsableCommand {
        static let configuration = CommandConfiguration<Self>(words: ["sim", "reset"], summary: "Simulator: drop queued input and connect every sensor.")

        func run(_ global: GlobalOptions) async throws(CLIError) -> Int32 {
            try await send(global, { try await $0.reset() }, done: "Simulator reset: queue empty, every sensor connected.", action: "reset")
        }
    }

    private static func send(_ global: GlobalOptions, _ call: @escaping @Sendable (SimulatorProxy) async throws -> Void, done text: String,
                             action: String) async throws(CLIError) -> Int32 {
        let client = try await DaemonClient.connect(global)
        defer { client.close() }
        try await client.simulator(call)
        return AccountCommands.done(global, text, action: action)
    }
}
