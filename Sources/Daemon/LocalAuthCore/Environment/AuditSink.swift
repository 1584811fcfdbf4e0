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
        func add(_ text: String) { line.append(contentsOf: text.utf8) }
        add(event.rawValue)
        add(" uid=")
        add(String(user))
        if let client {
            add(" client=")
            add(client)
        }
        if let clientPID {
            add(" pid=")
            add(String(clientPID))
        }
        if let policy {
            add(" policy=")
            add(String(policy.rawValue))
        }
        add(" result=")
        add(result)
        add(": ")
        add(message)
        return line
    }
}
