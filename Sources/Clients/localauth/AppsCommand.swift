// SPDX-License-Identifier: Apache-2.0
import LocalAuthDBus

/// `apps`: your decisions about which applications may use Face ID; allow (needs the passcode,
/// so an application cannot allow itself) or revoke one.
@MainActor
enum AppsCommand {
    struct List: ParsableCommand {
        static let configuration = CommandConfiguration<Self>(words: ["apps"], summary: "List which applications you allowed or denied Face ID.")

        func run(_ global: GlobalOptions) async throws(CLIError) -> Int32 {
            let client = try await DaemonClient.connect(global)
            defer { client.close() }
            let decisions = try await client.manager { try await $0.faceConsents() }.map { ($0.app, $0.allowed) }
            let human = decisions.isEmpty ? "No application has asked for Face ID yet."
                : decisions.map { "\($0.1 ? "allowed" : "denied ")  \($0.0)" }.joined(separator: "\n")
            global.output.result(human, json: .array(decisions.map {
                .object([("app", .string($0.0)), ("faceID", .string($0.1 ? "allowed" : "denied"))])
            }))
            return ExitStatus.success
        }
    }

    struct Allow: ParsableCommand {
        static let configuration = CommandConfiguration<Self>(
            words: ["apps", "allow"], summary: "Allow an application (as apps lists it) to use Face ID; needs the passcode.",
            options: [CommandTable.stdinOption(\.stdin)], arguments: [.argument(\.app, "APP")])
        var app = ""
        var stdin = false

        func validate() throws(CLIError) { try requireApplication(app, Self.spec) }

        func run(_ global: GlobalOptions) async throws(CLIError) -> Int32 {
            let client = try await DaemonClient.connect(global)
            defer { client.close() }
            var passcode = try await PasscodeInput.current(stdin: stdin)
            defer { Secret.wipe(&passcode) }
            let (app, argument) = (app, DaemonClient.passcodeArgument(passcode))
            try await client.manager { try await $0.setFaceConsent(app: app, allowed: true, passcode: argument) }
            return AccountCommands.done(global, "\(app) may use Face ID.", action: "face-allow")
        }
    }

    struct Revoke: ParsableCommand {
        static let configuration = CommandConfiguration<Self>(
            words: ["apps", "revoke"], summary: "Deny an application Face ID: its face-only evaluations fail with biometryNotAvailable.",
            arguments: [.argument(\.app, "APP")])
        var app = ""

        func validate() throws(CLIError) { try requireApplication(app, Self.spec) }

        func run(_ global: GlobalOptions) async throws(CLIError) -> Int32 {
            let client = try await DaemonClient.connect(global)
            defer { client.close() }
            let app = app
            try await client.manager { try await $0.setFaceConsent(app: app, allowed: false, passcode: .string("")) }
            return AccountCommands.done(global, "\(app) may no longer use Face ID.", action: "face-revoke")
        }
    }

    private static func requireApplication(_ app: String, _ command: CommandSpec) throws(CLIError) {
        guard !app.isEmpty else { throw .usage("Usage: \(command.usage)") }
    }
}
