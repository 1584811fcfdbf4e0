// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// journald's native socket as `sd_journal_sendv` uses it: one unconnected datagram socket for the
/// life of the log, one datagram per entry; an entry too large for a datagram is written to a
/// sealed memfd whose descriptor goes over the socket instead (SCM_RIGHTS, empty payload).
///
/// Thread-safe: the descriptor never changes, and each entry is one `sendto`/`sendmsg` on it. The
/// socket blocks while journald's queue is full, as libsystemd's does, so no entry is dropped.
final class JournalSocket: Sendable {
    private let address: UnixSocketAddress?
    private let descriptor: Int32

    init(path: String) {
        address = UnixSocketAddress(path)
        descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    /// True when the kernel took the entry for journald.
    func send(_ entry: JournalEntry) -> Bool {
        guard let address, descriptor >= 0 else { return false }
        let bytes = entry.bytes
        if address.send(bytes, from: descriptor) { return true }
        switch errno {
        case EMSGSIZE, ENOBUFS: return sendInMemoryFile(bytes, to: address)
        default: return false
        }
    }

    private func sendInMemoryFile(_ bytes: [UInt8], to address: UnixSocketAddress) -> Bool {
        guard let file = Self.sealedMemoryFile(holding: bytes) else { return false }
        defer { close(file) }
        return address.withSockaddr { name, nameLength in
            Self.withRightsMessage(passing: file) { control in
                var message = msghdr()
                message.msg_name = UnsafeMutableRawPointer(mutating: name)
                message.msg_namelen = nameLength
                message.msg_control = control.baseAddress
                message.msg_controllen = control.count
                return sendmsg(descriptor, &message, Int32(MSG_NOSIGNAL)) >= 0
            }
        }
    }

    /// A memfd holding `bytes`, sealed against every change (journald refuses unsealed ones).
    private static func sealedMemoryFile(holding bytes: [UInt8]) -> Int32? {
        // memfd_create is in glibc ≥ 2.27 but not in Swift's Glibc module (it needs _GNU_SOURCE).
        typealias MemfdCreate = @convention(c) (UnsafePointer<CChar>, UInt32) -> Int32
        guard let symbol = dlsym(nil, "memfd_create") else { return nil }
        let fd = unsafeBitCast(symbol, to: MemfdCreate.self)("journal-entry", Memfd.cloexec | Memfd.allowSealing)
        guard fd >= 0 else { return nil }
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + written, $0.count - written) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { close(fd); return nil }
            written += count
        }
        guard fcntl(fd, Memfd.addSeals, Memfd.sealAll) == 0 else { close(fd); return nil }
        return fd
    }

    /// Calls `body` with a control buffer holding one `SCM_RIGHTS` message for `fd`.
    private static func withRightsMessage<Result>(passing fd: Int32, _ body: (UnsafeMutableRawBufferPointer) -> Result) -> Result {
        let word = MemoryLayout<Int>.size
        let headerSpace = (MemoryLayout<cmsghdr>.size + word - 1) & ~(word - 1)
        let space = headerSpace + ((MemoryLayout<Int32>.size + word - 1) & ~(word - 1))
        let control = UnsafeMutableRawBufferPointer.allocate(byteCount: space, alignment: MemoryLayout<cmsghdr>.alignment)
        defer { control.deallocate() }
        control.initializeMemory(as: UInt8.self, repeating: 0)
        var header = cmsghdr()
        header.cmsg_len = headerSpace + MemoryLayout<Int32>.size
        header.cmsg_level = SOL_SOCKET
        header.cmsg_type = Int32(SCM_RIGHTS)
        control.storeBytes(of: header, as: cmsghdr.self)
        control.storeBytes(of: fd, toByteOffset: headerSpace, as: Int32.self)
        return body(control)
    }

    /// Linux's memfd and sealing constants, which Swift's Glibc module does not import.
    private enum Memfd {
        static let cloexec: UInt32 = 0x0001
        static let allowSealing: UInt32 = 0x0002
        static let addSeals: Int32 = 1033
        /// F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE.
        static let sealAll: Int32 = 0x0001 | 0x0002 | 0x0004 | 0x0008
    }
}
