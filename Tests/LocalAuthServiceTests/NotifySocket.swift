// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthTestSupport
import Synchronization

/// A datagram socket standing in for systemd's `NOTIFY_SOCKET`: every `sd_notify` message the
/// daemon sends arrives in `messages`. A reader thread polls with a short receive timeout until closed.
final class NotifySocket: Sendable {
    let path: String
    let messages = Inbox<String>()
    private let descriptor: Int32
    private let closed = Mutex(false)

    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("notify-\(UUID().uuidString.prefix(8))").path
        descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(.EIO) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: Array(path.utf8) + [0])
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0 else { throw POSIXError(.EADDRINUSE) }
        var timeout = timeval(tv_sec: 0, tv_usec: 100_000)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let thread = Thread { [self] in readUntilClosed() }
        thread.start()
    }

    private func readUntilClosed() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !closed.withLock({ $0 }) {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count > 0 { messages.put(String(decoding: buffer[0..<count], as: UTF8.self)) }
        }
        Foundation.close(descriptor)
        unlink(path)
    }

    /// Waits up to `timeout` for the next message containing `assignment` (e.g. `READY=1`),
    /// skipping others: watchdog pings every 100 ms pile up while a loaded machine runs the test, so
    /// the wait is bounded by time, not by how many messages are skipped.
    func next(containing assignment: String, within timeout: Duration = .seconds(20)) async throws -> String {
        let clock = ContinuousClock(), deadline = clock.now + timeout
        while clock.now < deadline {
            let message = try await messages.next(within: deadline - clock.now)
            if message.split(separator: "\n").contains(where: { $0 == assignment }) { return message }
        }
        throw Inbox<String>.TimedOut(what: assignment)
    }

    func close() { closed.withLock { $0 = true } }
}
