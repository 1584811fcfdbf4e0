// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import LocalAuthCore

/// Where the daemon's log lines and audit entries go: native journal entries with structured
/// fields when stderr is connected to journald (`$JOURNAL_STREAM` names stderr's device and
/// inode), otherwise stderr lines, with the `<N>` priority prefix of the sd-daemon convention
/// unless stderr is a terminal (a person reads those lines; a pipe may feed a log collector).
/// Every line and field has its control and format characters escaped (``DisplayText``): text a
/// client chose cannot forge a line or a priority prefix. An entry journald's socket does not take
/// becomes a stderr line (under systemd, stderr is the journal stream). Thread-safe: every entry
/// is one syscall.
public struct SystemLog: AuditSink {
    public enum Destination: Sendable { case journal, standardError }

    public let destination: Destination
    /// Whether stderr lines start with `<N>`.
    public let prefixesPriority: Bool
    /// Where `.journal` entries go; nil for `.standardError`.
    private let journal: JournalSocket?
    /// Where lines go: stderr.
    private let lines: Int32

    /// `journalSocket` is where journald takes native entries, `lines` the descriptor lines go to
    /// (tests give their own socket and a pipe).
    public init(destination: Destination = SystemLog.detectDestination(),
                prefixesPriority: Bool = SystemLog.wantsPriorityPrefix(on: STDERR_FILENO),
                journalSocket: String = "/run/systemd/journal/socket", lines: Int32 = STDERR_FILENO) {
        self.destination = destination
        self.prefixesPriority = prefixesPriority
        self.lines = lines
        journal = destination == .journal ? JournalSocket(path: journalSocket) : nil
    }

    /// True unless `fd` is a terminal.
    public static func wantsPriorityPrefix(on fd: Int32) -> Bool { isatty(fd) == 0 }

    /// `.journal` when stderr is the journal stream systemd set up for this service.
    public static func detectDestination() -> Destination {
        guard let stream = getenv("JOURNAL_STREAM").map({ String(cString: $0) }) else { return .standardError }
        let parts = stream.split(separator: ":")
        var info = stat()
        guard parts.count == 2, fstat(STDERR_FILENO, &info) == 0,
              UInt64(parts[0]) == UInt64(info.st_dev), UInt64(parts[1]) == UInt64(info.st_ino) else { return .standardError }
        return .journal
    }

    /// One operational message (start-up, shutdown, reload).
    public func log(_ severity: AuditEntry.Severity, _ message: String) {
        write(fields: ["MESSAGE": message, "PRIORITY": "\(severity.rawValue)", "SYSLOG_IDENTIFIER": "localauthd"], line: Array(message.utf8), severity: severity)
    }

    public func record(_ entry: AuditEntry) {
        write(fields: Self.journalFields(of: entry), line: entry.line, severity: entry.severity)
    }

    /// `fields` are built only when there is a journal to send them to.
    /// `line` is the stderr line's UTF-8, without the newline.
    private func write(fields: @autoclosure () -> [String: String], line: [UInt8], severity: AuditEntry.Severity) {
        // Escaped in the journal as on stderr: binary-safe fields could carry a client's newline,
        // but journalctl would then show a line the client wrote.
        if let journal, journal.send(JournalEntry(fields().mapValues(DisplayText.controlsEscaped))) { return }
        var text: [UInt8] = []
        text.reserveCapacity(line.count + 5)
        if prefixesPriority {
            text.append(UInt8(ascii: "<"))
            text.append(UInt8(ascii: "0") + UInt8(severity.rawValue))
            text.append(UInt8(ascii: ">"))
        }
        text.append(contentsOf: DisplayText.controlsEscaped(utf8: line))
        text.append(UInt8(ascii: "\n"))
        writeLine(text, to: lines)
    }

    /// The journal fields of an audit entry: a fixed `MESSAGE_ID` per kind of event (documented in
    /// the README) and `LOCALAUTH_*` fields for the details.
    public static func journalFields(of entry: AuditEntry) -> [String: String] {
        var fields = [
            "MESSAGE": entry.description,
            "MESSAGE_ID": messageID(entry.event),
            "PRIORITY": "\(entry.severity.rawValue)",
            "SYSLOG_IDENTIFIER": "localauthd",
            "LOCALAUTH_EVENT": entry.event.rawValue,
            "LOCALAUTH_USER_ID": "\(entry.user)",
            "LOCALAUTH_RESULT": entry.result,
        ]
        if let client = entry.client { fields["LOCALAUTH_CLIENT"] = client }
        if let pid = entry.clientPID { fields["LOCALAUTH_CLIENT_PID"] = "\(pid)" }
        if let policy = entry.policy { fields["LOCALAUTH_POLICY"] = "\(policy.rawValue)" }
        return fields
    }

    /// Fixed 128-bit ids, one per event kind, so `journalctl MESSAGE_ID=…` finds them.
    public static func messageID(_ event: AuditEntry.Event) -> String {
        switch event {
        case .evaluation: "4e1a2c7b9d0f4f3e8a61b2c3d4e5f601"
        case .biometryLockout: "4e1a2c7b9d0f4f3e8a61b2c3d4e5f602"
        case .passcodeLockout: "4e1a2c7b9d0f4f3e8a61b2c3d4e5f603"
        case .passcodeChange: "4e1a2c7b9d0f4f3e8a61b2c3d4e5f604"
        case .enrollmentChange: "4e1a2c7b9d0f4f3e8a61b2c3d4e5f605"
        case .attentionChange: "4e1a2c7b9d0f4f3e8a61b2c3d4e5f606"
        case .administratorReset: "4e1a2c7b9d0f4f3e8a61b2c3d4e5f607"
        case .stateError: "4e1a2c7b9d0f4f3e8a61b2c3d4e5f608"
        case .right: "4e1a2c7b9d0f4f3e8a61b2c3d4e5f609"
        case .loginPassword: "4e1a2c7b9d0f4f3e8a61b2c3d4e5f60a"
        }
    }
}

/// Writes `text` to standard error (or `descriptor`) with one write(2), so concurrent lines never
/// interleave.
public func writeToStandardError(_ text: String, descriptor: Int32 = STDERR_FILENO) {
    writeLine(Array(text.utf8), to: descriptor)
}

/// `bytes` with one write(2).
private func writeLine(_ bytes: [UInt8], to descriptor: Int32) {
    _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
}
