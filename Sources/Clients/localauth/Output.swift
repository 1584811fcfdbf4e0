// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif

/// Where results (stdout) and errors and prompts (stderr) go, in human or `--json` form.
///
/// Human text passes ``TerminalSafeText/lines(_:)`` on its way out, so no string from another
/// process reaches the terminal with a control sequence even where a command forgot to mark it;
/// fields shown within a line are flattened by the commands with ``TerminalSafeText/line(_:)``.
struct Output: Sendable {
    let json: Bool

    /// A command's result: the human text, or the JSON value as one line.
    func result(_ human: @autoclosure () -> String, json value: @autoclosure () -> JSONValue) {
        if json { Self.write(value().serialized, to: 1) } else { Self.write(TerminalSafeText.lines(human()), to: 1) }
    }

    /// Interactive chatter for a person (prompts, hints): stderr, and never in `--json` mode.
    func note(_ text: String) {
        guard !json else { return }
        Self.write(TerminalSafeText.lines(text), to: 2)
    }

    func error(_ error: CLIError) {
        if json {
            Self.write(JSONValue.object([("error", error.json)]).serialized, to: 2)
        } else {
            Self.write("localauth: " + TerminalSafeText.lines(error.message), to: 2)
        }
    }

    /// Writes a whole line to a file descriptor (1 or 2), unbuffered, so lines interleave in order.
    static func write(_ line: String, to fd: Int32) {
        let bytes = Array((Typography.adapted(line) + "\n").utf8)
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return }
            written += count
        }
    }
}
