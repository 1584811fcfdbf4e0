// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// An `AF_UNIX` address written the way systemd writes them in `NOTIFY_SOCKET`: an absolute path,
/// or `@name` for a name in the abstract namespace (the `@` stands for the leading NUL byte).
struct UnixSocketAddress: Sendable, Equatable {
    enum Kind: Sendable, Equatable { case path, abstract }

    let kind: Kind
    /// The bytes after the path's start (`/…`) or after the abstract namespace's NUL.
    let name: [UInt8]

    /// Nil for anything else (a relative path, an empty name, one longer than `sun_path` holds).
    init?(_ text: String) {
        let bytes = Array(text.utf8)
        let capacity = MemoryLayout.size(ofValue: sockaddr_un().sun_path)
        switch bytes.first {
        case UInt8(ascii: "/"):
            // Room for the terminating NUL, which a path address carries.
            guard bytes.count < capacity, !bytes.contains(0) else { return nil }
            kind = .path
            name = bytes
        case UInt8(ascii: "@"):
            guard bytes.count > 1, bytes.count <= capacity else { return nil }
            kind = .abstract
            name = Array(bytes.dropFirst())
        default:
            return nil
        }
    }

    /// Calls `body` with the `sockaddr_un` and its length: a path's length counts its NUL, an
    /// abstract name's length ends at its last byte (the kernel compares every byte up to it).
    func withSockaddr<Result>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> Result) -> Result {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let offset = kind == .abstract ? 1 : 0
        withUnsafeMutableBytes(of: &address.sun_path) { path in
            for (index, byte) in name.enumerated() { path[offset + index] = byte }
        }
        let pathOffset = MemoryLayout<sockaddr_un>.offset(of: \sockaddr_un.sun_path) ?? 2
        let length = pathOffset + offset + name.count + (kind == .path ? 1 : 0)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(length)) }
        }
    }

    /// One datagram carrying `bytes` from a fresh `SOCK_DGRAM` socket (closed again), as
    /// `sd_notify` sends. True when the kernel took it.
    func sendDatagram(_ bytes: [UInt8]) -> Bool {
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return send(bytes, from: fd)
    }

    /// `bytes` as one datagram from the unconnected socket `fd`, without SIGPIPE. True when sent.
    func send(_ bytes: [UInt8], from fd: Int32) -> Bool {
        withSockaddr { address, length in
            bytes.withUnsafeBytes { buffer in
                sendto(fd, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL), address, length) == buffer.count
            }
        }
    }
}
