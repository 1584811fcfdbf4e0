// SPDX-License-Identifier: Apache-2.0
/// One key of `localauthd.conf`: its name, the ``Configuration`` property it sets, how its value
/// is read, its default, whether a reload applies it, and what it means. ``all`` is the table
/// every other place derives from: ``ConfigurationParser`` (known keys and how each is read),
/// ``PolicyEngine/reload(_:)`` (which keys keep their start-up value), and the tests that hold
/// `localauthd.conf(5)` and the sample file to exactly these keys and values.
public struct ConfigurationSetting: Sendable {
    /// When a changed value takes effect.
    public enum Application: Sendable, Hashable {
        /// On reload (SIGHUP, `systemctl reload localauthd`).
        case reload
        /// Only on restart: a reload keeps the start-up value and names the key in its log line.
        case restart
    }

    /// A value the key does not accept; the parser prefixes `FILE:LINE: KEY: `.
    public struct ValueError: Error, Sendable {
        public let message: String

        public init(message: String) {
            self.message = message
        }
    }

    /// The key as written in the file (`max_contexts`).
    public let key: String
    /// The ``Configuration`` property the key sets (`maxContexts`).
    public let property: String
    /// What the key takes, in words (`a whole number from 1 to 1000000`).
    public let type: String
    /// The value a file without the key means, as it would be written; nil when the default is
    /// computed at start (`state_directory`, `provider_directories`).
    public let defaultValue: String?
    /// What the sample file and `localauthd.conf(5)` show: the default, or for `backends` the real
    /// backends the package enables; empty when the default is computed and has no one value.
    public let shownValue: String
    /// A value the sample file shows commented out (`#key = value`) for a key without one default.
    public let example: String?
    public let application: Application
    /// What the key means, one paragraph.
    public let text: String
    /// Reads `value` into `configuration`.
    public let read: @Sendable (_ value: String, _ configuration: inout Configuration) throws(ValueError) -> Void
    /// Gives `configuration` the value `kept` has; true when they differed.
    let carry: @Sendable (_ kept: Configuration, _ configuration: inout Configuration) -> Bool

    init<Value: Equatable & Sendable>(_ key: String, _ property: WritableKeyPath<Configuration, Value> & Sendable, name: String,
                                      type: String, default defaultValue: String?, shown: String? = nil, example: String? = nil,
                                      _ application: Application,
                                      _ text: String, read: @escaping @Sendable (String) throws(ValueError) -> Value) {
        self.key = key
        self.property = name
        self.type = type
        self.defaultValue = defaultValue
        self.shownValue = shown ?? defaultValue ?? ""
        self.example = example
        self.application = application
        self.text = text
        self.read = { (value, configuration) throws(ValueError) in configuration[keyPath: property] = try read(value) }
        self.carry = { kept, configuration in
            let differed = configuration[keyPath: property] != kept[keyPath: property]
            configuration[keyPath: property] = kept[keyPath: property]
            return differed
        }
    }

    /// Gives `configuration` the start-up value (from `running`) of every key that only a restart
    /// applies; returns the keys whose value differed, in table order.
    public static func keepRestartSettings(of running: Configuration, in configuration: inout Configuration) -> [String] {
        all.filter { $0.application == .restart && $0.carry(running, &configuration) }.map(\.key)
    }

    /// `config/localauthd.conf` as the package installs it: a header, then each row's text as a
    /// comment and its line: `key = value`; `# key = value` where the default is computed at start;
    /// `#key = example` for a key without one default. ConfigurationSettingTests compares the
    /// committed file with it.
    public static var sampleFile: String {
        let restart = all.filter { $0.application == .restart }.map(\.key)
        let header = "`key = value`, `#` starts a comment. Every key is shown with its default, except backends (see below). "
            + "Unknown keys and bad values stop start-up with FILE:LINE: message (exit status 78); on SIGHUP (systemctl reload) "
            + "a bad file is refused and the running configuration kept. "
            + restart.dropLast().joined(separator: ", ") + " and " + (restart.last ?? "") + " take effect on restart."
        var lines = comment("localauthd configuration: " + header)
        for row in all {
            var text = row.text
            if let defaultValue = row.defaultValue, defaultValue != row.shownValue {
                text += " Without a configuration file the default is \(defaultValue)."
            }
            if row.application == .restart { text += " Takes effect on restart." }
            if row.example != nil { text += " For example:" }
            lines.append("")
            lines += comment(text)
            if let example = row.example {
                lines.append("#\(row.key) = \(example)")
            } else {
                lines.append(row.defaultValue == nil ? "# \(row.key) = \(row.shownValue)" : "\(row.key) = \(row.shownValue)")
            }
        }
        return lines.map { $0.hasSuffix(" ") ? String($0.dropLast()) : $0 }.joined(separator: "\n") + "\n"
    }

    /// `text` as `# ` lines of at most 100 columns (a longer word gets a line of its own).
    static func comment(_ text: String) -> [String] {
        var lines: [String] = []
        var line = "#"
        for word in text.split(separator: " ") {
            if line.count > 1, line.count + 1 + word.count > 100 {
                lines.append(line)
                line = "#"
            }
            line += " " + word
        }
        lines.append(line)
        return lines
    }

    /// The table's rows by key.
    public static let byKey: [String: ConfigurationSetting] = Dictionary(uniqueKeysWithValues: all.map { ($0.key, $0) })

    // MARK: Value readers

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

    /// A whole-number row: `range` is both the check and the documented type.
    static func integer(_ key: String, _ property: WritableKeyPath<Configuration, Int> & Sendable, name: String, in range: ClosedRange<Int>,
                        default defaultValue: Int, _ application: Application, _ text: String) -> ConfigurationSetting {
        ConfigurationSetting(key, property, name: name, type: "a whole number from \(range.lowerBound) to \(range.upperBound)",
                             default: String(defaultValue), application, text) { (value) throws(ValueError) in try integer(value, in: range) }
    }

    /// A seconds row (0 allowed or not).
    static func seconds(_ key: String, _ property: WritableKeyPath<Configuration, Double> & Sendable, name: String, allowZero: Bool,
                        default defaultValue: String, _ application: Application, _ text: String) -> ConfigurationSetting {
        ConfigurationSetting(key, property, name: name, type: "seconds from \(allowZero ? "0" : "more than 0") to 31536000",
                             default: defaultValue, application, text) { (value) throws(ValueError) in try seconds(value, allowZero: allowZero) }
    }

    /// A `true`/`false` row.
    static func flag(_ key: String, _ property: WritableKeyPath<Configuration, Bool> & Sendable, name: String,
                     default defaultValue: Bool, _ application: Application, _ text: String) -> ConfigurationSetting {
        ConfigurationSetting(key, property, name: name, type: "true or false", default: String(defaultValue), application, text) {
            (value) throws(ValueError) in try flag(value)
        }
    }
}

extension ConfigurationSetting {
    /// Every key of `localauthd.conf`, in the order the parser's "known keys" lists them.
    public static let all: [ConfigurationSetting] = [
        ConfigurationSetting("backends", \.backends, name: "backends", type: "a comma-separated list of backend ids",
                             default: "fingerprint, face, passcode", shown: "fprintd, passcode", .restart,
                             "Backends to load, in order: fingerprint, face, passcode, or the Id of a provider described by a *.provider file in provider_directories (see docs/providers.md). fingerprint-sim and face-sim are other names of the built-in simulators fingerprint and face (list one name of each). The installed file enables the real backends: the machine's fingerprint readers through fprintd (the fprintd provider; unavailable while fprintd or a reader is missing) and the passcode. The simulators, which have no sensor behind them, are for development and tests: they are offered only when listed here.") {
            (value) throws(ValueError) in try backendList(value)
        },
        ConfigurationSetting("preferred_biometry", \.preferredBiometry, name: "preferredBiometry", type: "face or fingerprint", default: "face", .reload,
                             "Which biometry type a context reports when both sensors are available: face or fingerprint.") {
            (value) throws(ValueError) in
            guard let modality = BiometricModality(rawValue: value) else {
                throw ValueError(message: "expected `face` or `fingerprint`, found \"\(value)\"")
            }
            return modality
        },
        .integer("biometry_max_failures", \.biometryMaxFailures, name: "biometryMaxFailures", in: 1...1000, default: 5, .reload,
                 "Consecutive biometric no-matches of one user (all clients, all modalities) that lock biometry."),
        .integer("fingerprint_attempts_per_evaluation", \.fingerprintAttemptsPerEvaluation, name: "fingerprintAttemptsPerEvaluation",
                 in: 1...1000, default: 3, .reload, "No-matches one evaluation accepts from the fingerprint sensor before it gives up on biometry."),
        .integer("face_attempts_per_evaluation", \.faceAttemptsPerEvaluation, name: "faceAttemptsPerEvaluation",
                 in: 1...1000, default: 2, .reload, "No-matches one evaluation accepts from the face sensor before it gives up on biometry."),
        ConfigurationSetting("passcode_delays", \.passcodeDelays, name: "passcodeDelays", type: "a comma-separated list of seconds from 0 to 31536000",
                             default: "0, 0, 0, 0, 60, 300, 900, 900, 3600", .reload,
                             "Seconds of delay after the Nth consecutive wrong passcode (the last entry repeats).") {
            (value) throws(ValueError) in
            let delays = try value.split(separator: ",").map { (item) throws(ValueError) in
                try seconds(item.trimmingWhitespace(), allowZero: true)
            }
            guard !delays.isEmpty else { throw ValueError(message: "expected a comma-separated list of seconds") }
            return delays
        },
        .integer("passcode_max_failures", \.passcodeMaxFailures, name: "passcodeMaxFailures", in: 1...1000, default: 10, .reload,
                 "Consecutive wrong passcodes that lock the passcode until `localauth lockout reset`."),
        .seconds("evaluation_timeout", \.evaluationTimeout, name: "evaluationTimeout", allowZero: true, default: "60", .reload,
                 "Seconds before an evaluation ends with SystemCancel; 0 = never."),
        .seconds("sensor_turn_seconds", \.sensorTurnLength, name: "sensorTurnLength", allowZero: true, default: "10", .reload,
                 "Seconds one user's evaluation may hold a sensor while another user's evaluation waits for it (the foreground session's user always goes first); 0 = until the evaluation ends. Also how long a provider enrollment may take no capture before an evaluation that needs the sensor ends it."),
        .seconds("simulator_event_ttl", \.simulatorEventTTL, name: "simulatorEventTTL", allowZero: false, default: "10", .restart,
                 "Seconds a simulator event waits for an evaluation to read it."),
        ConfigurationSetting("simulator_group", \.simulatorGroup, name: "simulatorGroup", type: "a group name, or nothing", default: "", .restart,
                             "Group whose members may drive the simulators without asking polkit (root and the daemon's own user always may; anyone else needs polkit's org.localauth.LocalAuthentication1.simulator); empty = none.") {
            (value) throws(ValueError) in
            guard value.allSatisfy({ $0.isLetter || $0.isNumber || "_-.".contains($0) }) else {
                throw ValueError(message: "\"\(value)\" is not a group name")
            }
            return value
        },
        .integer("max_contexts_per_client", \.maxContextsPerClient, name: "maxContextsPerClient", in: 1...1_000_000, default: 32, .reload,
                 "Live contexts one client (bus connection) may hold."),
        .integer("max_contexts_per_user", \.maxContextsPerUser, name: "maxContextsPerUser", in: 1...1_000_000, default: 256, .reload,
                 "Live contexts of all of one user's connections together; root is exempt."),
        .integer("max_contexts", \.maxContexts, name: "maxContexts", in: 1...1_000_000, default: 4096, .reload,
                 "Live contexts of all clients together."),
        .integer("root_reserved_contexts", \.rootReservedContexts, name: "rootReservedContexts", in: 0...1_000_000, default: 64, .reload,
                 "How many of max_contexts only root may take (login screens, sudo, unlock contexts), so they work even when other users hold all the rest. Less than max_contexts."),
        .integer("max_queued_requests_per_client", \.maxQueuedRequestsPerClient, name: "maxQueuedRequestsPerClient", in: 1...1_000_000,
                 default: 64, .restart,
                 "Unfinished requests one connection may have queued; more are refused with LimitsExceeded until replies come back."),
        .integer("max_queued_bytes_per_client", \.maxQueuedBytesPerClient, name: "maxQueuedBytesPerClient", in: 1024...(1 << 30),
                 default: 1 << 20, .restart, "Bytes of arguments those requests of one connection may hold."),
        .integer("max_queued_requests_per_user", \.maxQueuedRequestsPerUser, name: "maxQueuedRequestsPerUser", in: 1...1_000_000,
                 default: 256, .restart, "Unfinished requests of all connections of one user together."),
        .integer("max_queued_bytes_per_user", \.maxQueuedBytesPerUser, name: "maxQueuedBytesPerUser", in: 1024...(1 << 30),
                 default: 4 << 20, .restart, "Bytes of arguments those requests of one user may hold."),
        .integer("passcode_hash_workers", \.passcodeHashWorkers, name: "passcodeHashWorkers", in: 1...64, default: 2, .reload,
                 "Argon2id passcode hashes that run at once (each uses 64 MiB while it runs). Each user's checks wait in a queue of their own, served in turn, so another user's flood delays mine by at most one hash."),
        .integer("max_passcode_operations_per_user", \.maxPasscodeOperationsPerUser, name: "maxPasscodeOperationsPerUser", in: 1...10_000,
                 default: 4, .reload, "Passcode checks and changes one user may have waiting or running; more are refused at once."),
        ConfigurationSetting("state_directory", \.stateDirectory, name: "stateDirectory", type: "an absolute path", default: nil,
                             shown: Configuration.defaultStateDirectory, .restart,
                             "Where per-user state lives ($STATE_DIRECTORY from systemd wins over this default).") {
            (value) throws(ValueError) -> String? in
            guard value.hasPrefix("/") else { throw ValueError(message: "expected an absolute path, found \"\(value)\"") }
            return value
        },
        ConfigurationSetting("provider_directories", \.providerDirectories, name: "providerDirectories", type: "a comma-separated list of absolute paths",
                             default: nil, example: "/opt/vendor/localauthd-providers, /etc/localauthd/providers", .restart,
                             "Where provider descriptors (*.provider) are read, later directories overriding earlier ones file by file. Unset: $(PREFIX)/lib/localauthd/providers, then /etc/localauthd/providers.") {
            (value) throws(ValueError) -> [String]? in
            let directories = value.split(separator: ",").map { $0.trimmingWhitespace() }
            guard !directories.isEmpty, directories.allSatisfy({ $0.hasPrefix("/") }) else {
                throw ValueError(message: "expected a comma-separated list of absolute paths, found \"\(value)\"")
            }
            return directories
        },
        ConfigurationSetting("provider_timeout", \.providerTimeout, name: "providerTimeout", type: "seconds from more than 0 to 600", default: "5", .restart,
                             "Seconds a provider has to answer each call; one that does not is treated as crashed.") {
            (value) throws(ValueError) in
            let seconds = try seconds(value, allowZero: false)
            guard seconds <= 600 else { throw ValueError(message: "expected seconds from more than 0 to 600, found \"\(value)\"") }
            return seconds
        },
        .flag("app_passcode_entry", \.appPasscodeEntry, name: "appPasscodeEntry", default: false, .reload,
              "Whether an ordinary application may type the passcode into its own context (Context.SubmitPasscode) and is sent passcode prompts. false: only the session's agent (localauth agent, a desktop agent) takes the passcode, so no application ever sees it. true is weaker (any application that asks for policy 2 can collect the passcode): for headless test rigs only. Logins and sudo (contexts with User or Unlock) always take it themselves."),
        .flag("face_consent", \.faceConsent, name: "faceConsent", default: true, .reload,
              "Whether an application needs a face usage description (the context option FaceUsageDescription) and the user's consent, asked once through the session's agent and kept per user and application, before it may use the face sensor. false lets every application use it."),
        ConfigurationSetting("key_protection", \.keyProtection, name: "keyProtection", type: "auto, tpm2 or wrapping-key", default: "auto", .restart,
                             "Where the wrapping key of rights' secrets and private keys comes from: tpm2 (sealed with the machine's TPM 2.0), wrapping-key (a root-only file in the state directory), or auto (the TPM when one answers, else the file; once sealed with a TPM, only that TPM).") {
            (value) throws(ValueError) in
            guard let setting = Configuration.KeyProtectionSetting(rawValue: value) else {
                throw ValueError(message: "expected `auto`, `tpm2` or `wrapping-key`, found \"\(value)\"")
            }
            return setting
        },
        ConfigurationSetting("tpm_tcti", \.tpmTCTI, name: "tpmTCTI", type: "a tpm2-tss TCTI string", default: Configuration.defaultTPMTCTI, .restart,
                             "The TPM 2.0 to use, as a tpm2-tss TCTI string (swtpm:host=127.0.0.1,port=2321 for a software TPM).") {
            (value) throws(ValueError) in
            // A TCTI string: a module name, optionally `:` and its configuration (device:/dev/tpmrm0, swtpm:port=2321).
            guard let module = value.split(separator: ":", maxSplits: 1).first, !module.isEmpty, value.utf8.count <= 512,
                  module.allSatisfy({ $0.isLetter || $0.isNumber || "-_".contains($0) }),
                  !value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
                throw ValueError(message: "expected a TCTI such as device:/dev/tpmrm0 or swtpm:host=127.0.0.1,port=2321, found \"\(value)\"")
            }
            return value
        },
    ]
}
