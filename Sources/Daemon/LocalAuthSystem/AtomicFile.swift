// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Durable whole-file reads and writes with POSIX calls. A write goes to a temporary file in the
/// same directory, is fsynced, renamed over the target and the directory is fsynced: after `write`
/// returns, a crash leaves either the old or the new content, never a mix, and never loses the new
/// one. A crash between creating and renaming leaves the temporary file behind; its name
/// (``temporaryName(for:)``) says which process wrote it, so a later start can remove it.
enum AtomicFile {
    struct Failure: Error {
        let errno: Int32
        let operation: String
        let path: String

        var message: String { "\(operation) \(path): \(String(cString: strerror(errno)))" }
        var isMissing: Bool { errno == ENOENT }
    }

    /// The file's bytes, or nil when it does not exist; a symbolic link at `path` is not followed.
    static func read(_ path: String, limit: Int = 1 << 20) throws(Failure) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else {
            if errno == ENOENT { return nil }
            throw Failure(errno: errno, operation: "open", path: path)
        }
        defer { close(fd) }
        return try readAll(fd, path: path, limit: limit)
    }

    /// Everything left to read from `fd`; `path` names it in errors.
    static func readAll(_ fd: Int32, path: String, limit: Int = 1 << 20) throws(Failure) -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw Failure(errno: errno, operation: "read", path: path)
            }
            if count == 0 { return bytes }
            bytes += chunk[0..<count]
            guard bytes.count <= limit else { throw Failure(errno: EFBIG, operation: "read", path: path) }
        }
    }

    /// Replaces the file `name` in the open directory `directory` (called `directoryPath` in
    /// errors) durably; the file gets `mode`. Whatever was at `name`, a symbolic link included, is
    /// replaced, never written through.
    static func write(_ bytes: [UInt8], to name: String, in directory: Int32, directoryPath: String,
                      mode: mode_t = 0o600) throws(Failure) {
        let temporary = temporaryName(for: name)
        let temporaryPath = "\(directoryPath)/\(temporary)"
        let fd = openat(directory, temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode)
        guard fd >= 0 else { throw Failure(errno: errno, operation: "create", path: temporaryPath) }
        func abandon(_ operation: String) -> Failure {
            let failure = Failure(errno: errno, operation: operation, path: temporaryPath)
            unlinkat(directory, temporary, 0)
            return failure
        }
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + written, $0.count - written) }
            if count < 0 {
                if errno == EINTR { continue }
                let failure = abandon("write")
                close(fd)
                throw failure
            }
            written += count
        }
        guard fsync(fd) == 0 else {
            let failure = abandon("fsync")
            close(fd)
            throw failure
        }
        close(fd)
        guard renameat(directory, temporary, directory, name) == 0 else { throw abandon("rename") }
        try syncDirectory(directory, path: directoryPath)
    }

    /// Makes the entries of the open directory `directory` durable (after a create, rename or mkdir in it).
    static func syncDirectory(_ directory: Int32, path: String) throws(Failure) {
        guard fsync(directory) == 0 else { throw Failure(errno: errno, operation: "fsync", path: path) }
    }

    /// `NAME.tmp-PID-RANDOM`: unique, and it names the writing process.
    static func temporaryName(for name: String) -> String {
        "\(name).tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    }

    /// The process that wrote `name` if it is one of ``temporaryName(for:)``'s names, else nil.
    static func writer(ofTemporary name: String) -> pid_t? {
        let parts = name.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count >= 3, parts[parts.count - 3].hasSuffix(".tmp"), UInt32(parts[parts.count - 1]) != nil,
              let pid = pid_t(parts[parts.count - 2]), pid > 0 else { return nil }
        return pid
    }
}
