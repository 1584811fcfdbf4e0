// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import LocalAuthCore

/// A directory of the daemon's state, held open: every file and subdirectory in it is reached
/// through its descriptor without following a symbolic link, so a path renamed or replaced after
/// the check cannot redirect a read or a write.
///
/// Used only when it is what the daemon itself would have made: a real directory owned by the
/// daemon's effective uid and writable by no one else (mode 0700 as the daemon makes it; group or
/// other write access is refused with a message). Group and other read and search permissions are
/// then removed through the descriptor (never by path, and never before the owner is known). A file in it is read only when it is a
/// regular file owned by the daemon's uid; anything else is `.corrupt`, so the user it belongs to
/// fails closed, and is left as it is.
///
/// Owns its descriptor (closed on deinit); immutable, so any thread may use it.
final class StateDirectory: Sendable {
    /// The path it was opened by, for messages; never opened again.
    let path: String
    private let descriptor: Int32

    private init(path: String, descriptor: Int32) {
        self.path = path
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    /// Opens the daemon's state directory at `path`, creating it (mode 0700) and missing parents.
    ///
    /// Its parent must be owned by root or the daemon's uid and not writable by other users unless
    /// sticky (like /tmp): otherwise another user could move the state directory away, so that the
    /// daemon starts afresh and forgets every lockout, or put one of theirs in its place. Group
    /// write is allowed for root's group and the daemon's own. Directories above the parent are not
    /// checked: a parent swapped through them fails the owner check unless root or the daemon's uid
    /// made it. systemd's `StateDirectory=localauthd` gives a root-owned /var/lib/localauthd in
    /// /var/lib, which passes.
    static func open(_ path: String) throws(StateStoreError) -> StateDirectory {
        var trimmed = path
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed.removeLast() }
        let (parentPath, name) = split(trimmed)
        guard !name.isEmpty, name != ".", name != ".." else {
            throw StateStoreError(.io, "\(path) cannot be the state directory; name a directory of its own, such as /var/lib/localauthd.")
        }
        let parent = try openParent(parentPath)
        defer { close(parent) }
        let created = mkdirat(parent, name, 0o700) == 0
        guard created || errno == EEXIST else {
            throw StateStoreError(.io, "Cannot create \(trimmed): \(reason(errno)).")
        }
        guard let directory = try openTrusted(name, in: parent, path: trimmed) else {
            throw StateStoreError(.io, "\(trimmed) disappeared while the daemon opened it; start it again.")
        }
        if created { try sync(parent, parentPath) }
        return directory
    }

    /// The subdirectory `name`, created (mode 0700) when missing.
    func subdirectory(_ name: String) throws(StateStoreError) -> StateDirectory {
        let created = mkdirat(descriptor, name, 0o700) == 0
        guard created || errno == EEXIST else {
            throw StateStoreError(.io, "Cannot create \(path)/\(name): \(Self.reason(errno)).")
        }
        guard let directory = try existingSubdirectory(name) else {
            throw StateStoreError(.io, "\(path)/\(name) disappeared while the daemon opened it.")
        }
        if created { try Self.sync(descriptor, path) }
        return directory
    }

    /// The subdirectory `name`, or nil when there is none.
    func existingSubdirectory(_ name: String) throws(StateStoreError) -> StateDirectory? {
        try Self.openTrusted(name, in: descriptor, path: "\(path)/\(name)")
    }

    /// The bytes of the file `name`, or nil when there is none.
    func read(_ name: String, limit: Int = 1 << 20) throws(StateStoreError) -> [UInt8]? {
        let filePath = "\(path)/\(name)"
        // O_NONBLOCK: opening a FIFO put here must not hang the daemon; it fails the type check below.
        let fd = openat(descriptor, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY)
        guard fd >= 0 else {
            switch errno {
            case ENOENT: return nil
            case ELOOP: throw StateStoreError(.corrupt, Self.symbolicLink(filePath, target: readLink(name), advice: "remove it"))
            case let error: throw StateStoreError(.io, "Cannot open \(filePath): \(Self.reason(error)).")
            }
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw StateStoreError(.io, "Cannot inspect \(filePath): \(Self.reason(errno)).") }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw StateStoreError(.corrupt, "\(filePath) is \(Self.kind(info.st_mode)), not a file the daemon wrote; remove it.")
        }
        guard info.st_uid == geteuid() else {
            throw StateStoreError(.corrupt, Self.foreignOwner(filePath, info.st_uid, what: "remove it"))
        }
        do throws(AtomicFile.Failure) {
            return try AtomicFile.readAll(fd, path: filePath, limit: limit)
        } catch {
            throw StateStoreError(.io, error.message)
        }
    }

    /// Replaces the file `name` durably (mode 0600); a link or file at `name` is replaced, not followed.
    func write(_ bytes: [UInt8], to name: String) throws(StateStoreError) {
        do throws(AtomicFile.Failure) {
            try AtomicFile.write(bytes, to: name, in: descriptor, directoryPath: path)
        } catch {
            throw StateStoreError(.io, error.message)
        }
    }

    /// Renames `name` to `newName` durably; false when there is no `name`.
    func rename(_ name: String, to newName: String) throws(StateStoreError) -> Bool {
        guard renameat(descriptor, name, descriptor, newName) == 0 else {
            if errno == ENOENT { return false }
            throw StateStoreError(.io, "Cannot rename \(path)/\(name) to \(newName): \(Self.reason(errno)).")
        }
        try Self.sync(descriptor, path)
        return true
    }

    /// The names in the directory, without `.` and `..`.
    func entries() throws(StateStoreError) -> [String] {
        let copy = dup(descriptor)
        guard copy >= 0, let stream = fdopendir(copy) else {
            if copy >= 0 { close(copy) }
            throw StateStoreError(.io, "Cannot list \(path): \(Self.reason(errno)).")
        }
        defer { closedir(stream) }
        rewinddir(stream)  // the copy shares its position with `descriptor`
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != ".", name != ".." { names.append(name) }
        }
        return names
    }

    /// Removes the temporary files of writes that a crash interrupted (see
    /// ``AtomicFile/temporaryName(for:)``): those whose writing process is gone. A live writer's
    /// file is kept; it may be another daemon's write in progress on the same directory.
    func removeOrphanedTemporaryFiles() throws(StateStoreError) {
        for name in try entries() {
            guard let writer = AtomicFile.writer(ofTemporary: name), writer != getpid(),
                  kill(writer, 0) != 0, errno == ESRCH else { continue }
            guard unlinkat(descriptor, name, 0) == 0 || errno == ENOENT else {
                throw StateStoreError(.io, "Cannot remove the leftover \(path)/\(name): \(Self.reason(errno)).")
            }
        }
    }

    // MARK: Checks

    /// Opens `name` in `parent` as a directory the daemon can trust, or nil when it does not exist.
    private static func openTrusted(_ name: String, in parent: Int32, path: String) throws(StateStoreError) -> StateDirectory? {
        let fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else {
            let error = errno
            var info = stat()
            let found = fstatat(parent, name, &info, AT_SYMLINK_NOFOLLOW) == 0
            guard error == ELOOP || error == ENOTDIR, found else {
                if error == ENOENT { return nil }
                throw StateStoreError(.io, "Cannot open \(path): \(reason(error)).")
            }
            guard info.st_mode & S_IFMT != S_IFLNK else {
                throw StateStoreError(.corrupt, symbolicLink(path, target: readLink(name, in: parent),
                                                             advice: "remove the link, and name the directory it points to (--state-dir or state_directory) if that is the one meant"))
            }
            throw StateStoreError(.corrupt, "\(path) is \(kind(info.st_mode)), not a directory; move it away or name another state directory.")
        }
        let directory = StateDirectory(path: path, descriptor: fd)
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw StateStoreError(.io, "Cannot inspect \(path): \(reason(errno)).") }
        guard info.st_uid == geteuid() else {
            throw StateStoreError(.corrupt, foreignOwner(path, info.st_uid, what: "remove it (the daemon then makes a new one) or, if its content is trusted, run `chown -R \(geteuid()) \(path)`"))
        }
        // Others who could write here could have removed a ledger (forgetting a lockout) or put
        // files in: refused, not repaired, so that nobody trusts such state without a look.
        if info.st_mode & 0o022 != 0 {
            throw StateStoreError(.corrupt, "\(path) is writable by other users (mode \(octal(info.st_mode & 0o7777))), who could have removed or replaced state in it (a removed ledger forgets a lockout); check its content, then run `chmod 0700 \(path)`, or remove it (the daemon then makes a new one).")
        }
        if info.st_mode & 0o077 != 0 {
            guard fchmod(fd, 0o700) == 0 else { throw StateStoreError(.io, "Cannot make \(path) private (mode 0700): \(reason(errno)).") }
        }
        return directory
    }

    /// Opens the state directory's parent, creating it and its missing parents (mode 0700), and
    /// checks that no other user can replace entries in it.
    private static func openParent(_ path: String) throws(StateStoreError) -> Int32 {
        var fd = Glibc.open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if fd < 0, errno == ENOENT {
            makeDirectories(path)
            fd = Glibc.open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        }
        guard fd >= 0 else { throw StateStoreError(.io, "Cannot open \(path): \(reason(errno)).") }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let error = errno
            close(fd)
            throw StateStoreError(.io, "Cannot inspect \(path): \(reason(error)).")
        }
        let owner = info.st_uid, mode = info.st_mode
        let groupMayWrite = mode & 0o020 != 0 && info.st_gid != 0 && info.st_gid != getegid()
        let othersMayWrite = mode & 0o002 != 0
        let elsewhere = "name a state directory in a directory only root or uid \(geteuid()) can change"
        let problem: String? = if owner != 0 && owner != geteuid() {
            "\(path), the state directory's parent, is owned by uid \(owner), who could replace the state directory in it; \(elsewhere)"
        } else if (groupMayWrite || othersMayWrite) && mode & S_ISVTX == 0 {
            "\(path), the state directory's parent, is writable by other users (mode \(octal(mode & 0o7777))), who could replace the state directory in it; run `chmod go-w \(path)` or \(elsewhere)"
        } else {
            nil
        }
        guard let problem else { return fd }
        close(fd)
        throw StateStoreError(.io, "\(problem).")
    }

    /// `mkdir -p` with mode 0700; failures show when the directory is opened.
    private static func makeDirectories(_ path: String) {
        guard mkdir(path, 0o700) != 0, errno == ENOENT else { return }
        let (parent, _) = split(path)
        guard parent != path else { return }
        makeDirectories(parent)
        mkdir(path, 0o700)
    }

    private static func sync(_ fd: Int32, _ path: String) throws(StateStoreError) {
        do throws(AtomicFile.Failure) { try AtomicFile.syncDirectory(fd, path: path) } catch {
            throw StateStoreError(.io, error.message)
        }
    }

    // MARK: Messages

    private func readLink(_ name: String) -> String? { Self.readLink(name, in: descriptor) }

    private static func readLink(_ name: String, in directory: Int32) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX))
        let count = readlinkat(directory, name, &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func symbolicLink(_ path: String, target: String?, advice: String) -> String {
        "\(path) is a symbolic link\(target.map { " to \($0)" } ?? ""); the daemon follows no links in its state; \(advice)."
    }

    private static func foreignOwner(_ path: String, _ owner: uid_t, what: String) -> String {
        "\(path) is owned by uid \(owner), not by the daemon's uid \(geteuid()), so uid \(owner) could change or remove the state in it; \(what)."
    }

    private static func kind(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFREG: "a regular file"
        case S_IFDIR: "a directory"
        case S_IFLNK: "a symbolic link"
        case S_IFIFO: "a FIFO"
        case S_IFSOCK: "a socket"
        case S_IFCHR, S_IFBLK: "a device"
        default: "not a regular file"
        }
    }

    private static func reason(_ error: Int32) -> String { String(cString: strerror(error)) }

    private static func octal(_ mode: mode_t) -> String { "0" + String(mode, radix: 8) }

    /// ("/a/b", "c") for "/a/b/c"; (".", "c") for "c"; ("/", "a") for "/a".
    private static func split(_ path: String) -> (parent: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let name = String(path[path.index(after: slash)...])
        return (slash == path.startIndex ? "/" : String(path[..<slash]), name)
    }
}
