// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import LocalAuthAPI
import LocalAuthDBus

/// The caller's state from `GetUserState`.
struct UserState: Sendable, Equatable {
    var passcodeSet = false
    var enrollments: [Enrollment] = []
    var biometryFailures: UInt32 = 0
    var biometryLockedOut = false
    var passcodeFailures: UInt32 = 0
    /// Unix seconds; 0 when no delay runs.
    var passcodeRetryAfter: UInt64 = 0
    var passcodeLockedOut = false
    var requireAttention = true

    init(_ values: [String: DBusValue]) {
        func value(_ key: LocalAuthUserStateKey) -> DBusValue? { values[key.rawValue] }
        passcodeSet = value(.passcodeSet)?.bool ?? false
        enrollments = (value(.enrollments)?.arrayElements ?? []).compactMap { element in
            guard let fields = element.structure, fields.count == 2, let modality = fields[0].string, let label = fields[1].string else { return nil }
            return Enrollment(modality: modality, label: label)
        }
        biometryFailures = value(.biometryFailures)?.uint32 ?? 0
        biometryLockedOut = value(.biometryLockedOut)?.bool ?? false
        passcodeFailures = value(.passcodeFailures)?.uint32 ?? 0
        passcodeRetryAfter = value(.passcodeRetryAfter)?.uint64 ?? 0
        passcodeLockedOut = value(.passcodeLockedOut)?.bool ?? false
        requireAttention = value(.requireAttention)?.bool ?? true
    }

    /// Seconds until the next passcode try, 0 when none is delayed.
    var passcodeWait: UInt64 {
        let now = UInt64(max(0, time(nil)))
        return passcodeRetryAfter > now ? passcodeRetryAfter - now : 0
    }

    /// The lockout state in words, one line each: nothing when there is no lockout.
    var lockoutLines: [String] {
        var lines: [String] = []
        if biometryLockedOut {
            lines.append("biometry locked: enter your passcode")
        } else if biometryFailures > 0 {
            lines.append("biometry: \(biometryFailures) failed \(biometryFailures == 1 ? "attempt" : "attempts") in a row")
        }
        if passcodeLockedOut {
            lines.append("passcode locked: an administrator must run: localauth lockout reset --uid \(getuid())")
        } else if passcodeWait > 0 {
            lines.append("passcode: next try in \(Self.words(seconds: passcodeWait))")
        } else if passcodeFailures > 0 {
            lines.append("passcode: \(passcodeFailures) wrong \(passcodeFailures == 1 ? "attempt" : "attempts") in a row")
        }
        return lines
    }

    var json: JSONValue {
        .object([
            ("passcodeSet", .bool(passcodeSet)),
            ("enrollments", .array(enrollments.map(\.json))),
            ("requireAttention", .bool(requireAttention)),
            ("biometryFailures", .int(Int(biometryFailures))),
            ("biometryLockedOut", .bool(biometryLockedOut)),
            ("passcodeFailures", .int(Int(passcodeFailures))),
            ("passcodeLockedOut", .bool(passcodeLockedOut)),
            ("passcodeRetryAfter", .int(Int(passcodeRetryAfter))),
            ("passcodeRetryInSeconds", .int(Int(passcodeWait))),
        ])
    }

    /// "4 min 12 s", "1 h 5 min", "12 s".
    static func words(seconds: UInt64) -> String {
        let hours = seconds / 3600, minutes = seconds % 3600 / 60, rest = seconds % 60
        if hours > 0 { return minutes > 0 ? "\(hours) h \(minutes) min" : "\(hours) h" }
        if minutes > 0 { return rest > 0 ? "\(minutes) min \(rest) s" : "\(minutes) min" }
        return "\(rest) s"
    }
}

/// One enrolled finger or face appearance.
struct Enrollment: Sendable, Equatable {
    let modality: String
    let label: String

    var json: JSONValue { .object([("modality", .string(modality)), ("label", .string(label))]) }
}
