// SPDX-License-Identifier: Apache-2.0
import CommandLineKit
import LocalAuthAPI
#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import LocalAuthDBus

/// `evaluate`: one EvaluatePolicy on a context of our own, with its prompts, the passcode typed on
/// the terminal (or given on standard input), the fallback key and Ctrl-C.
///
/// Like `pkexec`, it is its own agent (for its own context only) when no agent serves its session:
/// the passcode and the fallback then go to the daemon as agent answers with the sheet's cookie.
/// When the session has an agent, that agent asks, and this command only waits for the result.
///
/// Everything that happens (a prompt signal, a line typed, Ctrl-C, the reply) becomes an `Event` on
/// one stream that the main actor handles in order, so the evaluation's state needs no lock.
struct EvaluateCommand: ParsableCommand {
    static let configuration = CommandConfiguration<Self>(
        words: ["evaluate"], summary: "Evaluate a policy: show the daemon's prompts, take a touch, a face or the passcode.",
        details: """
        Prompts appear as they come. With policy owner the passcode is read from the terminal without
        echo, also while the sensors listen: type it and press Enter. Press Enter on an empty line to
        choose the fallback (“Enter Password”: policy biometrics ends with userFallback, policy owner
        asks for the passcode). Ctrl-C cancels the evaluation (exit status 2, userCancel).
        """,
        options: [
            .value(\.reason, "--reason", "TEXT", "why you ask, shown to the user", required: true,
                   parser: .nonEmpty("evaluate needs --reason TEXT: why you ask, shown to the user.")),
            CommandTable.policyOption(\.policy),
            .value(\.fallbackTitle, "--fallback-title", "T", "title of the fallback choice (default “Enter Password”; empty: no fallback)"),
            .value(\.cancelTitle, "--cancel-title", "T", "title of the cancel choice (default “Cancel”)",
                   parser: ValueParser.nonEmpty("--cancel-title must not be empty.").map { $0 }),
            .flag(\.noInteraction, "--no-interaction", "fail with notInteractive unless the reuse window satisfies the policy"),
            .value(\.reuse, "--reuse", "SECONDS", "accept a device unlock within this many seconds (at most 300)",
                   parser: ValueParser { text, _ throws(CommandLineError) in
                       guard let seconds = Double(text), seconds >= 0, seconds.isFinite else {
                           throw CommandLineError("--reuse needs a number of seconds (0 to 300), not “\(text)”.")
                       }
                       return seconds
                   }),
            .flag(\.passcodeStdin, "--passcode-stdin", "read the passcode from the first line of standard input (policy owner)"),
            .value(\.usageDescription, "--usage-description", "TEXT",
                   "why this evaluation may use Face ID (the context option FaceUsageDescription, Apple's NSFaceIDUsageDescription); empty: none, as an app without one"),
        ])
    var reason = ""
    var policy = LAPolicy.deviceOwnerAuthentication
    /// nil: the daemon's “Enter Password”; empty: no fallback.
    var fallbackTitle: String?
    var cancelTitle: String?
    var noInteraction = false
    /// AllowableReuseDuration in seconds (the daemon caps it at 300).
    var reuse: Double?
    var passcodeStdin = false
    /// FaceUsageDescription; empty sends none (face is then not offered when face_consent is on).
    var usageDescription = "localauth evaluate confirms it is you at the command line."

    private enum Event {
        case prompt(kind: String, message: String)
        /// A call of the daemon on our own agent.
        case agent(AgentEndpoint.Call)
        /// A line typed on the terminal; nil at end of input.
        case line([UInt8]?)
        case interrupt
        /// The reply to EvaluatePolicy: nil on success.
        case finished(CLIError?)
    }

    func validate() throws(CLIError) {
        guard !passcodeStdin || policy.takesPasscode else {
            throw .usage("--passcode-stdin needs --policy owner: policy \(policy.cliName) takes no passcode.")
        }
    }

    func run(_ global: GlobalOptions) async throws(CLIError) -> Int32 {
        // Until the evaluation runs there is nothing to cancel; the daemon drops the context with our connection.
        Interrupts.handler = {
            Terminal.restoreEcho()
            exit(LocalAuthErrorName.userCancel.exitStatus)
        }
        var stdinPasscode = passcodeStdin ? try await Secret.readStandardInput(lines: 1)[0] : []
        defer { Secret.wipe(&stdinPasscode) }

        let client = try await DaemonClient.connect(global)
        defer { client.close() }
        let context = try await client.createContext(contextOptions)
        let (policy, reason) = (policy, reason)
        let failure = try await authenticate(global, client, context, stdinPasscode: &stdinPasscode) { () async throws(CLIError) in
            let timeout = global.timeout ?? .seconds(86_400)
            try await client.context(context) { try await $0.evaluatePolicy(policy, reason: reason, timeout: timeout) }
        }
        let output = global.output
        guard let failure else {
            output.result("Authenticated.", json: .object([("event", "result"), ("success", true)]))
            return ExitStatus.success
        }
        guard case .authentication = failure else { throw failure }
        if output.json {
            output.result("", json: .object([("event", "result"), ("success", false), ("error", failure.json)]))
        } else {
            output.error(failure)
        }
        return failure.exitStatus
    }

    /// Runs `request` (EvaluatePolicy here; AuthorizeRight for `localauth rights`) on `context`
    /// with the daemon's prompts, the terminal, our own agent and Ctrl-C; nil when it succeeded,
    /// else why not. `stdinPasscode` (with `passcodeStdin`) is offered once, then wiped.
    @MainActor func authenticate(_ global: GlobalOptions, _ client: DaemonClient, _ context: String, stdinPasscode: inout [UInt8],
                      request: @escaping @Sendable () async throws(CLIError) -> Void) async throws(CLIError) -> CLIError? {
        let fromStdin = passcodeStdin
        let output = global.output
        let (events, continuation) = AsyncStream<Event>.makeStream()
        let subscription = try await client.translate {
            try await client.connection.subscribe(
                DBusMatchRule(path: context, interface: LocalAuthBusNames.contextInterface, member: "Prompt")) { signal in
                continuation.yield(.prompt(kind: signal.arguments.first?.string ?? "", message: signal.arguments.dropFirst().first?.string ?? ""))
            }
        }
        defer { client.connection.unsubscribe(subscription) }
        Interrupts.handler = { continuation.yield(.interrupt) }
        defer { Interrupts.handler = nil }

        let fallbackTitle = self.fallbackTitle ?? "Enter Password"
        var agent: AgentEndpoint?
        /// Another agent (the session's) shows the sheet and takes the passcode.
        var servedElsewhere = false
        if !noInteraction, policy.takesPasscode || !fallbackTitle.isEmpty {
            do throws(CLIError) {
                agent = try await AgentEndpoint.register(client, options: [LocalAuthAgentOption.ownContexts.rawValue: .bool(true)]) { continuation.yield(.agent($0)) }
            } catch {
                // Busy: the session's agent shows the sheet. Anything else: a daemon without agents.
                if case .temporary = error {
                    servedElsewhere = true
                    if fromStdin {
                        throw .refused("An authentication agent serves this session and takes the passcode there; run without --passcode-stdin and answer the agent.")
                    }
                    if policy.takesPasscode { output.note("Your session's authentication agent asks for the passcode.") }
                }
            }
        }
        /// The cookie our agent answers with next.
        var cookie: String?
        var reader: (any DispatchSourceRead)?
        // The terminal is read only when standard input is one, so a script's evaluation never grabs it.
        if !fromStdin, !noInteraction, policy.takesPasscode || !fallbackTitle.isEmpty, isatty(0) == 1,
           let fd = Terminal.openWithoutEcho() {
            reader = Terminal.readLines(from: fd) { continuation.yield(.line($0)) }
        }
        defer {
            reader?.cancel()
            Terminal.restoreEcho()
        }

        Task {
            do throws(CLIError) {
                try await request()
                continuation.yield(.finished(nil))
            } catch {
                continuation.yield(.finished(error))
            }
        }

        var outcome: CLIError?
        /// Set when the CLI itself ended the evaluation for a reason other than Ctrl-C.
        var verdict: CLIError?
        var cancelling = false, hinted = false, offeredStdin = false
        func offerStdin() async {
            guard fromStdin, !offeredStdin else { return }
            offeredStdin = true
            let refusal = await answer(stdinPasscode, .passcode)
            // Offered once only: no reason to keep it while the evaluation goes on.
            Secret.wipe(&stdinPasscode)
            if let refusal { await cancel(because: refusal) }
        }
        func hint() {
            guard reader != nil, !hinted, !cancelling else { return }
            hinted = true
            output.note(policy.takesPasscode
                ? "(Type your passcode and press Enter; it is not shown.)"
                : "(Press Enter for “\(fallbackTitle)”, Ctrl-C to cancel.)")
        }
        func show(_ kind: String, _ message: String) {
            if output.json {
                output.result("", json: .object([("event", "prompt"), ("kind", .string(kind)), ("message", .string(message))]))
            } else {
                output.note(TerminalSafeText.line(message))
            }
        }
        /// Our agent's answer with the current cookie, or the app-side call without an agent;
        /// nil when taken (or the evaluation already ended), otherwise why not.
        func answer(_ passcode: [UInt8], _ response: AgentResponse) async -> CLIError? {
            guard let agent else {
                return response == .passcode ? await Self.submit(passcode, client, context) : await Self.fallback(client, context)
            }
            guard let current = cookie else { return nil }
            let refusal = await agent.respond(current, response, passcode: passcode)
            if case .accessDenied? = refusal { return nil }  // the sheet closed meanwhile
            return refusal
        }
        func cancel(because reason: CLIError?) async {
            guard !cancelling else { return }
            cancelling = true
            verdict = reason
            _ = try? await client.context(context, timeout: .seconds(5)) { try await $0.cancel() }
            // The reply to EvaluatePolicy normally follows at once; never wait for it long.
            Task {
                try? await Task.sleep(for: .seconds(5))
                continuation.yield(.finished(.authentication(.userCancel, "")))
            }
        }

        loop: for await event in events {
            switch event {
            case .prompt(let kind, let message):
                // With our own agent, the passcode prompts come to it (in the daemon's catalog).
                if agent != nil, PromptKind(rawValue: kind)?.isPasscodeRequest == true { continue }
                show(kind, message)
                if agent == nil { await offerStdin() }
                hint()
            case .agent(.begin(_, let current, _)):
                cookie = current
                await offerStdin()
            case .agent(.update(_, let current, let update)):
                cookie = current
                let kind = update[LocalAuthAgentUpdateKey.kind.rawValue]?.string ?? ""
                if case .prompt(let prompt)? = AgentUpdateKind(rawValue: kind), prompt.isPasscodeRequest {
                    show(kind, update[LocalAuthAgentUpdateKey.message.rawValue]?.string ?? "")
                    hint()
                }
            case .agent(.end):
                cookie = nil
            case .agent(.daemonStopped), .agent(.registeredAgain), .agent(.refusedAgain):
                continue  // the context went with the daemon: the reply to EvaluatePolicy ends this
            case .line(var line?):
                defer { Secret.wipe(&line) }
                if line.isEmpty {
                    if await answer([], .fallback) != nil {
                        output.note("There is no fallback: --fallback-title is empty.")
                    }
                } else if servedElsewhere {
                    output.note("Your session's authentication agent takes the passcode and the buttons; answer it there (Ctrl-C cancels here).")
                } else if policy.takesPasscode {
                    // A wrong passcode comes back as a passcode-wrong prompt as well; a delay needs words here.
                    if case .authentication(.passcodeLockout, _, _)? = await answer(line, .passcode) {
                        let wait = (try? await client.userState().passcodeWait) ?? 0
                        output.note(wait > 0 ? "passcode: next try in \(UserState.words(seconds: wait))" : "Passcode locked.")
                    }
                } else {
                    output.note("Policy \(policy.cliName) takes no passcode: press Enter alone for “\(fallbackTitle)”, or Ctrl-C to cancel.")
                }
            case .line(nil):
                reader = nil
            case .interrupt:
                await cancel(because: nil)
            case .finished(let error):
                outcome = error
                break loop
            }
        }

        return verdict ?? outcome
    }

    /// Offers the passcode; nil when it was taken (or the evaluation already ended), otherwise why not.
    @MainActor private static func submit(_ passcode: [UInt8], _ client: DaemonClient, _ context: String) async -> CLIError? {
        do throws(CLIError) {
            let argument = DaemonClient.passcodeArgument(passcode)
            try await client.context(context) { try await $0.submitPasscode(argument) }
            return nil
        } catch {
            if case .refused = error { return nil }
            return error
        }
    }

    @MainActor private static func fallback(_ client: DaemonClient, _ context: String) async -> CLIError? {
        do throws(CLIError) {
            try await client.context(context) { try await $0.fallback() }
            return nil
        } catch {
            return error
        }
    }

    /// CreateContext's options for this evaluation (also a right's authorization).
    var contextOptions: [String: DBusValue] {
        // Face ID needs a usage description and the user's consent per app (localauth apps).
        var options: [String: DBusValue] = [:]
        if !usageDescription.isEmpty { options["FaceUsageDescription"] = .string(usageDescription) }
        if let fallbackTitle { options["LocalizedFallbackTitle"] = .string(fallbackTitle) }
        if let cancelTitle { options["LocalizedCancelTitle"] = .string(cancelTitle) }
        if noInteraction { options["InteractionNotAllowed"] = .bool(true) }
        if let reuse { options["AllowableReuseDuration"] = .double(reuse) }
        return options
    }
}
