// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import Dispatch

extension RightsCommand {
    /// The bytes `localauth rights` reads from standard input or a file and writes to standard
    /// output: bounded, read off the main queue (Ctrl-C stays live), never through a `String`.
    enum Bytes {
        /// localauthd's limit for the data of one key operation.
        static let maximumDataLength = 65_536
        /// localauthd's limit for a right's secret.
        static let maximumSecretLength = 16_384

        /// Everything on standard input, at most `limit` bytes (more is a usage error naming `what`).
        /// The caller wipes the result when it is secret.
        static func readStandardInput(limit: Int, what: String) async throws(CLIError) -> [UInt8] {
            try await read(0, limit: limit, what: what, from: "standard input")
        }

        /// A whole file, at most `limit` bytes.
        static func readFile(_ path: String, limit: Int, what: String) async throws(CLIError) -> [UInt8] {
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else {
                let error = errno
                throw .usage("Cannot read the \(what) from “\(TerminalSafeText.line(path))”: \(String(cString: strerror(error))).")
            }
            defer { close(fd) }
            return try await read(fd, limit: limit, what: what, from: "“\(TerminalSafeText.line(path))”")
        }

        /// Refuses a terminal on standard input for a command that reads data there.
        static func requireRedirectedInput(_ command: String) throws(CLIError) {
            guard isatty(0) == 1 else { return }
            throw .usage("localauth rights \(command) reads its data from standard input, which is a terminal: redirect a file (< FILE) or a pipe into it.")
        }

        /// Refuses a terminal on standard output for bytes that are binary or secret; `force`
        /// (for secrets and plaintexts a person may want to see) lets them through.
        static func requireRedirectedOutput(_ command: String, _ what: String, force: Bool? = nil) throws(CLIError) {
            guard isatty(1) == 1, force != true else { return }
            let hint = force == nil ? "" : ", or add --force to show it on the terminal (it stays on the screen and in its scrollback)"
            throw .usage("localauth rights \(command) writes \(what) to standard output, which is a terminal: redirect it (> FILE, or a pipe)\(hint).")
        }

        /// Writes all of `bytes` to standard output.
        static func write(_ bytes: [UInt8]) throws(CLIError) {
            var written = 0
            while written < bytes.count {
                let count = bytes[written...].withUnsafeBytes { Glibc.write(1, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { throw .failed("Cannot write to standard output: \(String(cString: strerror(errno))).") }
                written += count
            }
        }

        private static func read(_ fd: Int32, limit: Int, what: String, from source: String) async throws(CLIError) -> [UInt8] {
            let result: Result<[UInt8], CLIError> = await withCheckedContinuation { continuation in
                DispatchQueue.global().async {
                    // One buffer for the whole input, so no partial copy is left behind in freed memory.
                    let buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: limit + 1)
                    defer {
                        explicit_bzero(buffer.baseAddress!, buffer.count)
                        buffer.deallocate()
                    }
                    var count = 0
                    while count <= limit {
                        let got = Glibc.read(fd, buffer.baseAddress! + count, limit + 1 - count)
                        if got < 0, errno == EINTR { continue }
                        if got < 0 {
                            let error = errno
                            continuation.resume(returning: .failure(.failed("Cannot read the \(what) from \(source): \(String(cString: strerror(error))).")))
                            return
                        }
                        if got == 0 { break }
                        count += got
                    }
                    guard count <= limit else {
                        continuation.resume(returning: .failure(.usage("The \(what) on \(source) is longer than \(limit) bytes, localauthd's limit.")))
                        return
                    }
                    continuation.resume(returning: .success(Array(buffer.prefix(count))))
                }
            }
            return try result.get()
        }
    }
}
