// SPDX-License-Identifier: Apache-2.0
import Foundation

/// A secret a test looks for in a process's memory, held masked: the scanning process never holds
/// its plain bytes except in buffers it wipes, so it can scan its own memory too.
public struct MaskedSecret: Sendable {
    private let masked: [UInt8]
    private let key: [UInt8]

    /// A random printable secret of `length` bytes after `prefix` (which is kept in plain text, so
    /// use a short one that alone is not distinctive).
    public init(prefix: String, length: Int = 24) {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789".utf8)
        let plain = Array(prefix.utf8) + (0..<length).map { _ in alphabet.randomElement()! }
        key = plain.map { _ in UInt8.random(in: 1...255) }
        masked = zip(plain, key).map { $0 ^ $1 }
    }

    public var count: Int { masked.count }

    /// The plain bytes, to `body` only; the buffer is wiped afterwards.
    public func withPlainBytes<R>(_ body: ([UInt8]) throws -> R) rethrows -> R {
        var plain = zip(masked, key).map { $0 ^ $1 }
        defer { plain.withUnsafeMutableBytes { explicit_bzero($0.baseAddress!, $0.count) } }
        return try body(plain)
    }

    /// The plain bytes as `Data` the caller must wipe with `wipe(_:)`.
    public func plainData() -> Data {
        withPlainBytes { Data($0) }
    }

    /// Whether the secret starts at `offset` in `buffer` (compared without unmasking it).
    func matches(_ buffer: UnsafeRawBufferPointer, at offset: Int) -> Bool {
        for index in 0..<masked.count where buffer[offset + index] ^ key[index] != masked[index] { return false }
        return true
    }

    /// The first plain byte: candidates are found with `memchr` before a full comparison.
    var firstByte: UInt8 { masked[0] ^ key[0] }
}

/// Wipes `data` in place.
public func wipe(_ data: inout Data) {
    data.withUnsafeMutableBytes { explicit_bzero($0.baseAddress!, $0.count) }
}

/// Counts a secret's copies in a process's readable memory (`/proc/PID/maps` + `/proc/PID/mem`;
/// needs the right to ptrace the process: root, or its parent).
public enum MemoryScan {
    /// One copy: where it was found.
    public struct Hit: Sendable, CustomStringConvertible {
        public let address: UInt
        /// The mapping's name from `/proc/PID/maps`, e.g. `[heap]`, or "anonymous".
        public let mapping: String
        public var description: String { "0x\(String(address, radix: 16)) in \(mapping)" }
    }

    /// Every copy of each secret in the memory of `pid`, in the order given.
    public static func copies(of secrets: [MaskedSecret], in pid: Int32) throws -> [[Hit]] {
        let maps = try readToEnd("/proc/\(pid)/maps")
        let fd = open("/proc/\(pid)/mem", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw ScanError("cannot open /proc/\(pid)/mem: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        let longest = secrets.map(\.count).max() ?? 1
        let chunkSize = 1 << 20
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize + longest, alignment: 16)
        defer {
            explicit_bzero(chunk.baseAddress!, chunk.count)
            chunk.deallocate()
        }
        var hits = Array(repeating: [Hit](), count: secrets.count)
        for line in maps.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 5, fields[1].hasPrefix("r") else { continue }
            let mapping = fields.count >= 6 ? fields[5...].joined(separator: " ") : "anonymous"
            // [vvar] and [vsyscall] cannot be read through /proc/PID/mem and hold no data of the process.
            guard mapping != "[vvar]", mapping != "[vsyscall]", mapping != "[vvar_vclock]" else { continue }
            let bounds = fields[0].split(separator: "-")
            guard bounds.count == 2, let start = UInt(bounds[0], radix: 16), let end = UInt(bounds[1], radix: 16) else { continue }
            var address = start
            while address < end {
                // Each read overlaps the previous one by `longest - 1` bytes so no copy is cut in two.
                let wanted = Int(min(UInt(chunkSize + longest - 1), end - address))
                let got = pread(fd, chunk.baseAddress!, wanted, off_t(Int64(bitPattern: UInt64(address))))
                guard got > 0 else { break }
                let buffer = UnsafeRawBufferPointer(start: chunk.baseAddress!, count: got)
                for (index, secret) in secrets.enumerated() {
                    for offset in candidates(of: secret, in: buffer) where offset < chunkSize {
                        hits[index].append(Hit(address: address + UInt(offset), mapping: mapping))
                    }
                }
                address += UInt(chunkSize)
            }
        }
        return hits
    }

    /// A `/proc` file read to its end: it reports size 0, and reading it by its size (as
    /// `String(contentsOfFile:)` may) can cut a long `maps` short.
    private static func readToEnd(_ path: String) throws -> String {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw ScanError("cannot open \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var contents: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let got = read(fd, &buffer, buffer.count)
            if got < 0, errno == EINTR { continue }
            guard got > 0 else { break }
            contents += buffer[..<got]
        }
        return String(decoding: contents, as: UTF8.self)
    }

    private static func candidates(of secret: MaskedSecret, in buffer: UnsafeRawBufferPointer) -> [Int] {
        var offsets: [Int] = []
        var offset = 0
        while offset + secret.count <= buffer.count {
            guard let found = memchr(buffer.baseAddress! + offset, Int32(secret.firstByte), buffer.count - secret.count + 1 - offset) else { break }
            let position = buffer.baseAddress!.distance(to: UnsafeRawPointer(found))
            if secret.matches(buffer, at: position) { offsets.append(position) }
            offset = position + 1
        }
        return offsets
    }

    public struct ScanError: Error, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }
}
