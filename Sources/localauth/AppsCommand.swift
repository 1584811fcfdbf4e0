// SPDX-License-Identifier: Apache-2.0
import LocalAuthDBus

/// `apps`: your decisions about which applications may use Face ID; allow (needs the passcode,
/// so an application cannot allow itself) or revoke one.
@MainActor
enum AppsCommand {
    static func list(_ invocation: Invocation) async throws(CLIError) -> Int32 {
        let client = try await DaemonClient.connect(invocation.global)
        defer { client.close() }
        let decisions = (try await client.manager("GetFaceConsents").first?.arrayElements ?? []).compactMap { element -> (String, Bool)? in
            guard let fields = element.structure, fields.count == 2, let app = fields[0].string, let allowed = fields[1].bool else { return nil }
            return (app, allowed)
        }
        let human = decisions.isEmpty ? "No application has asked for Face ID yet."
            : decisions.map { "\($0.1 ? "allowed" : "denied ")  \($0.0)" }.joined(separator: "\n")
        invocation.output.result(human, json: .array(decisions.map {
            .object([("app", .string($0.0)), ("faceID", .string($0.1 ? "allowed" : "denied"))])
        }))
        return ExitStatus.success
    }

    static func allow(_ invocation: Invocation) async throws(CLIError) -> Int32 {
        let app = try application(invocation)
        let client = try await DaemonClient.connect(invocation.global)
        defer { client.close() }
        var passcode = try await PasscodeInput.current(invocation)
        defer { Secret.wipe(&passcode) }
        try await client.manager("SetFaceConsent", [.string(app), .bool(true), DaemonClient.passcodeArgument(passcode)])
        return AccountCommands.done(invocation, "\(app) may use Face ID.", action: "face-allow")
    }

    static func revoke(_ invocation: Invocation) async throws(CLIError) -> Int32 {
        let app = try application(invocation)
        let client = try await DaemonClient.connect(invocation.global)
        defer { client.close() }
        try await client.manager("SetFaceConsent", [.string(app), .bool(false), .string("")])
        return AccountCommands.done(invocation, "\(app) may no longer use Face ID.", action: "face-revoke")
    }

    private static func application(_ invocation: Invocation) throws(CLIError) -> String {
        guard let app = invocation.argument(0), !app.isEmpty else { throw .usage("Usage: \(invocation.command.usage)") }
        return app
    }
}
