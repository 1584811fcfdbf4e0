// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import LocalAuthCore

/// The directory that holds the wrapping key's files (`<state>/sealing`): created 0700, and
/// refused when it is a symbolic link, not ours, or open to others. Every file of it is read and
/// written here, with `O_NOFOLLOW`, and refused when others could read or write it.
struct SealingDirectory: Sendable {
    let path: String

    /// Checks the directory, creating it (and not its parents) 0700 when it is missing.
    init(path: String) throws(RightVaultError) {
        self.path = path
        if mkdir(path, 0o700) != 0 && errno != EEXIST {
            let code = errno
            throw RightVaultError(.failed, "Cannot create the sealing directory \(path): \(Self.describe(code))."
                                  + (code == ENOENT ? " Create its parent directory (the daemon's state directory)." : ""))
        }
        var status = stat()
        guard lstat(path, &status) == 0 else {
            throw RightVaultError(.failed, "Cannot inspect the sealing directory \(path): \(Self.describe(errno)).")
        }
        guard status.st_mode & S_IFMT == S_IFDIR else {
            throw RightVaultError(.failed, "\(path) is not a directory (a symbolic link or file?): move it away; the daemon creates the sealing directory itself.")
        }
        try Self.checkPrivate(status, path: path, what: "The sealing directory", fix: "chmod 0700 '\(path)'")
    }

    /// Refuses `status` when it is not owned by the daemon's user or others may read or write it.
    static func checkPrivate(_ status: stat, path: String, what: String, fix: String) throws(RightVaultError) {
        guard status.st_uid == geteuid() else {
            throw RightVaultError(.failed, "\(what) \(path) belongs to uid \(status.st_uid), not to the daemon's uid \(geteuid()): chown it to \(geteuid()), or move it away if you did not put it there.")
        }
        guard status.st_mode & 0o077 == 0 else {
            let mode = String(status.st_mode & 0o7777, radix: 8)
            throw RightVaultError(.failed, "\(what) \(path) has mode \(mode): others may read or write it. Run `\(fix)`; if anyone else may have read the key, remove the rights (their secrets are exposed).")
        }
    }

    func path(of name: String) -> String { path + "/" + name }

    /// Whether something is at `path` (anything, a dangling link included); creates nothing.
    static func entryExists(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0
    }

    /// The bytes of `name`, or nil when it does not exist. Refused: not a regular file (a link:
    /// `O_NOFOLLOW`), not private, or more than `limit` bytes.
    func load(_ name: String, limit: Int) throws(RightVaultError) -> [UInt8]? {
        guard let (fd, size) = try openPrivate(name, limit: limit) else { return nil }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: size)
        try bytes.withUnsafeMutableBufferPointer { (buffer) throws(RightVaultError) in try readAll(fd, into: buffer, name: name) }
        return bytes
    }

    /// Reads `name`, which must have exactly `buffer.count` bytes, straight into `buffer` (no other
    /// copy); false when it does not exist. Refused as ``load(_:limit:)`` refuses, and when its size differs.
    func load(_ name: String, into buffer: UnsafeMutableBufferPointer<UInt8>) throws(RightVaultError) -> Bool {
        guard let (fd, size) = try openPrivate(name, limit: Int.max) else { return false }
        defer { close(fd) }
        guard size == buffer.count else {
            throw RightVaultError(.failed, "\(path(of: name)) has \(size) bytes, not \(buffer.count): it is damaged or not this daemon's file. If no right was ever saved, remove it; otherwise restore it from a backup (the rights' secrets cannot be opened without it).")
        }
        try readAll(fd, into: buffer, name: name)
        return true
    }

    private func openPrivate(_ name: String, limit: Int) throws(RightVaultError) -> (Int32, Int)? {
        let file = path(of: name)
        let fd = open(file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY)
        if fd < 0 {
            if errno == ENOENT { return nil }
            throw RightVaultError(.failed, "Cannot open \(file): \(Self.describe(errno))\(errno == ELOOP ? " (a symbolic link: move it away)" : "").")
        }
        var status = stat()
        do throws(RightVaultError) {
            guard fstat(fd, &status) == 0 else { throw RightVaultError(.failed, "Cannot inspect \(file): \(Self.describe(errno)).") }
            guard status.st_mode & S_IFMT == S_IFREG else {
                throw RightVaultError(.failed, "\(file) is not a regular file: move it away.")
            }
            try Self.checkPrivate(status, path: file, what: "The file", fix: "chmod 0600 '\(file)'")
            guard status.st_size <= limit else {
                throw RightVaultError(.failed, "\(file) has \(status.st_size) bytes, more than the \(limit) it can have: it is not this daemon's file; move it away.")
            }
        } catch {
            close(fd)
            throw error
        }
        return (fd, Int(status.st_size))
    }

    private func readAll(_ fd: Int32, into buffer: UnsafeMutableBufferPointer<UInt8>, name: String) throws(RightVaultError) {
        var done = 0
        while done < buffer.count {
            let count = read(fd, buffer.baseAddress! + done, buffer.count - done)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                throw RightVaultError(.failed, "Cannot read \(path(of: name)): \(count == 0 ? "it got shorter" : Self.describe(errno)).")
            }
            done += count
        }
    }

    /// Writes `bytes` to `name` atomically: a new 0600 file (`O_EXCL|O_NOFOLLOW`) flushed to disk,
    /// then linked (`replace` false: fails when `name` exists) or renamed into place, the directory flushed.
    func store(_ name: String, _ bytes: UnsafeBufferPointer<UInt8>, replace: Bool) throws(RightVaultError) {
        let file = path(of: name)
        let temporary = path(of: "." + name + ".new")
        unlink(temporary)  // left by a crash between creating and linking; the directory is ours alone
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw RightVaultError(.failed, "Cannot create \(temporary): \(Self.describe(errno)).") }
        var done = 0
        var failure: Int32 = 0
        while done < bytes.count {
            let count = write(fd, bytes.baseAddress! + done, bytes.count - done)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                failure = errno
                break
            }
            done += count
        }
        if failure == 0 && fsync(fd) != 0 { failure = errno }
        close(fd)
        if failure == 0 {
            if replace {
                if rename(temporary, file) != 0 { failure = errno }
            } else if link(temporary, file) != 0 {
                failure = errno
            }
        }
        unlink(temporary)
        guard failure == 0 else {
            throw RightVaultError(.failed, "Cannot write \(file): \(Self.describe(failure))\(failure == EEXIST ? " (another daemon created it at the same time?)" : "").")
        }
        let directory = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directory >= 0 {
            fsync(directory)
            close(directory)
        }
    }

    static func describe(_ code: Int32) -> String { String(cString: strerror(code)) }
}
