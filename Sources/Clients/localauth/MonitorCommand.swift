// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import CommandLineKit
import LocalAuthAPI
import LocalAuthDBus

/// `monitor`: follows what the bus lets one client see.
///
/// Prompts are unicast to the context's owner, so another client's prompts are invisible here by
/// design. What it shows: the caller's user state and the backends' availability, read once and
/// again whenever the daemon announces a change (`UserStateChanged`, sent only to connections of
/// the caller's uid, and `PropertiesChanged` of `Backends`), one line per change; and localauthd
/// starting or stopping (NameOwnerChanged). Nothing is polled. Wakes are handled on the main actor.
struct MonitorCommand: ParsableCommand {
    static let configuration = CommandConfiguration<Self>(
        words: ["monitor"], summary: "Follow your state live: one line per change (--json: JSON lines).", details: details,
        options: [
            .value(\.interval, "--interval", "SECONDS", "ignored: monitor follows the daemon's signals (kept for old scripts)",
                   parser: ValueParser { text, _ throws(CommandLineError) in
                       guard let interval = Double(text), interval >= 0.05, interval <= 3600 else {
                           throw CommandLineError("--interval needs a number of seconds from 0.05 to 3600, not “\(text)”.")
                       }
                       return interval
                   }),
            .value(\.count, "--count", "N", "stop after N lines",
                   parser: ValueParser { text, _ throws(CommandLineError) in
                       guard let count = Int(text), count > 0 else { throw CommandLineError("--count needs a positive number, not “\(text)”.") }
                       return count
                   }),
        ])
    /// Checked like before, then ignored: old scripts pass it.
    var interval: Double?
    var count: Int?

    static let details = """
        Shows, one line each: your state when it starts, then every change of your enrollments,
        passcode, require-attention setting, failure counters and lockouts (localauthd announces
        them to your connections only), sensors becoming available or not, and localauthd starting
        or stopping. Nothing is polled; --interval is accepted for old scripts and ignored.
        Prompts of evaluations (yours in other processes, or other users') are sent only to the process
        that evaluates, so monitor cannot show them. Ctrl-C stops it (exit status 0).
        JSON lines: {"event":"state","time":UNIX,"changed":[…],"user":{…},"backends":[…]},
        {"event":"daemon","time":UNIX,"running":BOOL}.
        """

    private struct Snapshot: Equatable {
        var state: UserState
        var backends: [String]
    }

    func run(_ global: GlobalOptions) async throws(CLIError) -> Int32 {
        var remaining = count ?? Int.max
        let client = try await DaemonClient.connect(global)
        defer { client.close() }
        let output = global.output

        let (events, continuation) = AsyncStream<Wake>.makeStream()
        let connection = client.connection
        _ = try await client.translate {
            try await connection.watchNameOwners(LocalAuthBusNames.busName) { _ in continuation.yield(.daemon) }
        }
        // Subscribed before the first read, so no change falls between the read and the subscription.
        _ = try await client.translate {
            try await connection.subscribe(DBusMatchRule(
                sender: LocalAuthBusNames.busName, path: LocalAuthBusNames.managerPath, interface: LocalAuthBusNames.managerInterface,
                member: "UserStateChanged")) { _ in continuation.yield(.changed) }
        }
        _ = try await client.translate {
            try await connection.subscribe(DBusMatchRule(
                sender: LocalAuthBusNames.busName, path: LocalAuthBusNames.managerPath, interface: "org.freedesktop.DBus.Properties",
                member: "PropertiesChanged", arg0: LocalAuthBusNames.managerInterface)) { _ in continuation.yield(.changed) }
        }
        Interrupts.handler = { continuation.yield(.stop) }
        // A passcode delay ends without an announcement (PasscodeRetryAfter is a time): wake then.
        var delayEnd: Task<Void, Never>?
        defer {
            delayEnd?.cancel()
            continuation.finish()
        }

        var previous: Snapshot?
        var running = true
        continuation.yield(.changed)
        for await wake in events {
            guard wake != .stop, remaining > 0 else { break }
            let snapshot: Snapshot
            do throws(CLIError) {
                let state = try await client.userState()
                let backends = try await client.backends()
                snapshot = Snapshot(state: state, backends: backends.map { "\(TerminalSafeText.line($0.id)) \($0.available ? "available" : "not available")" })
            } catch {
                guard case .unreachable = error else { throw error }
                if running {
                    running = false
                    remaining -= 1
                    Self.line(output, human: "localauthd is not running", json: [("event", "daemon"), ("running", false)])
                    if remaining == 0 { break }
                }
                continue
            }
            if !running {
                running = true
                remaining -= 1
                Self.line(output, human: "localauthd started", json: [("event", "daemon"), ("running", true)])
                if remaining == 0 { break }
            }
            guard snapshot != previous else { continue }
            delayEnd?.cancel()
            let wait = snapshot.state.passcodeWait
            delayEnd = wait == 0 ? nil : Task {
                try? await Task.sleep(for: .seconds(wait))
                continuation.yield(.changed)
            }
            let changed = Self.describeChanges(from: previous, to: snapshot)
            previous = snapshot
            remaining -= 1
            Self.line(output, human: changed.joined(separator: "; "), json: [
                ("event", "state"), ("changed", .array(changed.map { .string($0) })),
                ("user", snapshot.state.json), ("backends", .array(snapshot.backends.map { .string($0) })),
            ])
            if remaining == 0 { break }
        }
        return ExitStatus.success
    }

    /// Why the loop wakes: localauthd announced a change (or this is the first read), its bus
    /// name changed hands, or Ctrl-C.
    private enum Wake { case changed, daemon, stop }

    private static func line(_ output: Output, human: String, json fields: [(String, JSONValue)]) {
        var now = time(nil)
        var parts = tm()
        localtime_r(&now, &parts)
        let clock = [parts.tm_hour, parts.tm_min, parts.tm_sec].map { $0 < 10 ? "0\($0)" : "\($0)" }.joined(separator: ":")
        output.result("\(clock) \(human)", json: .object([fields[0], ("time", .int(now))] + fields.dropFirst()))
    }

    /// Words for what changed; everything (the current state) for the first line.
    private static func describeChanges(from old: Snapshot?, to new: Snapshot) -> [String] {
        var changes: [String] = []
        let state = new.state
        func note(_ differs: Bool, _ text: String) { if old == nil || differs { changes.append(text) } }
        note(old?.state.passcodeSet != state.passcodeSet, "passcode \(state.passcodeSet ? "set" : "not set")")
        note(old?.state.enrollments != state.enrollments,
             "enrollments: " + (state.enrollments.isEmpty ? "none" : state.enrollments.map { "\($0.modality) \($0.label)" }.joined(separator: ", ")))
        note(old?.state.requireAttention != state.requireAttention, "require attention \(state.requireAttention ? "on" : "off")")
        note(old?.state.biometryFailures != state.biometryFailures, "biometry failures \(state.biometryFailures)")
        note(old?.state.biometryLockedOut != state.biometryLockedOut,
             state.biometryLockedOut ? "biometry locked: enter your passcode" : "biometry not locked")
        note(old?.state.passcodeFailures != state.passcodeFailures, "passcode failures \(state.passcodeFailures)")
        note(old?.state.passcodeRetryAfter != state.passcodeRetryAfter || old?.state.passcodeLockedOut != state.passcodeLockedOut,
             state.passcodeLockedOut ? "passcode locked"
                : state.passcodeWait > 0 ? "passcode: next try in \(UserState.words(seconds: state.passcodeWait))" : "passcode not delayed")
        note(old?.backends != new.backends, "backends: " + new.backends.joined(separator: ", "))
        return changes
    }
}
