// SPDX-License-Identifier: Apache-2.0
import LocalAuthCore

/// Reads the daemon's configuration file.
public enum ConfigurationLoader {
    public static let defaultPath = "/etc/localauthd/localauthd.conf"

    /// A file's settings with the system names they refer to resolved.
    public struct Resolved: Sendable {
        public let configuration: Configuration
        /// The gid of `simulator_group`; nil when it is not set.
        public let simulatorGroup: UInt32?
        /// The descriptors of the providers `backends` enables, in its order.
        public var providers: [ProviderDescriptor] = []
        /// Providers `backends` names whose descriptor was refused (left out of
        /// `configuration.backends`), each with why; the daemon logs them.
        public var skippedProviders: [(id: String, error: ConfigurationError)] = []
    }

    /// The settings of `path`, or of the default file when nil; see ``loadResolvingNames(path:builtIn:)``.
    public static func load(path: String?, builtIn: [String]) throws(ConfigurationError) -> Configuration {
        try loadResolvingNames(path: path, builtIn: builtIn).configuration
    }

    /// Reads `path`, or the default file when nil. A missing default file means built-in
    /// defaults; a missing file the administrator named is an error, and so is a setting that
    /// names something this system does not have (`simulator_group`, a backend id that is
    /// neither in `builtIn` — the backend registry's ids — nor a provider's), at its line.
    /// A provider whose descriptor is refused is left out (``Resolved/skippedProviders``).
    public static func loadResolvingNames(path explicitPath: String?, builtIn: [String]) throws(ConfigurationError) -> Resolved {
        let path = explicitPath ?? defaultPath
        let read: [UInt8]?
        do throws(AtomicFile.Failure) { read = try AtomicFile.read(path) } catch {
            throw ConfigurationError(file: path, line: 0, message: error.message)
        }
        guard let bytes = read else {
            guard explicitPath == nil else {
                throw ConfigurationError(file: path, line: 0, message: "no such file")
            }
            return Resolved(configuration: Configuration(), simulatorGroup: nil)
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw ConfigurationError(file: path, line: 0, message: "not valid UTF-8 text")
        }
        let parsed = try ConfigurationParser.parseLocated(text, file: path)
        let found = try ProviderCatalog.descriptors(for: parsed, builtIn: builtIn)
        var configuration = parsed.configuration
        configuration.backends.removeAll { id in found.skipped.contains { $0.id == id } }
        let groupName = configuration.simulatorGroup
        var group: UInt32?
        if !groupName.isEmpty {
            guard let gid = groupID(named: groupName) else {
                throw parsed.error("simulator_group", "unknown group \"\(groupName)\"; create it (`groupadd \(groupName)`) or name an existing group")
            }
            group = gid
        }
        return Resolved(configuration: configuration, simulatorGroup: group, providers: found.descriptors, skippedProviders: found.skipped)
    }
}
