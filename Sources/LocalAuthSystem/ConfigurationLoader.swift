import LocalAuthCore

/// Reads the daemon's configuration file.
public enum ConfigurationLoader {
    public static let defaultPath = "/etc/localauthd/localauthd.conf"

    /// Reads `path`, or the default file when nil. A missing default file means built-in
    /// defaults; a missing file the administrator named is an error.
    public static func load(path explicitPath: String?) throws(ConfigurationError) -> Configuration {
        let path = explicitPath ?? defaultPath
        let read: [UInt8]?
        do throws(AtomicFile.Failure) { read = try AtomicFile.read(path) } catch {
            throw ConfigurationError(file: path, line: 0, message: error.message)
        }
        guard let bytes = read else {
            guard explicitPath == nil else {
                throw ConfigurationError(file: path, line: 0, message: "no such file")
            }
            return Configuration()
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw ConfigurationError(file: path, line: 0, message: "not valid UTF-8 text")
        }
        return try ConfigurationParser.parse(text, file: path)
    }
}
