// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A fresh directory under /tmp (mkdtemp), removed with everything in it by `remove()`.
struct TemporaryDirectory {
    let path: String

    init() throws {
        var template = Array("/tmp/localauth-systemtests-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        path = try #require(made.map { String(cString: $0) })
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// Every regular file below the directory, relative paths, sorted.
    var files: [String] {
        let all = (try? FileManager.default.subpathsOfDirectory(atPath: path)) ?? []
        return all.filter { Self.isRegularFile("\(path)/\($0)") }.sorted()
    }

    static func isRegularFile(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }
}

/// The permission bits of `path` (not following a symbolic link); nil when it does not exist.
func permissions(_ path: String) -> mode_t? {
    var info = stat()
    guard lstat(path, &info) == 0 else { return nil }
    return info.st_mode & 0o7777
}

func exists(_ path: String) -> Bool {
    var info = stat()
    return lstat(path, &info) == 0
}

/// Writes `bytes` to `path` (created 0600 or truncated), without the code under test.
func writeFile(_ path: String, _ bytes: [UInt8]) throws {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    try #require(fd >= 0, "open \(path): errno \(errno)")
    defer { close(fd) }
    let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    try #require(written == bytes.count)
}

func readFile(_ path: String) throws -> [UInt8] {
    let fd = open(path, O_RDONLY)
    try #require(fd >= 0, "open \(path): errno \(errno)")
    defer { close(fd) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        try #require(count >= 0)
        if count == 0 { return bytes }
        bytes += chunk[0..<count]
    }
}

extension Array where Element == UInt8 {
    func contains(bytes needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, needle.count <= count else { return needle.isEmpty }
        return (0...(count - needle.count)).contains { self[$0..<($0 + needle.count)].elementsEqual(needle) }
    }
}
