// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import CommandLineKit
import LocalAuthAPI
import LocalAuthDBus

/// `agent`: the text agent on the controlling terminal (this project's `pkttyagent`). Shows the
/// sheet of every evaluation of its session's applications (with `--fallback`, of the user's
/// applications outside every session) and takes the passcode, so no application sees it.
///
/// Daemon calls, typed lines and Ctrl-C become `Event`s on one stream handled in order on the
/// main actor; the open sheet is its only state. When localauthd restarts, the agent registers
/// with the new one (``AgentEndpoint``). Every text the sheet shows came from another process
/// (the app's reason and titles, its identity): each is shown through ``TerminalSafeText``.
struct AgentCommand: ParsableCommand {
    static let configuration = CommandConfiguration<Self>(
        words: ["agent"], summary: "Run the text authentication agent on this terminal: show prompts, take the passcode for your apps.",
        details: details,
        options: [.flag(\.fallback, "--fallback", "serve your processes that are in no login session (services, containers, tests)")])
    var fallback = false

    private enum Event {
        case daemon(AgentEndpoint.Call)
        case line([UInt8]?)
        case interrupt
    }

    private struct Sheet {
        let handle: String
        var cookie: String
        let passcodeAllowed: Bool
        let fallbackTitle: String
        var askingFace: Bool
    }

    static let details = """
    Runs until Ctrl-C (with no sheet open) or end of input. For each evaluation it prints the
    application, its reason and the daemon's prompts in your locale's language (LC_ALL,
    LC_MESSAGES, LANG; English, German and French). Type the passcode and press Enter (it is not
    shown); an empty line chooses the fallback; Ctrl-C cancels the evaluation. When an application
    first wants Face ID, the agent allows it only with your passcode (type it; Enter alone
    refuses): any of your processes could run an agent. The
    answer is kept (see localauth apps). When localauthd
    restarts, the agent registers again with it; if another agent registered first, it says so
    and exits (status 75). Text from applications is shown with control characters as \\xHH.
    """

    func run(_ global: GlobalOptions) async throws(CLIError) -> Int32 {
        let output = global.output
        let client = try await DaemonClient.connect(global)
        defer { client.close() }
        let (events, continuation) = AsyncStream<Event>.makeStream()
        let options: [String: DBusValue] = fallback ? [LocalAuthAgentOption.fallback.rawValue: .bool(true)] : [:]
        let endpoint = try await AgentEndpoint.register(client, options: options) { continuation.yield(.daemon($0)) }
        Interrupts.handler = { continuation.yield(.interrupt) }
        defer { Interrupts.handler = nil }
        var reader: (any DispatchSourceRead)?
        if let fd = isatty(0) == 1 ? Terminal.openWithoutEcho() : nil {
            reader = Terminal.readLines(from: fd) { continuation.yield(.line($0)) }
        } else {
            reader = Terminal.readLines(from: 0) { continuation.yield(.line($0)) }
        }
        defer {
            reader?.cancel()
            Terminal.restoreEcho()
        }
        output.note(fallback ? "Agent for your processes outside a session; Ctrl-C stops it." : "Agent for this session; Ctrl-C stops it.")

        var sheet: Sheet?
        loop: for await event in events {
            switch event {
            case .daemon(.begin(let handle, let cookie, let request)):
                let faceQuestion = request["FaceConsentQuestion"]?.string
                func field(_ key: String) -> String { TerminalSafeText.line(request[key]?.string ?? "") }
                sheet = Sheet(handle: handle, cookie: cookie, passcodeAllowed: request["PasscodeAllowed"]?.bool == true,
                              fallbackTitle: field("FallbackTitle"), askingFace: faceQuestion != nil)
                output.note("== \(field("Title")) ==")
                output.note("\(request["App"] == nil ? "?" : field("App")): \(field("Reason"))")
                if let faceQuestion {
                    output.note(TerminalSafeText.line(faceQuestion))
                    output.note("“\(field("FaceUsageDescription"))” Type your passcode to allow it, or press Enter alone to refuse.")
                } else {
                    Self.hint(sheet!, output)
                }
            case .daemon(.update(let handle, let cookie, let update)):
                guard sheet?.handle == handle else { continue }
                sheet?.cookie = cookie
                if update[LocalAuthAgentUpdateKey.kind.rawValue]?.string != AgentUpdateKind.ready.rawValue, let message = update[LocalAuthAgentUpdateKey.message.rawValue]?.string { output.note(TerminalSafeText.line(message)) }
            case .daemon(.end(let handle, let result)):
                guard sheet?.handle == handle else { continue }
                sheet = nil
                output.note(result == "success" ? "Authenticated." : "Ended: \(TerminalSafeText.line(result)).")
            case .daemon(.daemonStopped):
                if sheet != nil { output.note("Ended: localauthd stopped.") }
                sheet = nil
                output.note("localauthd stopped; this agent registers again when it is back.")
            case .daemon(.registeredAgain):
                output.note("localauthd is back; this agent serves again.")
            case .daemon(.refusedAgain(let refusal)):
                throw refusal
            case .line(var line?):
                defer { Secret.wipe(&line) }
                guard let open = sheet else {
                    if !line.isEmpty { output.note("No authentication is waiting.") }
                    continue
                }
                let refusal: CLIError?
                if open.askingFace {
                    // Any process of the uid can run an agent: the daemon wants the passcode with allow-face.
                    let answer = await endpoint.respond(open.cookie, line.isEmpty ? .denyFace : .allowFace, passcode: line)
                    if let answer {
                        output.note(answer.message)
                    } else {
                        sheet?.askingFace = false
                        if let current = sheet { Self.hint(current, output) }
                    }
                    continue
                } else if line.isEmpty {
                    refusal = open.fallbackTitle.isEmpty ? .refused("There is no fallback on this sheet.")
                        : await endpoint.respond(open.cookie, .fallback)
                } else if open.passcodeAllowed {
                    refusal = await endpoint.respond(open.cookie, .passcode, passcode: line)
                } else {
                    refusal = .refused("This evaluation takes no passcode: press Enter alone for “\(open.fallbackTitle)”, or Ctrl-C to cancel.")
                }
                if let refusal, case .authentication(.authenticationFailed, _, _) = refusal {
                    continue  // the daemon's passcode-wrong update says it
                } else if let refusal {
                    output.note(refusal.message)
                }
            case .line(nil):
                break loop
            case .interrupt:
                guard let open = sheet else { break loop }
                if let refusal = await endpoint.respond(open.cookie, .cancel) { output.note(refusal.message) }
            }
        }
        return ExitStatus.success
    }

    @MainActor private static func hint(_ sheet: Sheet, _ output: Output) {
        var choices: [String] = []
        if sheet.passcodeAllowed { choices.append("type your passcode and press Enter") }
        if !sheet.fallbackTitle.isEmpty { choices.append("Enter alone for “\(sheet.fallbackTitle)”") }
        choices.append("Ctrl-C to cancel")
        output.note("(" + choices.joined(separator: "; ") + ".)")
    }
}
