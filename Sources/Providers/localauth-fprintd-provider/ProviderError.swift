// SPDX-License-Identifier: Apache-2.0
import LocalAuthDBus

/// The errors of dbus/org.localauth.Provider1.xml, with a message a person can act on.
enum ProviderError {
    static let prefix = "org.localauth.Provider1.Error."

    static func unavailable(_ message: String) -> DBusError { DBusError(.init(prefix + "Unavailable"), message) }
    static func busy(_ message: String) -> DBusError { DBusError(.init(prefix + "Busy"), message) }
    static func unknownTemplate(_ message: String) -> DBusError { DBusError(.init(prefix + "UnknownTemplate"), message) }
    static func enrollFailed(_ message: String) -> DBusError { DBusError(.init(prefix + "EnrollFailed"), message) }

    /// Busy when another program holds the reader; Unavailable for everything else fprintd can say
    /// (no fprintd, no reader, polkit refused, no answer).
    static func from(_ error: FprintdError) -> DBusError {
        switch error {
        case .alreadyInUse(let message): busy(message)
        case .notRunning, .noDevice, .permissionDenied, .noEnrolledPrints, .noAnswer, .unexpected: unavailable(error.description)
        }
    }
}
