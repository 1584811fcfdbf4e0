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

/// Reads `key = value` lines with `#` comments into a ``Configuration``.
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
            guard let setting = Setting(rawValue: key) else {
                let known = Setting.allCases.map(\.rawValue).joined(separator: ", ")
                throw fail("unknown key \"\(key)\"; known keys: \(known)")
            }
            if let first = seen[key] {
                throw fail("\"\(key)\" is already set on line \(first)")
            }
            seen[key] = lineNumber
            do throws(ValueError) {
                try setting.apply(value, to: &configuration)
            } catch {
                throw fail("\(key): \(error.message)")
            }
        }
        if configuration.rootReservedContexts >= configuration.maxContexts {
            let line = seen[Setting.rootReservedContexts.rawValue] ?? seen[Setting.maxContexts.rawValue] ?? 0
            throw ConfigurationError(file: file, line: line, message: "root_reserved_contexts (\(configuration.rootReservedContexts)) must be less than max_contexts (\(configuration.maxContexts)), or only root could create contexts; lower root_reserved_contexts or raise max_contexts")
        }
        return Located(configuration: configuration, file: file, lines: seen)
    }

    struct ValueError: Error {
        let message: String
    }

    enum Setting: String, CaseIterable {
        case backends
        case preferredBiometry = "preferred_biometry"
        case biometryMaxFailures = "biometry_max_failures"
        case fingerprintAttemptsPerEvaluation = "fingerprint_attempts_per_evaluation"
        case faceAttemptsPerEvaluation = "face_attempts_per_evaluation"
        case passcodeDelays = "passcode_delays"
        case passcodeMaxFailures = "passcode_max_failures"
        case evaluationTimeout = "evaluation_timeout"
        case sensorTurnLength = "sensor_turn_seconds"
        case simulatorEventTTL = "simulator_event_ttl"
        case simulatorGroup = "simulator_group"
        case maxContextsPerClient = "max_contexts_per_client"
        case maxContextsPerUser = "max_contexts_per_user"
        case maxContexts = "max_contexts"
        case rootReservedContexts = "root_reserved_contexts"
        case maxQueuedRequestsPerClient = "max_queued_requests_per_client"
        case maxQueuedBytesPerClient = "max_queued_bytes_per_client"
        case maxQueuedRequestsPerUser = "max_queued_requests_per_user"
        case maxQueuedBytesPerUser = "max_queued_bytes_per_user"
        case passcodeHashWorkers = "passcode_hash_workers"
        case maxPasscodeOperationsPerUser = "max_passcode_operations_per_user"
        case stateDirectory = "state_directory"
        case providerDirectories = "provider_directories"
        case providerTimeout = "provider_timeout"
        case appPasscodeEntry = "app_passcode_entry"
        case faceConsent = "face_consent"
        case keyProtection = "key_protection"
        case tpmTCTI = "tpm_tcti"

        func apply(_ value: String, to configuration: inout Configuration) throws(ValueError) {
            switch self {
            case .backends:
                configuration.backends = try Self.backendList(value)
            case .preferredBiometry:
                guard let modality = BiometricModality(rawValue: value) else {
                    throw ValueError(message: "expected `face` or `fingerprint`, found \"\(value)\"")
                }
                configuration.preferredBiometry = modality
            case .biometryMaxFailures:
                configuration.biometryMaxFailures = try Self.integer(value, in: 1...1000)
            case .fingerprintAttemptsPerEvaluation:
                configuration.fingerprintAttemptsPerEvaluation = try Self.integer(value, in: 1...1000)
            case .faceAttemptsPerEvaluation:
                configuration.faceAttemptsPerEvaluation = try Self.integer(value, in: 1...1000)
            case .passcodeDelays:
                let delays = try value.split(separator: ",").map { (item) throws(ValueError) in
                    try Self.seconds(item.trimmingWhitespace(), allowZero: true)
                }
                guard !delays.isEmpty else { throw ValueError(message: "expected a comma-separated list of seconds") }
                configuration.passcodeDelays = delays
            case .passcodeMaxFailures:
                configuration.passcodeMaxFailures = try Self.integer(value, in: 1...1000)
            case .evaluationTimeout:
                configuration.evaluationTimeout = try Self.seconds(value, allowZero: true)
            case .sensorTurnLength:
                configuration.sensorTurnLength = try Self.seconds(value, allowZero: true)
            case .simulatorEventTTL:
                configuration.simulatorEventTTL = try Self.seconds(value, allowZero: false)
            case .simulatorGroup:
                guard value.allSatisfy({ $0.isLetter || $0.isNumber || "_-.".contains($0) }) else {
                    throw ValueError(message: "\"\(value)\" is not a group name")
                }
                configuration.simulatorGroup = value
            case .maxContextsPerClient:
                configuration.maxContextsPerClient = try Self.integer(value, in: 1...1_000_000)
            case .maxContextsPerUser:
                configuration.maxContextsPerUser = try Self.integer(value, in: 1...1_000_000)
            case .maxContexts:
                configuration.maxContexts = try Self.integer(value, in: 1...1_000_000)
            case .rootReservedContexts:
                configuration.rootReservedContexts = try Self.integer(value, in: 0...1_000_000)
            case .maxQueuedRequestsPerClient:
                configuration.maxQueuedRequestsPerClient = try Self.integer(value, in: 1...1_000_000)
            case .maxQueuedBytesPerClient:
                configuration.maxQueuedBytesPerClient = try Self.integer(value, in: 1024...(1 << 30))
            case .maxQueuedRequestsPerUser:
                configuration.maxQueuedRequestsPerUser = try Self.integer(value, in: 1...1_000_000)
            case .maxQueuedBytesPerUser:
                configuration.maxQueuedBytesPerUser = try Self.integer(value, in: 1024...(1 << 30))
            case .passcodeHashWorkers:
                configuration.passcodeHashWorkers = try Self.integer(value, in: 1...64)
            case .maxPasscodeOperationsPerUser:
                configuration.maxPasscodeOperationsPerUser = try Self.integer(value, in: 1...10_000)
            case .stateDirectory:
                guard value.hasPrefix("/") else { throw ValueError(message: "expected an absolute path, found \"\(value)\"") }
                configuration.stateDirectory = value
            case .providerDirectories:
                let directories = value.split(separator: ",").map { $0.trimmingWhitespace() }
                guard !directories.isEmpty, directories.allSatisfy({ $0.hasPrefix("/") }) else {
                    throw ValueError(message: "expected a comma-separated list of absolute paths, found \"\(value)\"")
                }
                configuration.providerDirectories = directories
            case .providerTimeout:
                let seconds = try Self.seconds(value, allowZero: false)
                guard seconds <= 600 else { throw ValueError(message: "expected seconds from more than 0 to 600, found \"\(value)\"") }
                configuration.providerTimeout = seconds
            case .appPasscodeEntry:
                configuration.appPasscodeEntry = try Self.flag(value)
            case .faceConsent:
                configuration.faceConsent = try Self.flag(value)
            case .keyProtection:
                guard let setting = Configuration.KeyProtectionSetting(rawValue: value) else {
                    throw ValueError(message: "expected `auto`, `tpm2` or `wrapping-key`, found \"\(value)\"")
                }
                configuration.keyProtection = setting
            case .tpmTCTI:
                // A TCTI string: a module name, optionally `:` and its configuration (device:/dev/tpmrm0, swtpm:port=2321).
                guard let module = value.split(separator: ":", maxSplits: 1).first, !module.isEmpty, value.utf8.count <= 512,
                      module.allSatisfy({ $0.isLetter || $0.isNumber || "-_".contains($0) }),
                      !value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
                    throw ValueError(message: "expected a TCTI such as device:/dev/tpmrm0 or swtpm:host=127.0.0.1,port=2321, found \"\(value)\"")
                }
                configuration.tpmTCTI = value
            }
        }

        static func flag(_ value: String) throws(ValueError) -> Bool {
            switch value {
            case "true": return true
            case "false": return false
            default: throw ValueError(message: "expected `true` or `false`, found \"\(value)\"")
            }
        }

        static func integer(_ value: String, in range: ClosedRange<Int>) throws(ValueError) -> Int {
            guard let number = Int(value), range.contains(number) else {
                throw ValueError(message: "expected a whole number from \(range.lowerBound) to \(range.upperBound), found \"\(value)\"")
            }
            return number
        }

        static func seconds(_ value: String, allowZero: Bool) throws(ValueError) -> Double {
            guard let number = Double(value), number.isFinite, number >= 0, allowZero || number > 0, number <= 31_536_000 else {
                let lower = allowZero ? "0" : "more than 0"
                throw ValueError(message: "expected seconds from \(lower) to 31536000, found \"\(value)\"")
            }
            return number
        }

        static func backendList(_ value: String) throws(ValueError) -> [String] {
            let names = value.split(separator: ",").map { $0.trimmingWhitespace() }
            var result: [String] = []
            for name in names {
                // Provider ids are checked against the descriptors when the daemon loads the file.
                guard Configuration.isBackendID(name) else {
                    throw ValueError(message: "\"\(name)\" is not a backend id; use a built-in backend (see localauthd.conf(5)) or a provider's id (lowercase letters, digits, - _ .)")
                }
                guard !result.contains(name) else { throw ValueError(message: "backend \"\(name)\" is listed twice") }
                result.append(name)
            }
            return result
        }
    }
}

extension StringProtocol {
    func trimmingWhitespace() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[first...last])
    }
}
