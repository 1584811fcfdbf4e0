#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Durable whole-file reads and writes with POSIX calls, the one place this module touches the
/// file system. A write goes to a temporary file in the same directory, is fsynced, renamed over
/// the target and the directory is fsynced: after `write` returns, a crash leaves either the old
/// or the new content, never a mix, and never loses the new one.
enum AtomicFile {
    struct Failure: Error {
        let errno: Int32
        let operation: String
        let path: String

        var message: String { "\(operation) \(path): \(String(cString: strerror(errno)))" }
        var isMissing: Bool { errno == ENOENT }
    }

    /// The file's bytes, or nil when it does not exist.
    static func read(_ path: String, limit: Int = 1 << 20) throws(Failure) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else {
            if errno == ENOENT { return nil }
            throw Failure(errno: errno, operation: "open", path: path)
        }
        defer { close(fd) }
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

    /// Replaces the file's content durably; the file gets `mode` (0600 by default).
    static func write(_ bytes: [UInt8], to path: String, mode: mode_t = 0o600) throws(Failure) {
        let directory = parent(of: path)
        let temporary = "\(path).tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode)
        guard fd >= 0 else { throw Failure(errno: errno, operation: "create", path: temporary) }
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + written, $0.count - written) }
            if count < 0 {
                if errno == EINTR { continue }
                let failure = Failure(errno: errno, operation: "write", path: temporary)
                close(fd)
                unlink(temporary)
                throw failure
            }
            written += count
        }
        guard fsync(fd) == 0 else {
            let failure = Failure(errno: errno, operation: "fsync", path: temporary)
            close(fd)
            unlink(temporary)
            throw failure
        }
        close(fd)
        guard rename(temporary, path) == 0 else {
            let failure = Failure(errno: errno, operation: "rename", path: temporary)
            unlink(temporary)
            throw failure
        }
        try syncDirectory(directory)
    }

    /// Creates the directory (and its parents) with `mode`, or tightens an existing one to it.
    static func makeDirectory(_ path: String, mode: mode_t = 0o700) throws(Failure) {
        if mkdir(path, mode) == 0 { return }
        switch errno {
        case EEXIST:
            guard chmod(path, mode) == 0 else { throw Failure(errno: errno, operation: "chmod", path: path) }
        case ENOENT where path != "/" && !path.isEmpty:
            try makeDirectory(parent(of: path), mode: mode)
            guard mkdir(path, mode) == 0 || errno == EEXIST else { throw Failure(errno: errno, operation: "mkdir", path: path) }
        default:
            throw Failure(errno: errno, operation: "mkdir", path: path)
        }
    }

    static func move(_ source: String, to destination: String) throws(Failure) {
        guard rename(source, destination) == 0 else { throw Failure(errno: errno, operation: "rename", path: source) }
        try syncDirectory(parent(of: destination))
    }

    private static func syncDirectory(_ path: String) throws(Failure) {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw Failure(errno: errno, operation: "open", path: path) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw Failure(errno: errno, operation: "fsync", path: path) }
    }

    static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
