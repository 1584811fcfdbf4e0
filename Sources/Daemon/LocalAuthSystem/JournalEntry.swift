// SPDX-License-Identifier: Apache-2.0

/// One journal entry in journald's native protocol (https://systemd.io/JOURNAL_NATIVE_PROTOCOL/):
/// each field `NAME=value\n`; a value holding a newline in the binary-safe form `NAME\n`, its
/// length as a little-endian 64-bit integer, the bytes, `\n`. Fields in name order.
///
/// Names are the daemon's own (upper-case letters, digits, `_`, not starting with `_`); values go
/// out as given: escaping text a client chose is ``SystemLog``'s part.
struct JournalEntry: Sendable {
    let fields: [(name: String, value: String)]

    init(_ fields: [String: String]) {
        self.fields = fields.sorted { $0.key < $1.key }.map { (name: $0.key, value: $0.value) }
    }

    /// What goes into the datagram (or the memfd, for an entry too large for one).
    var bytes: [UInt8] {
        var bytes: [UInt8] = []
        for (name, value) in fields {
            bytes += name.utf8
            if value.utf8.contains(UInt8(ascii: "\n")) {
                bytes.append(UInt8(ascii: "\n"))
                withUnsafeBytes(of: UInt64(value.utf8.count).littleEndian) { bytes += $0 }
            } else {
                bytes.append(UInt8(ascii: "="))
            }
            bytes += value.utf8
            bytes.append(UInt8(ascii: "\n"))
        }
        return bytes
    }
}
