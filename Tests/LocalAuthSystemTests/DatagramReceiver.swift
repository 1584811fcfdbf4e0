// SPDX-License-Identifier: Apache-2.0
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A bound `AF_UNIX` datagram socket standing in for journald or the service manager: receives
/// one datagram at a time with the descriptors passed along with it (SCM_RIGHTS).
final class DatagramReceiver {
    struct Datagram {
        let payload: [UInt8]
        /// Received descriptors; the caller closes them.
        let descriptors: [Int32]
    }

    /// `/path` or `@abstract-name`, as `NOTIFY_SOCKET` writes it.
    let address: String
    private let descriptor: Int32

    init(address: String) throws {
        self.address = address
        descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        try #require(descriptor >= 0)
        var name = sockaddr_un()
        name.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(address.utf8)
        let abstract = bytes.first == UInt8(ascii: "@")
        withUnsafeMutableBytes(of: &name.sun_path) { path in
            for (index, byte) in bytes.enumerated() where !(abstract && index == 0) { path[index] = byte }
        }
        let length = socklen_t(MemoryLayout<sockaddr_un>.offset(of: \sockaddr_un.sun_path)! + bytes.count + (abstract ? 0 : 1))
        let bound = withUnsafePointer(to: &name) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) } }
        try #require(bound == 0, "bind \(address): errno \(errno)")
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit {
        close(descriptor)
        if address.hasPrefix("/") { unlink(address) }
    }

    /// The next datagram (waiting up to 10 s); fails the test when none comes.
    func receive() throws -> Datagram {
        var payload = [UInt8](repeating: 0, count: 1 << 20)
        var control = [UInt64](repeating: 0, count: 16)
        let count = payload.withUnsafeMutableBytes { buffer in
            control.withUnsafeMutableBytes { controlBuffer in
                var vector = iovec(iov_base: buffer.baseAddress, iov_len: buffer.count)
                return withUnsafeMutablePointer(to: &vector) { vectorPointer in
                    var message = msghdr()
                    message.msg_iov = vectorPointer
                    message.msg_iovlen = 1
                    message.msg_control = controlBuffer.baseAddress
                    message.msg_controllen = controlBuffer.count
                    let received = recvmsg(descriptor, &message, Int32(MSG_CMSG_CLOEXEC))
                    controlLength = message.msg_controllen
                    return received
                }
            }
        }
        try #require(count >= 0, "no datagram: errno \(errno)")
        return Datagram(payload: Array(payload[0..<count]), descriptors: descriptors(in: control))
    }

    private var controlLength = 0

    /// The descriptors of the SCM_RIGHTS messages in a control buffer of `controlLength` bytes.
    private func descriptors(in control: [UInt64]) -> [Int32] {
        control.withUnsafeBytes { buffer in
            var found: [Int32] = []
            var offset = 0
            let headerSize = MemoryLayout<cmsghdr>.size
            while offset + headerSize <= controlLength {
                let header = buffer.load(fromByteOffset: offset, as: cmsghdr.self)
                guard header.cmsg_len >= headerSize else { break }
                if header.cmsg_level == SOL_SOCKET, header.cmsg_type == Int32(SCM_RIGHTS) {
                    for index in 0..<(header.cmsg_len - headerSize) / 4 {
                        found.append(buffer.load(fromByteOffset: offset + headerSize + 4 * index, as: Int32.self))
                    }
                }
                offset += (header.cmsg_len + 7) & ~7
            }
            return found
        }
    }
}

/// A fresh name for a socket under /tmp or in the abstract namespace.
func temporarySocketAddress(abstract: Bool = false) -> String {
    let suffix = String(UInt64.random(in: 0...UInt64.max), radix: 36)
    return abstract ? "@localauth-systemtests-\(suffix)" : "/tmp/localauth-systemtests-\(suffix).socket"
}
