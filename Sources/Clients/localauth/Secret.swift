// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import Dispatch

/// Passcode bytes: read from standard input or the terminal, wiped after use, never printed.
enum Secret {
    /// Longer lines are cut here; the daemon refuses more than 128 bytes anyway.
    static let maximumLength = 1024

    static func wipe(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            explicit_bzero(base, buffer.count)
        }
    }

    /// An empty buffer with room for the longest line kept, so appending never moves it.
    static func reserved() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(maximumLength)
        return bytes
    }

    /// Reads up to `count` lines from standard input (each without its newline or a trailing CR),
    /// on a background thread so the main queue stays free for Ctrl-C. Missing lines are an error.
    static func readStandardInput(lines count: Int) async throws(CLIError) -> [[UInt8]] {
        let lines: [[UInt8]] = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                // Reserved up front: a growing array would leave partial copies in freed memory.
                var lines: [[UInt8]] = [], current = reserved()
                var byte: UInt8 = 0
                while lines.count < count {
                    let got = read(0, &byte, 1)
                    if got < 0, errno == EINTR { continue }
                    if got <= 0 {
                        if !current.isEmpty { lines.append(current) }
                        break
                    }
                    if byte == UInt8(ascii: "\n") {
                        if current.last == UInt8(ascii: "\r") { current.removeLast() }
                        lines.append(current)
                        current = reserved()
                    } else if current.count < maximumLength {
                        current.append(byte)
                    }
                }
                byte = 0
                continuation.resume(returning: lines)
            }
        }
        guard lines.count == count else {
            var unused = lines
            for index in unused.indices { wipe(&unused[index]) }
            throw .usage("Expected \(count == 1 ? "a passcode" : "\(count) passcodes, one per line,") on standard input.")
        }
        return lines
    }
}
