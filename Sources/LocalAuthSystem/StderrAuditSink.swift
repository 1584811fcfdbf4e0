#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import LocalAuthCore

/// Writes audit entries to standard error, one line each, with the `<N>` syslog-priority prefix
/// that systemd's stderr capture (sd-daemon convention) understands.
public struct StderrAuditSink: AuditSink {
    public init() {}

    public func record(_ entry: AuditEntry) {
        writeToStandardError("<\(entry.severity.rawValue)>\(entry)\n")
    }
}

/// Writes `text` to standard error with one write(2), so concurrent lines never interleave.
public func writeToStandardError(_ text: String) {
    let bytes = Array(text.utf8)
    _ = bytes.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
}
