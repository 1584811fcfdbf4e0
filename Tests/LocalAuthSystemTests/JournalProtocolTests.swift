// SPDX-License-Identifier: Apache-2.0
import LocalAuthCore
@testable import LocalAuthSystem
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// journald's native protocol, spoken to a socket the test binds: each entry one datagram (or a
/// sealed memfd when too large), decoded here field by field, independently of the encoder.
@Suite("Journal native protocol", .timeLimit(.minutes(1)))
struct JournalProtocolTests {
    @Test func anAuditEntryArrivesAsOneDatagramWithEveryField() throws {
        let journal = try DatagramReceiver(address: temporarySocketAddress())
        let log = SystemLog(destination: .journal, prefixesPriority: true, journalSocket: journal.address)
        let entry = AuditEntry(.evaluation, severity: .notice, user: 1000, client: ":1.7", clientPID: 4242,
                               policy: .deviceOwnerAuthentication, result: "BiometryLockout", message: "Policy 2 not satisfied.")
        log.record(entry)
        let datagram = try journal.receive()
        #expect(datagram.descriptors.isEmpty)
        let fields = try decodeJournalEntry(datagram.payload)
        #expect(fields.map(\.name) == SystemLog.journalFields(of: entry).keys.sorted())
        #expect(Dictionary(uniqueKeysWithValues: fields.map { ($0.name, $0.value) }) == SystemLog.journalFields(of: entry))
        #expect(String(decoding: datagram.payload, as: UTF8.self).hasPrefix("LOCALAUTH_CLIENT=:1.7\nLOCALAUTH_CLIENT_PID=4242\n"))
    }

    @Test func aValueWithANewlineGoesInTheBinarySafeForm() throws {
        let journal = try DatagramReceiver(address: temporarySocketAddress())
        #expect(JournalSocket(path: journal.address).send(JournalEntry(["MESSAGE": "two\nlines", "PRIORITY": "6"])))
        let payload = try journal.receive().payload
        let expected = Array("MESSAGE\n".utf8) + [9, 0, 0, 0, 0, 0, 0, 0] + Array("two\nlines\nPRIORITY=6\n".utf8)
        #expect(payload == expected)
        let fields = try decodeJournalEntry(payload)
        #expect(fields.map(\.name) == ["MESSAGE", "PRIORITY"] && fields.map(\.value) == ["two\nlines", "6"])
    }

    @Test func textAClientChoseCannotForgeAFieldOrALine() throws {
        let journal = try DatagramReceiver(address: temporarySocketAddress())
        let log = SystemLog(destination: .journal, prefixesPriority: true, journalSocket: journal.address)
        log.record(AuditEntry(.evaluation, severity: .notice, user: 1000, client: ":1.7\nPRIORITY=0", clientPID: nil,
                              policy: nil, result: "success", message: "ok\n<0>forged"))
        let fields = try decodeJournalEntry(try journal.receive().payload)
        #expect(fields.filter { $0.name == "PRIORITY" }.map(\.value) == ["5"])
        #expect(fields.allSatisfy { !$0.value.contains("\n") })
        #expect(fields.first { $0.name == "LOCALAUTH_CLIENT" }?.value == ":1.7\\u{a}PRIORITY=0")
    }

    @Test func anEntryTooLargeForADatagramTravelsInASealedMemfd() throws {
        let journal = try DatagramReceiver(address: temporarySocketAddress())
        // Larger than any datagram this socket's default send buffer allows (net.core.wmem_default).
        let message = String(repeating: "0123456789abcdef", count: 1 << 16)
        let log = SystemLog(destination: .journal, prefixesPriority: true, journalSocket: journal.address)
        log.log(.info, message)
        let datagram = try journal.receive()
        #expect(datagram.payload.isEmpty, "an fd and a payload together are refused by journald")
        try #require(datagram.descriptors.count == 1)
        let memfd = datagram.descriptors[0]
        defer { close(memfd) }
        let sealAll: Int32 = 0x1 | 0x2 | 0x4 | 0x8  // F_SEAL_SEAL, _SHRINK, _GROW, _WRITE
        #expect(fcntl(memfd, 1034 /* F_GET_SEALS */) == sealAll)
        var contents = [UInt8](repeating: 0, count: message.utf8.count + 4096)
        let count = contents.withUnsafeMutableBytes { pread(memfd, $0.baseAddress, $0.count, 0) }
        let fields = try decodeJournalEntry(Array(contents[0..<max(count, 0)]))
        #expect(fields.map(\.name) == ["MESSAGE", "PRIORITY", "SYSLOG_IDENTIFIER"])
        #expect(fields.first?.value == message)
    }

    @Test func withoutJournaldTheEntryBecomesAStderrLine() throws {
        var fds: [Int32] = [0, 0]
        try #require(pipe(&fds) == 0)
        defer { fds.forEach { close($0) } }
        let log = SystemLog(destination: .journal, prefixesPriority: true, journalSocket: temporarySocketAddress(), lines: fds[1])
        log.log(.warning, "state directory\nmissing")
        var line = [UInt8](repeating: 0, count: 256)
        let count = line.withUnsafeMutableBytes { read(fds[0], $0.baseAddress, $0.count) }
        #expect(String(decoding: line[0..<max(count, 0)], as: UTF8.self) == "<4>state directory\\u{a}missing\n")
    }

    @Test func theJournalSocketIsNeitherARelativePathNorTooLong() {
        #expect(!JournalSocket(path: "run/systemd/journal/socket").send(JournalEntry(["MESSAGE": "x"])))
        #expect(!JournalSocket(path: "/" + String(repeating: "a", count: 200)).send(JournalEntry(["MESSAGE": "x"])))
    }
}

struct JournalDecodingError: Error, CustomStringConvertible {
    let description: String
}

/// The fields of one native-protocol entry, in order: `NAME=value\n`, or `NAME\n` + 64-bit
/// little-endian length + bytes + `\n`.
func decodeJournalEntry(_ bytes: [UInt8]) throws -> [(name: String, value: String)] {
    var fields: [(name: String, value: String)] = []
    var index = 0
    while index < bytes.count {
        guard let end = bytes[index...].firstIndex(where: { $0 == UInt8(ascii: "=") || $0 == UInt8(ascii: "\n") }) else {
            throw JournalDecodingError(description: "field at \(index) has no end")
        }
        let name = String(decoding: bytes[index..<end], as: UTF8.self)
        if bytes[end] == UInt8(ascii: "=") {
            guard let newline = bytes[end...].firstIndex(of: UInt8(ascii: "\n")) else { throw JournalDecodingError(description: "\(name) unterminated") }
            fields.append((name, String(decoding: bytes[(end + 1)..<newline], as: UTF8.self)))
            index = newline + 1
        } else {
            guard end + 9 <= bytes.count else { throw JournalDecodingError(description: "\(name) lacks its length") }
            let length = bytes[(end + 1)..<(end + 9)].reversed().reduce(0) { $0 << 8 | Int($1) }
            let start = end + 9
            guard start + length < bytes.count, bytes[start + length] == UInt8(ascii: "\n") else {
                throw JournalDecodingError(description: "\(name): \(length) bytes and a newline do not follow")
            }
            fields.append((name, String(decoding: bytes[start..<(start + length)], as: UTF8.self)))
            index = start + length + 1
        }
    }
    return fields
}
