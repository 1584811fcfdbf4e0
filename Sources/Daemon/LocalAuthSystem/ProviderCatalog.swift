// SPDX-License-Identifier: Apache-2.0
import LocalAuthCore
#if canImport(Glibc)
import Glibc
#endif

/// Finds provider descriptors: `ID.provider` in the configured directories, a later directory's
/// file replacing an earlier one's (so `/etc/localauthd/providers` overrides the package's).
public enum ProviderCatalog {
    /// `$(PREFIX)/lib/localauthd/providers` of the running installation (found from the
    /// executable: `PREFIX/libexec/localauthd` or `PREFIX/sbin/localauthd`), then `/etc/localauthd/providers`.
    public static var defaultDirectories: [String] {
        var directories: [String] = []
        if let executable = executablePath() {
            let parts = executable.split(separator: "/")
            if parts.count >= 2 {
                directories.append("/" + parts.dropLast(2).joined(separator: "/") + (parts.count > 2 ? "/" : "") + "lib/localauthd/providers")
            }
        }
        directories.append("/etc/localauthd/providers")
        return directories
    }

    /// What the catalog found for the provider ids `backends` names.
    public struct Found: Sendable {
        /// The descriptors that parsed, in `backends` order.
        public var descriptors: [ProviderDescriptor] = []
        /// The providers left out, each with why (`FILE:LINE: message`): the daemon starts
        /// without them and logs it, so one vendor's bad file cannot take the passcode away.
        public var skipped: [(id: String, error: ConfigurationError)] = []
    }

    /// The descriptor of every provider id `configuration.backends` names, in that order.
    /// An id without any descriptor file is an error at `backends`' line (a typo in the
    /// administrator's file); a descriptor that is unreadable or does not parse, or a second
    /// provider of a modality already taken, is ``Found/skipped``.
    /// - Parameter builtIn: the ids the daemon's backend registry makes itself (aliases included).
    public static func descriptors(for located: ConfigurationParser.Located, builtIn: [String]) throws(ConfigurationError) -> Found {
        let configuration = located.configuration
        let directories = configuration.providerDirectories ?? defaultDirectories
        var found = Found()
        for id in configuration.providerIDs(builtIn: builtIn) {
            let candidates: [String] = directories.reversed().map { "\($0)/\(id).provider" }
            guard let path = candidates.first(where: { access($0, F_OK) == 0 }) else {
                throw located.error("backends", "unknown backend \"\(id)\": it is not built in (\(builtIn.joined(separator: ", "))) and no \(id).provider is in \(directories.joined(separator: " or ")); install the provider or remove it from backends")
            }
            do throws(ConfigurationError) {
                let descriptor = try descriptor(at: path, builtIn: builtIn)
                if let other = found.descriptors.first(where: { $0.modality == descriptor.modality }) {
                    throw ConfigurationError(file: path, line: 0, message: "providers \(other.id) and \(id) are both \(descriptor.modality.rawValue) sensors; enable only one")
                }
                found.descriptors.append(descriptor)
            } catch {
                found.skipped.append((id, error))
            }
        }
        return found
    }

    /// The descriptor in the file at `path`, read and checked as the daemon does at start
    /// (`localauth provider check` reads it with this too).
    public static func descriptor(at path: String, builtIn: [String]) throws(ConfigurationError) -> ProviderDescriptor {
        let bytes: [UInt8]?
        do throws(AtomicFile.Failure) { bytes = try AtomicFile.read(path, limit: 64 * 1024) } catch {
            throw ConfigurationError(file: path, line: 0, message: error.message)
        }
        guard let bytes, let text = String(validating: bytes, as: UTF8.self) else {
            throw ConfigurationError(file: path, line: 0, message: "not readable UTF-8 text")
        }
        return try ProviderDescriptor.parse(text, path: path, builtIn: builtIn)
    }

    private static func executablePath() -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
