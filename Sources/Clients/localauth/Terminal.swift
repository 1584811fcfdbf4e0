// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import Dispatch

/// The controlling terminal (`/dev/tty`) with echo turned off while passcodes may be typed.
///
/// Main-actor isolated: the Ctrl-C handler runs there too, so `restoreEcho()` always sees the
/// saved settings. Every exit path of the tool calls `restoreEcho()`.
@MainActor
enum Terminal {
    private static var saved: (fd: Int32, settings: termios)?

    /// Opens `/dev/tty` with echo off (a newline typed is still echoed), or nil without a terminal.
    static func openWithoutEcho() -> Int32? {
        let fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        var settings = termios()
        guard tcgetattr(fd, &settings) == 0 else {
            close(fd)
            return nil
        }
        if saved == nil { saved = (fd, settings) }
        var quiet = settings
        quiet.c_lflag &= ~tcflag_t(ECHO | ECHOE | ECHOK)
        quiet.c_lflag |= tcflag_t(ECHONL | ICANON)
        tcsetattr(fd, TCSAFLUSH, &quiet)
        return fd
    }

    /// Puts echo back as it was and closes the terminal; does nothing when it was not opened.
    static func restoreEcho() {
        guard let (fd, settings) = saved else { return }
        var restored = settings
        tcsetattr(fd, TCSAFLUSH, &restored)
        close(fd)
        saved = nil
    }

    static func write(_ text: String, to fd: Int32) {
        var bytes = Array(Typography.adapted(TerminalSafeText.lines(text)).utf8)
        _ = Glibc.write(fd, &bytes, bytes.count)
    }

    /// Reads lines from `fd` on the main queue without blocking it: `handler` gets each line
    /// (without its newline; the buffer is the caller's to wipe), nil at end of input.
    static func readLines(from fd: Int32, _ handler: @escaping @MainActor ([UInt8]?) -> Void) -> any DispatchSourceRead {
        let source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: .main)
        var pending = Secret.reserved()
        source.setEventHandler {
            MainActor.assumeIsolated {
                var chunk = [UInt8](repeating: 0, count: 256)
                defer { Secret.wipe(&chunk) }
                let count = read(fd, &chunk, chunk.count)
                guard count > 0 else {
                    Secret.wipe(&pending)
                    source.cancel()
                    handler(nil)
                    return
                }
                for byte in chunk[..<count] {
                    if byte == UInt8(ascii: "\n") {
                        // The line's buffer passes to the handler, which wipes it.
                        let line = pending
                        pending = Secret.reserved()
                        handler(line)
                    } else if pending.count < Secret.maximumLength {
                        pending.append(byte)
                    }
                }
            }
        }
        source.resume()
        return source
    }

    /// Asks for one passcode on the terminal without echo.
    static func readPasscode(prompt: String) async throws(CLIError) -> [UInt8] {
        guard let fd = openWithoutEcho() else {
            throw .usage("There is no terminal to read the passcode from; pass it on standard input with --stdin.")
        }
        defer { restoreEcho() }
        write(prompt, to: fd)
        let line: [UInt8]? = await withCheckedContinuation { continuation in
            var source: (any DispatchSourceRead)?
            source = readLines(from: fd) { line in
                guard let reader = source else { return }
                source = nil
                reader.cancel()
                continuation.resume(returning: line)
            }
        }
        guard let line else { throw .usage("No passcode was entered.") }
        return line
    }
}
