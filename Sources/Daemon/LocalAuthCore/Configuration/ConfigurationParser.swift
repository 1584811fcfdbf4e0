// SPDX-License-Identifier: Apache-2.0
/// A configuration problem, located as `FILE:LINE: message` so an administrator can fix it.
public struct ConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    public let file: String
    /// 1-based; 0 when the problem is not on one line (the file itself).
    public let line: Int
    public let message: String

    public init(file: String, line: Int, message: String) {
        self.file = file
        self.line = line
        self.message = message
    }

    public var description: String { line > 0 ? "\(file):\(line): \(message)" : "\(file): \(message)" }
}

/// Reads `key = value` lines with `#` comments into a ``Configuration``; the keys and how each
/// value is read are ``ConfigurationSetting/all``'s.
///
/// Unknown keys, repeated keys and bad values are errors: a typo in a security setting must
/// never silently fall back to a default.
public enum ConfigurationParser {
    /// A parsed file: the settings, and where each key was set so that checks made later (does
    /// the group exist on this system?) can name `FILE:LINE` too.
    public struct Located: Sendable {
        public let configuration: Configuration
        public let file: String
        /// The line each key present in the file is on.
        public let lines: [String: Int]

        /// `FILE:LINE: KEY: message`, at the line `key` was set on (0 when it was not set).
        public func error(_ key: String, _ message: String) -> ConfigurationError {
            ConfigurationError(file: file, line: lines[key] ?? 0, message: "\(key): \(message)")
        }
    }

    public static func parse(_ text: String, file: String) throws(ConfigurationError) -> Configuration {
        try parseLocated(text, file: file).configuration
    }

    public static func parseLocated(_ text: String, file: String) throws(ConfigurationError) -> Located {
        var configuration = Configuration()
        var seen: [String: Int] = [:]
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let lineNumber = index + 1
            func fail(_ message: String) -> ConfigurationError {
                ConfigurationError(file: file, line: lineNumber, message: message)
            }
            let content = rawLine.prefix { $0 != "#" }.trimmingWhitespace()
            if content.isEmpty { continue }
            guard let equals = content.firstIndex(of: "=") else {
                throw fail("expected `key = value`, found \"\(content)\"")
            }
            let key = content[..<equals].trimmingWhitespace()
            let value = content[content.index(after: equals)...].trimmingWhitespace()
            guard !key.isEmpty else { throw fail("missing key before `=`") }
            guard let setting = ConfigurationSetting.byKey[key] else {
                let known = ConfigurationSetting.all.map(\.key).joined(separator: ", ")
                throw fail("unknown key \"\(key)\"; known keys: \(known)")
            }
            if let first = seen[key] {
                throw fail("\"\(key)\" is already set on line \(first)")
            }
            seen[key] = lineNumber
            do throws(ConfigurationSetting.ValueError) {
                try setting.read(value, &configuration)
            } catch {
                throw fail("\(key): \(error.message)")
            }
        }
        if configuration.rootReservedContexts >= configuration.maxContexts {
            let line = seen["root_reserved_contexts"] ?? seen["max_contexts"] ?? 0
            throw ConfigurationError(file: file, line: line, message: "root_reserved_contexts (\(configuration.rootReservedContexts)) must be less than max_contexts (\(configuration.maxContexts)), or only root could create contexts; lower root_reserved_contexts or raise max_contexts")
        }
        return Located(configuration: configuration, file: file, lines: seen)
    }
}

extension StringProtocol {
    func trimmingWhitespace() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[first...last])
    }
}
