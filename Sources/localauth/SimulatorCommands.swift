// SPDX-License-Identifier: Apache-2.0
import LocalAuthDBus

/// `sim …`: the simulator's "Matching Touch / Non-matching Face" menu as commands (root, localauthd's
/// user or members of simulator_group).
@MainActor
enum SimulatorCommands {
    static let queueNote = "Input that arrives while no evaluation reads that sensor waits (16 events, simulator_event_ttl s each) for the next evaluation, so it may come before `localauth evaluate` starts."

    static let retryReasons = ["too-short", "not-centered", "remove-and-retry", "too-fast"]

    static let sheetNote = "Not queued: an evaluation must be running (the command fails with NotEvaluating otherwise)."

    static func touch(_ invocation: Invocation) async throws(CLIError) -> Int32 {
        let finger = try invocation.choice(0, of: AccountCommands.fingers)
        return try await send(invocation, "Touch", [.string(finger)], done: "Touched the fingerprint sensor with \(finger).", action: "touch")
    }

    static func retry(_ invocation: Invocation) async throws(CLIError) -> Int32 {
        let reason = try invocation.choice(0, of: retryReasons)
        return try await send(invocation, "FingerprintRetry", [.string(reason)], done: "Fingerprint read: \(reason).", action: "retry")
    }

    static func face(_ invocation: Invocation) async throws(CLIError) -> Int32 {
        let appearance = try invocation.choice(0, of: ["primary", "alternate", "unknown", "none"], default: "primary")
        let attentive = !invocation.flag("--inattentive")
        return try await send(invocation, "PresentFace", [.string(appearance), .bool(attentive)],
                              done: "Showed the face sensor: \(appearance)\(attentive ? "" : ", not paying attention").", action: "face")
    }

    static func connect(_ invocation: Invocation) async throws(CLIError) -> Int32 {
        let modality = try invocation.choice(0, of: ["fingerprint", "face"])
        return try await send(invocation, "SetConnected", [.string(modality), .bool(true)], done: "Connected the \(modality) sensor.", action: "connect")
    }

    static func disconnect(_ invocation: Invocation) async throws(CLIError) -> Int32 {
        let modality = try invocation.choice(0, of: ["fingerprint", "face"])
        return try await send(invocation, "SetConnected", [.string(modality), .bool(false)],
                              done: "Disconnected the \(modality) sensor.", action: "disconnect")
    }

    static func cancel(_ invocation: Invocation) async throws(CLIError) -> Int32 {
        try await send(invocation, "PressCancel", [], done: "Pressed the sheet's Cancel button.", action: "cancel")
    }

    static func fallback(_ invocation: Invocation) async throws(CLIError) -> Int32 {
        try await send(invocation, "PressFallback", [], done: "Pressed the sheet's fallback button.", action: "fallback")
    }

    static func reset(_ invocation: Invocation) async throws(CLIError) -> Int32 {
        try await send(invocation, "Reset", [], done: "Simulator reset: queue empty, every sensor connected.", action: "reset")
    }

    private static func send(_ invocation: Invocation, _ member: String, _ arguments: [DBusValue], done text: String,
                             action: String) async throws(CLIError) -> Int32 {
        let client = try await DaemonClient.connect(invocation.global)
        defer { client.close() }
        try await client.simulator(member, arguments)
        return AccountCommands.done(invocation, text, action: action)
    }
}
