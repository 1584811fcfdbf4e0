// SPDX-License-Identifier: Apache-2.0
import Dispatch

/// Overwriting what libdbus keeps of a received secret in its receive buffer.
extension DBusConnection {
    /// Sends this connection a signal of ~1.7 KiB of zeros through the bus, so that libdbus's
    /// receive buffer (which keeps the raw bytes of the last messages read past its live length,
    /// beyond reach of any API) is overwritten from its start. Best effort: it covers the common
    /// case of a quiet connection, where each message is read to the start of a buffer of ~2 KiB;
    /// under load, or after a message bigger than that, earlier bytes can also be left in memory
    /// that libdbus reallocated and freed. One scrub covers every message read before it is sent, so
    /// callers coalesce requests (`ObjectRegistration` sends at most one per queue turn). Only on `queue`.
    func scrubReceiveBuffer() {
        queue.precondition()
        // Under libdbus's 2048-byte read size, so the scrub arrives in one read without growing the buffer.
        guard let message = try? DBusMessage.signal(
            path: "/", interface: "org.localauth.DBus.ReceiveBuffer", member: "Scrub", destination: uniqueName,
            arguments: [.bytes([UInt8](repeating: 0, count: Self.scrubBytes))], on: self)
        else { return }
        try? send(message)
    }

    static let scrubBytes = 1600
}
