// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI

/// Receives one entry for every security-relevant outcome. The daemon writes them to the
/// journal; tests keep them in memory. Entries never contain a passcode.
public protocol AuditSink: Sendable {
    func record(_ entry: AuditEntry)
}

public struct AuditEntry: Sendable, Hashable, CustomStringConvertible {
    public enum Event: String, Sendable, Hashable, CaseIterable {
        case evaluation
        case biometryLockout = "biometry-lockout"
        case passcodeLockout = "passcode-lockout"
        case passcodeChange = "passcode-change"
        case enrollmentChange = "enrollment-change"
        case attentionChange = "attention-change"
        case administratorReset = "administrator-reset"
        /// State could not be read or written; the engine failed closed.
        case stateError = "state-error"
        /// A right saved, removed, authorized or used (never its data).
        case right
        /// The stored login password stored, released, discarded or removed (never the password).
        case loginPassword = "login-password"
    }

    public enum Severity: Int, Sendable, Hashable, Comparable {
        // syslog priorities
        case error = 3, warning = 4, notice = 5, info = 6

        public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    public var event: Event
    public var severity: Severity
    public var user: UInt32
    /// The bus name of the client that caused it, when one did.
    public var client: String?
    /// That client's process id, when the bus reported it.
    public var clientPID: UInt32?
    public var policy: LAPolicy?
    /// "success", an LAError name, or what changed.
    public var result: String
    public var message: String

    public init(_ event: Event, severity: Severity = .info, user: UInt32, client: String? = nil, clientPID: UInt32? = nil,
                policy: LAPolicy? = nil, result: String, message: String) {
        self.event = event
        self.severity = severity
        self.user = user
        self.client = client
        self.clientPID = clientPID
        self.policy = policy
        self.result = result
        self.message = message
    }

    public var description: String { String(decoding: line, as: UTF8.self) }

    /// ``description`` as UTF-8, what a log line is built from.
    public var line: [UInt8] {
        // Bytes appended to one buffer sized up front: appending Strings piece by piece
        // reallocated and cost several thousand instructions a line (every evaluation writes one).
        var line: [UInt8] = []
        line.reserveCapacity(80 + (client?.utf8.count ?? 0) + result.utf8.count + message.utf8.count)
        Self.append(event.rawValue, to: &line)
        Self.append(" uid=", to: &line)
        Self.append(user, to: &line)
        if let client {
            Self.append(" client=", to: &line)
            Self.append(client, to: &line)
        }
        if let clientPID {
            Self.append(" pid=", to: &line)
            Self.append(clientPID, to: &line)
        }
        if let policy {
            Self.append(" policy=", to: &line)
            Self.append(UInt32(policy.rawValue), to: &line)
        }
        Self.append(" result=", to: &line)
        Self.append(result, to: &line)
        Self.append(": ", to: &line)
        Self.append(message, to: &line)
        return line
    }

    /// `text`'s UTF-8 through `withUTF8`, which hands over a small string's bytes too (from a
    /// stack copy): appending the `utf8` view went through its iterator byte by byte for those.
    private static func append(_ text: String, to line: inout [UInt8]) {
        var text = text
        text.withUTF8 { line.append(contentsOf: $0) }
    }

    /// `number` in decimal, without making a string of it.
    private static func append(_ number: UInt32, to line: inout [UInt8]) {
        var digits: (UInt64, UInt64) = (0, 0)
        withUnsafeMutableBytes(of: &digits) { buffer in
            var (index, rest) = (buffer.count, number)
            repeat {
                index -= 1
                buffer[index] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
            } while rest > 0
            line.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[index...]))
        }
    }
}
