// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Reads files of a few hundred bytes (logind's state, `/proc/PID/cgroup`) with one open, one
/// read and one close: a read that leaves more than half of the buffer empty has everything
/// (tmpfs and procfs return a small file whole; a procfs file stops short of the buffer only by
/// less than one line). A file that fills half the buffer is read on to its end, up to `limit`.
enum SmallFile {
    static let bufferSize = 16 * 1024

    /// The file's text; nil when it cannot be opened or read, or is longer than `limit` bytes.
    static func read(_ path: String, limit: Int = 1 << 20) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        while true {
            var count = 0
            bytes.append(contentsOf: [UInt8](unsafeUninitializedCapacity: bufferSize) { buffer, initialized in
                repeat { count = Glibc.read(fd, buffer.baseAddress, bufferSize) } while count < 0 && errno == EINTR
                initialized = max(count, 0)
            })
            guard count >= 0, bytes.count <= limit else { return nil }
            if count <= bufferSize / 2 { return String(decoding: bytes, as: UTF8.self) }
        }
    }
}
