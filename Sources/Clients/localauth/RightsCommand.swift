// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import CommandLineKit
import LocalAuthAPI
import LocalAuthDBus

/// `rights`: rights (Apple's LARight, LAPersistedRight) saved by `localauth` itself, that is by the
/// scripts that use it: a P-256 key and an optional secret, each used only after the right's
/// requirement is met (a touch, a face or the passcode). `--all` lists every application's
/// rights of the user, and `remove --app` removes another application's right with the passcode.
/// The key commands (`public-key`, `secret`, `sign`, `decrypt`, `encrypt`, `verify`) are in
/// RightsCommand+Keys.swift.
@MainActor
enum RightsCommand {
    struct List: ParsableCommand {
        static let configuration = CommandConfiguration<Self>(
            words: ["rights", "list"], summary: "List the rights localauth saved (for your scripts): identifier, requirement, secret, state.",
            details: """
            A right is a P-256 key and an optional secret that localauthd keeps sealed and uses only after its \
            requirement is met. Rights belong to the application that saved them: these commands see the rights \
            of localauth itself; --all lists every application's rights of yours (remove one with rights remove --app).
            """,
            options: [.flag(\.all, "--all", "list every application's rights of yours (application and identifier)")])
        var all = false

        func run(_ global: GlobalOptions) async throws(CLIError) -> Int32 {
            let client = try await DaemonClient.connect(global)
            defer { client.close() }
            let listed = try await client.listRights(allApplications: all)
            if all {
                let human = listed.isEmpty ? "None of your applications has saved a right."
                    : (["APPLICATION\tIDENTIFIER"] + listed.map { TerminalSafeText.line($0.0) + "\t" + TerminalSafeText.line($0.1) }).joined(separator: "\n")
                global.output.result(human, json: .object([("rights", .array(listed.map {
                    .object([("application", .string($0.0)), ("identifier", .string($0.1))])
                }))]))
                return ExitStatus.success
            }
            var rights: [Right] = []
            for (_, identifier) in listed {
                do throws(CLIError) {
                    rights.append(try await client.right(identifier))
                } catch {
                    // Removed since it was listed.
                    guard case .authentication(.rightNotFound, _, _) = error else { throw error }
                }
            }
            let human = rights.isEmpty ? "localauth has no rights saved. Save one with: localauth rights save ID"
                : (["IDENTIFIER\tREQUIREMENT\tSECRET\tSTATE"] + rights.map {
                    [TerminalSafeText.line($0.identifier), TerminalSafeText.line($0.requirement), $0.hasSecret ? "stored" : "none",
                     $0.invalidated ? "invalidated" : "valid"].joined(separator: "\t")
                }).joined(separator: "\n")
            global.output.result(human, json: .object([("rights", .array(rights.map(\.json)))]))
            return ExitStatus.success
        }
    }

    struct Save: ParsableCommand {
        static let configuration = CommandConfiguration<Self>(
            words: ["rights", "save"], summary: "Save a right: a new P-256 key, and a secret with --secret-stdin; replaces a right of that identifier.",
            details: """
            Needs a passcode set (and enrolled biometry for a biometry requirement). The secret (at most 16384 bytes) \
            is read from standard input byte for byte, never from the command line; on a terminal it is asked for \
            without echo. Saving an identifier again makes a new key and ends the old one's authorizations.
            """,
            options: [
                .value(\.requirement, "--requirement", "EXPR", requirementHelp, parser: requirementParser),
                .flag(\.secretStdin, "--secret-stdin", "read the right's secret from standard input (all of it, up to 16384 bytes)"),
            ],
            arguments: [.argument(\.identifier, "ID", parser: identifierParser)])
        var identifier = ""
        var requirement = "default"
        var secretStdin = false

        func run(_ global: GlobalOptions) async throws(CLIError) -> Int32 {
            var secret: [UInt8] = []
            defer { Secret.wipe(&secret) }
            if secretStdin {
                secret = isatty(0) == 1 ? try await Terminal.readPasscode(prompt: "Secret of right \(TerminalSafeText.line(identifier)): ")
                    : try await Bytes.readStandardInput(limit: Bytes.maximumSecretLength, what: "secret")
                guard !secret.isEmpty else { throw .usage("The secret on standard input is empty; leave out --secret-stdin to save a right without a secret.") }
            }
            let client = try await DaemonClient.connect(global)
            defer { client.close() }
            let right = try await client.saveRight(identifier, requirement: requirement, secret: secret)
            global.output.result((["Saved right " + TerminalSafeText.line(identifier) + "."] + right.lines).joined(separator: "\n"), json: right.json)
            return ExitStatus.success
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration<Self>(
            words: ["rights", "show"], summary: "Show a right: requirement, whether it has a secret, public key fingerprint, created, state.",
            arguments: [.argument(\.identifier, "ID", parser: identifierParser)])
        var identifier = ""

        func run(_ global: GlobalOptions) async throws(CLIError) -> Int32 {
            let client = try await DaemonClient.connect(global)
            defer { client.close() }
            let right = try await client.right(identifier)
            global.output.result(right.lines.joined(separator: "\n"), json: right.json)
            return ExitStatus.success
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration<Self>(
            words: ["rights", "remove"], summary: "Remove a right of localauth, all of them (--all-mine), or another application's (--app, needs the passcode).",
            details: "Its key and secret are gone for good. --app takes the application as rights list --all shows it.",
            options: [
                .flag(\.allMine, "--all-mine", "remove every right localauth saved"),
                .value(\.application, "--app", "APP", "remove the right ID of this application (as rights list --all shows it); needs the passcode",
                       parser: ValueParser.nonEmpty("--app needs an application, as localauth rights list --all shows it.").map { $0 }),
                CommandTable.stdinOption(\.stdin),
            ],
            arguments: [.argument(\.identifier, "[ID]", parser: identifierParser.map { $0 })])
        var identifier: String?
        var allMine = false
        var application: String?
        var stdin = false

        func validate() throws(CLIError) {
            if allMine && (identifier != nil || application != nil) {
                throw .usage("rights remove --all-mine takes no ID and no --app. Usage: \(Self.spec.usage)")
            }
            if !allMine && identifier == nil {
                throw .usage("Which right? Give its ID, or --all-mine for every right of localauth. Usage: \(Self.spec.usage)")
            }
            if stdin && application == nil { throw .usage("--stdin is for the passcode of rights remove --app.") }
        }

        func run(_ global: GlobalOptions) async throws(CLIError) -> Int32 {
            let client = try await DaemonClient.connect(global)
            defer { client.close() }
            if allMine {
                try await client.removeAllRights()
                return AccountCommands.done(global, "Removed every right of localauth.", action: "rights-remove-all")
            }
            guard let identifier else { throw .usage("Usage: \(Self.spec.usage)") }
            guard let application else {
                try await client.removeRight(identifier)
                return AccountCommands.done(global, "Removed right \(TerminalSafeText.line(identifier)).", action: "rights-remove")
            }
            guard try await client.userState().passcodeSet else { throw .authentication(.passcodeNotSet, "") }
            var passcode = try await PasscodeInput.current(stdin: stdin)
            defer { Secret.wipe(&passcode) }
            try await client.removeApplicationRight(application: application, identifier: identifier, passcode: passcode)
            return AccountCommands.done(global, "Removed right \(TerminalSafeText.line(identifier)) of \(TerminalSafeText.line(application)).",
                                        action: "rights-remove-app")
        }
    }

    struct Protection: ParsableCommand {
        static let configuration = CommandConfiguration<Self>(
            words: ["rights", "protection"], summary: "Say how the keys and secrets of rights are sealed: tpm2 or wrapping-key.")

        func run(_ global: GlobalOptions) async throws(CLIError) -> Int32 {
            let client = try await DaemonClient.connect(global)
            defer { client.close() }
            let protection = try await client.keyProtection()
            guard !protection.isEmpty else {
                throw .failed("localauthd could not open the vault of rights, so rights cannot be used: its log says why (journalctl -u localauthd).")
            }
            let sentence = Self.sentence(protection)
            global.output.result(TerminalSafeText.line(protection) + ": " + sentence,
                                 json: .object([("keyProtection", .string(protection)), ("description", .string(sentence))]))
            return ExitStatus.success
        }

        /// What `protection` means for a person.
        static func sentence(_ protection: String) -> String {
            switch protection {
            case "tpm2":
                "the keys and secrets of rights are sealed with this machine's TPM 2.0: a copy of the disk, or the files moved to another machine, cannot open them."
            case "wrapping-key":
                "this machine has no TPM 2.0 that localauthd uses: the keys and secrets of rights are sealed with a wrapping key in a file only root can read; root, or a copy of the whole disk, can open them."
            default:
                "a protection this localauth does not know."
            }
        }
    }

    /// The requirement grammar, for help.
    nonisolated static let requirementHelp =
        "who may use the right: default (biometry or passcode), biometry, biometry-current-set or passcode, or terms joined all by “ or ” or all by “ and ”, e.g. “biometry or passcode” (default: default)"

    /// Any expression (localauthd checks the grammar); completion offers the single terms.
    nonisolated static let requirementParser = ValueParser<String>(completions: RequirementTerm.allCases.map(\.rawValue)) {
        text, option throws(CommandLineError) in
        guard !text.isEmpty else { throw CommandLineError("\(option) needs a requirement, e.g. default or “biometry or passcode”.") }
        return text
    }

    /// An identifier as localauthd takes it: 1 to 128 bytes of UTF-8 without control or format characters.
    nonisolated static let identifierParser = ValueParser<String> { text, command throws(CommandLineError) in
        guard !text.isEmpty, text.utf8.count <= 128 else {
            throw CommandLineError("\(command): a right's identifier has 1 to 128 bytes, not \(text.utf8.count).")
        }
        guard !text.unicodeScalars.contains(where: { [.control, .format].contains($0.properties.generalCategory) }) else {
            throw CommandLineError("\(command): a right's identifier must not contain control or format characters: “\(TerminalSafeText.line(text))”.")
        }
        return text
    }
}
