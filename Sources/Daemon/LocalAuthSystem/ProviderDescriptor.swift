// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI
import LocalAuthCore
#if canImport(Glibc)
import Glibc
#endif

/// A provider descriptor (`ID.provider`, keyfile format): which biometric provider process
/// serves a backend id, how to reach it, and who it must run as.
///
/// ```
/// [Provider]
/// Id=reference
/// Modality=fingerprint
/// BusName=org.localauth.Provider.Reference
/// Exec=/usr/bin/python3 /usr/lib/localauthd/providers/reference-provider.py
/// User=localauth-reference
/// ProtocolVersion=1
/// Description=Reference fingerprint provider (simulated)
/// ```
/// Without `Exec` the provider is reached on the bus only (bus activation starts it); with it the
/// daemon starts it itself. Unknown keys are errors, so a typo cannot weaken a check. Comments
/// (`#`, `;`) take whole lines: `Key=value  # note` is refused with a message that says so,
/// except in `Description`, whose value is free text.
public struct ProviderDescriptor: Sendable, Hashable {
    /// The backend id `backends` names; also the file's name without `.provider`.
    public let id: String
    public let modality: BiometricModality
    /// The well-known name the provider owns; the daemon calls it there.
    public let busName: String
    /// The command line the daemon runs in its own start mode (split on spaces); nil when the
    /// provider is bus-activated or started by someone else.
    public let exec: [String]?
    /// The user the provider runs as, by name or number, and its uid: only a connection of this
    /// uid that owns ``busName`` is believed.
    public let user: String
    public let uid: UInt32
    /// The protocol's major version (the `1` in `org.localauth.Provider1`).
    public let protocolVersion: Int
    public let description: String
    /// The file it was read from.
    public let path: String

    /// The major protocol version this daemon speaks.
    public static let supportedProtocolVersion = 1

    /// One key of the `[Provider]` group, as the format reference in docs/providers.md lists it
    /// (a test holds the two to each other).
    public struct Key: Sendable {
        public let name: String
        /// What the value is, in words.
        public let type: String
        /// The value when the key is absent; nil when the key is required.
        public let defaultValue: String?
        public let meaning: String
    }

    /// Every key a descriptor may have; anything else is an error.
    public static let keys: [Key] = [
        Key(name: "Id", type: "lowercase letters, digits, `-` `_` `.`", defaultValue: nil,
            meaning: "the backend id `backends` names; the file must be called `ID.provider`; not a built-in backend's id"),
        Key(name: "Modality", type: "`fingerprint` or `face`", defaultValue: nil,
            meaning: "the sensor's kind; at most one enabled backend per modality"),
        Key(name: "BusName", type: "well-known D-Bus name", defaultValue: nil,
            meaning: "the name the provider owns and serves `org.localauth.Provider1` under"),
        Key(name: "User", type: "user name or uid", defaultValue: nil,
            meaning: "the user the provider runs as: only a connection of this uid that owns `BusName` is believed; must exist"),
        Key(name: "ProtocolVersion", type: "whole number", defaultValue: nil,
            meaning: "the protocol's major version, `1` (`org.localauth.Provider1`)"),
        Key(name: "Exec", type: "absolute path, then arguments split on spaces (no shell, no quotes)", defaultValue: "none: bus activation",
            meaning: "localauthd starts the provider itself with this command, as its own user; without it the bus starts it"),
        Key(name: "Description", type: "free text to the end of the line (a `#` in it is text)", defaultValue: "empty",
            meaning: "what `localauth backends` shows until the provider's `Hello` says better"),
    ]

    /// Parses a descriptor; errors name `FILE:LINE` and what to fix.
    /// - Parameter builtIn: the registry's own ids, which no provider may take.
    public static func parse(_ text: String, path: String, builtIn: [String],
                             resolveUser: (String) -> UInt32? = userID(named:)) throws(ConfigurationError) -> ProviderDescriptor {
        var values: [String: (value: String, line: Int)] = [:]
        var group: String?
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = index + 1
            let content = rawLine.trimmedForKeyfile
            if content.isEmpty || content.hasPrefix("#") || content.hasPrefix(";") { continue }
            if content.hasPrefix("[") {
                guard content.hasSuffix("]") else { throw ConfigurationError(file: path, line: line, message: "expected a group header like [Provider]") }
                group = String(content.dropFirst().dropLast())
                guard group == "Provider" else { throw ConfigurationError(file: path, line: line, message: "unknown group [\(group!)]; a descriptor has only [Provider]") }
                continue
            }
            guard group != nil else { throw ConfigurationError(file: path, line: line, message: "expected [Provider] before the first key") }
            guard let equals = content.firstIndex(of: "=") else { throw ConfigurationError(file: path, line: line, message: "expected Key=Value, found \"\(content)\"") }
            let key = content[..<equals].trimmedForKeyfile, value = content[content.index(after: equals)...].trimmedForKeyfile
            guard keys.contains(where: { $0.name == key }) else {
                throw ConfigurationError(file: path, line: line, message: "unknown key \"\(key)\"; known keys: \(keys.map(\.name).joined(separator: ", "))")
            }
            if key != "Description", value.contains(" #") || value.contains("\t#") {
                throw ConfigurationError(file: path, line: line, message: "inline comments are not allowed: put the comment on its own line")
            }
            if let first = values[key] { throw ConfigurationError(file: path, line: line, message: "\(key) is already set on line \(first.line)") }
            values[key] = (value, line)
        }
        func required(_ key: String) throws(ConfigurationError) -> (value: String, line: Int) {
            guard let entry = values[key], !entry.value.isEmpty else { throw ConfigurationError(file: path, line: 0, message: "\(key)= is missing") }
            return entry
        }
        func fail(_ key: String, _ message: String) -> ConfigurationError {
            ConfigurationError(file: path, line: values[key]?.line ?? 0, message: "\(key): \(message)")
        }
        let id = try required("Id").value
        guard Configuration.isBackendID(id), !builtIn.contains(id) else {
            throw fail("Id", "\"\(id)\" is not a provider id (lowercase letters, digits, - _ .; not a built-in backend's id)")
        }
        let fileName = path.split(separator: "/").last.map(String.init) ?? path
        guard fileName == "\(id).provider" else { throw fail("Id", "the file of provider \"\(id)\" must be called \(id).provider, not \(fileName)") }
        guard let modality = BiometricModality(rawValue: try required("Modality").value) else {
            throw fail("Modality", "expected fingerprint or face")
        }
        let busName = try required("BusName").value
        guard isWellKnownBusName(busName) else { throw fail("BusName", "\"\(busName)\" is not a well-known D-Bus name (like org.example.Provider)") }
        let exec = values["Exec"].map { $0.value.split(separator: " ").map(String.init) }
        if let exec, exec.first?.hasPrefix("/") != true {
            throw fail("Exec", "the command must start with an absolute path")
        }
        let user = try required("User").value
        guard let uid = UInt32(user) ?? resolveUser(user) else { throw fail("User", "no user \"\(user)\" on this system; create it or name an existing one") }
        guard let version = Int(try required("ProtocolVersion").value) else { throw fail("ProtocolVersion", "expected a whole number") }
        guard version == supportedProtocolVersion else {
            throw fail("ProtocolVersion", "this localauthd speaks provider protocol \(supportedProtocolVersion) (org.localauth.Provider\(supportedProtocolVersion)), not \(version); install a provider built for it")
        }
        return ProviderDescriptor(id: id, modality: modality, busName: busName, exec: exec, user: user, uid: uid,
                                  protocolVersion: version, description: values["Description"]?.value ?? "", path: path)
    }

    /// Dotted elements of letters, digits, `_` and `-`, not starting with a digit, at most 255 bytes, at least two elements.
    static func isWellKnownBusName(_ name: String) -> Bool {
        let elements = name.split(separator: ".", omittingEmptySubsequences: false)
        guard name.utf8.count <= 255, elements.count >= 2 else { return false }
        return elements.allSatisfy { element in
            guard let first = element.unicodeScalars.first, !("0"..."9").contains(first) else { return false }
            return element.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" || $0 == "-") }
        }
    }
}

/// The uid of the user called `name`, or nil when there is none.
public func userID(named name: String) -> UInt32? {
    var entry = passwd()
    var result: UnsafeMutablePointer<passwd>?
    var buffer = [CChar](repeating: 0, count: 16_384)
    guard getpwnam_r(name, &entry, &buffer, buffer.count, &result) == 0, result != nil else { return nil }
    return entry.pw_uid
}

extension StringProtocol {
    /// Without leading and trailing spaces, tabs and carriage returns.
    fileprivate var trimmedForKeyfile: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[first...last])
    }
}
