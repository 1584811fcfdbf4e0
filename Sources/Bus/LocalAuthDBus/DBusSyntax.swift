// SPDX-License-Identifier: Apache-2.0
import CDBus
import LocalAuthAPI

/// Checks for every string libdbus would abort on.
///
/// libdbus treats an invalid path, name, signature or string handed to it as a programming error
/// and aborts the process. Everything this module passes to libdbus goes through one of these
/// checks first; they are public so a service can check untrusted input early.
public enum DBusSyntax {
    public static func isValidObjectPath(_ path: String) -> Bool { check(path, dbus_validate_path) }
    public static func isValidInterface(_ name: String) -> Bool { check(name, dbus_validate_interface) }
    public static func isValidMember(_ name: String) -> Bool { check(name, dbus_validate_member) }
    public static func isValidErrorName(_ name: String) -> Bool { check(name, dbus_validate_error_name) }
    public static func isValidBusName(_ name: String) -> Bool { check(name, dbus_validate_bus_name) }
    /// A string D-Bus can carry: valid UTF-8 (as libdbus judges it) without NUL.
    public static func isValidString(_ string: String) -> Bool { check(string, dbus_validate_utf8) }

    /// A valid signature of any number of complete types ("" included).
    public static func isValidSignature(_ signature: String) -> Bool { check(signature, dbus_signature_validate) }

    /// A valid signature of exactly one complete type.
    public static func isValidSingleType(_ signature: String) -> Bool { check(signature, dbus_signature_validate_single) }

    private static func check(
        _ string: String,
        _ validate: (UnsafePointer<CChar>?, UnsafeMutablePointer<CDBus.DBusError>?) -> dbus_bool_t
    ) -> Bool {
        !string.containsNUL && string.withCString { validate($0, nil) != 0 }
    }

    static func requireObjectPath(_ path: String) throws(DBusError) {
        guard isValidObjectPath(path) else { throw .invalidArgs("invalid object path \(quoted(path))") }
    }

    static func requireInterface(_ name: String) throws(DBusError) {
        guard isValidInterface(name) else { throw .invalidArgs("invalid interface name \(quoted(name))") }
    }

    static func requireMember(_ name: String) throws(DBusError) {
        guard isValidMember(name) else { throw .invalidArgs("invalid member name \(quoted(name))") }
    }

    static func requireErrorName(_ name: String) throws(DBusError) {
        guard isValidErrorName(name) else { throw .invalidArgs("invalid error name \(quoted(name))") }
    }

    static func requireBusName(_ name: String) throws(DBusError) {
        guard isValidBusName(name) else { throw .invalidArgs("invalid bus name \(quoted(name))") }
    }

    static func requireString(_ string: String) throws(DBusError) {
        guard isValidString(string) else {
            throw .invalidArgs("string is not valid D-Bus UTF-8 or contains NUL: \(quoted(string))")
        }
    }

    /// Quotes untrusted text for an error message, escaping control characters and cutting it short.
    static func quoted(_ string: String) -> String {
        let escaped = string.unicodeScalars.prefix(80).map { $0.escaped(asASCII: false) }.joined()
        return "\"" + escaped + (string.unicodeScalars.count > 80 ? "…" : "") + "\""
    }
}
