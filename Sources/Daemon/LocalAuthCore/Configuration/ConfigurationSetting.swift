// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI

/// One key of `localauthd.conf`: its name, the ``Configuration`` property it sets, how its value
/// is read, its default, whether a reload applies it, and what it means. ``all`` is the table
/// every other place derives from: ``ConfigurationParser`` (known keys and how each is read),
/// ``PolicyEngine/reload(_:)`` (which keys keep their start-up value), the sample file
/// (``sampleFile``) and the settings sections of `localauthd.conf(5)` (``manualSection``).
public struct ConfigurationSetting: Sendable {
    /// When a changed value takes effect.
    public enum Application: Sendable, Hashable {
        /// On reload (SIGHUP, `systemctl reload localauthd`).
        case reload
        /// Only on restart: a reload keeps the start-up value and names the key in its log line.
        case restart
    }

    /// The section of `localauthd.conf(5)` a key is described in, in the page's order.
    public enum Section: String, Sendable, CaseIterable {
        case biometryAndPasscode = "BIOMETRY AND PASSCODE"
        case agentsAndConsent = "AGENTS AND CONSENT"
        case evaluationsAndSensors = "EVALUATIONS AND SENSORS"
        case simulator = "SIMULATOR"
        case limits = "LIMITS"
        case rightsAndKeys = "RIGHTS AND KEYS"
        case files = "FILES"

        /// The paragraph that opens the section, if any.
        var introduction: String? {
            switch self {
            case .rightsAndKeys:
                "Rights (saved with localauth rights, Apple's LARight and LARightStore) keep their secrets and private keys sealed with a 32-byte wrapping key."
            default: nil
            }
        }
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
    /// Where `localauthd.conf(5)` describes the key.
    public let section: Section
    /// The ``Configuration`` property the key sets (`maxContexts`).
    public let property: String
    /// What the key takes, in words (`a whole number from 1 to 1000000`).
    public let type: String
    /// The value a file without the key means, as it would be written: ``Configuration``'s default
    /// for the property, rendered by the row (the typed default is written once, in
    /// ``Configuration``); nil when the default is computed at start (`state_directory`,
    /// `provider_directories`).
    public let defaultValue: String?
    /// What the sample file and `localauthd.conf(5)` show: the default, or for `backends` the real
    /// backends the package enables; empty when the default is computed and has no one value.
    public let shownValue: String
    /// A value the sample file shows commented out (`#key = value`) for a key without one default.
    public let example: String?
    /// Whether a reload applies a change.
    public let application: Application
    /// What the key means, one paragraph.
    public let text: String
    /// Reads `value` into `configuration`.
    public let read: @Sendable (_ value: String, _ configuration: inout Configuration) throws(ValueError) -> Void
    /// Gives `configuration` the value `kept` has; true when they differed.
    let carry: @Sendable (_ kept: Configuration, _ configuration: inout Configuration) -> Bool

    /// A ``Configuration`` property, reached by a closure that hands it over inout:
    /// `{ $1(&$0.maxContexts) }`. Not a key path: the runtime builds each key path object the first
    /// time it is used (some 20 000 instructions, most of them its generic class's metadata), and the
    /// table's key paths were a tenth of the daemon's start-up.
    typealias Field<Value> = @Sendable (_ configuration: inout Configuration, _ access: (inout Value) -> Void) -> Void

    /// ``Configuration``'s defaults, which every row renders its own from.
    private static let defaults = Configuration()

    /// The value `field` reaches in `configuration`.
    private static func value<Value>(_ field: Field<Value>, in configuration: Configuration) -> Value {
        var configuration = configuration, value: Value?
        field(&configuration) { value = $0 }
        return value!
    }

    init<Value: Equatable & Sendable>(_ key: String, _ section: Section, _ field: @escaping Field<Value>, name: String,
                                      type: String, render: (Value) -> String?, shown: String? = nil, example: String? = nil,
                                      _ application: Application,
                                      _ text: String, read: @escaping @Sendable (String) throws(ValueError) -> Value) {
        let defaultValue = render(Self.value(field, in: Self.defaults))
        self.key = key
        self.section = section
        self.property = name
        self.type = type
        self.defaultValue = defaultValue
        self.shownValue = shown ?? defaultValue ?? ""
        self.example = example
        self.application = application
        self.text = text
        self.read = { (value, configuration) throws(ValueError) in
            let parsed = try read(value)
            field(&configuration) { $0 = parsed }
        }
        self.carry = { kept, configuration in
            let keptValue = Self.value(field, in: kept)
            var differed = false
            field(&configuration) { differed = $0 != keptValue; $0 = keptValue }
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
            if row.application == .restart { text += " " + restartNote }
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

    /// What the sample and the page add to the text of a row applied on restart.
    static let restartNote = "A change takes effect on restart (systemctl restart localauthd), not on reload."

    /// The settings sections of `localauthd.conf(5)` (from BIOMETRY AND PASSCODE to the keys of FILES)
    /// in roff: each section's rows as `.TP`, `.B key = value`, then the text, the value's type and
    /// the restart note, one sentence a line.
    /// The page holds it between `.\" BEGIN SETTINGS` and `.\" END SETTINGS`; ConfigurationSettingTests
    /// compares the two.
    public static var manualSection: String {
        var lines: [String] = []
        for section in Section.allCases {
            lines.append(".SH \(section.rawValue)")
            if let introduction = section.introduction { lines += roff(introduction) }
            for row in all where row.section == section {
                var text = row.text
                if let defaultValue = row.defaultValue, defaultValue != row.shownValue {
                    text += " Without a configuration file the default is \(defaultValue)."
                }
                text += " Value: \(row.type)."
                if row.application == .restart { text += " " + restartNote }
                lines.append(".TP")
                lines.append(row.shownValue.isEmpty && row.defaultValue == nil ? ".B \(row.key)" : ".B \(row.key) = \(escaped(row.shownValue))")
                lines += roff(text)
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `text` as roff lines, one sentence each.
    static func roff(_ text: String) -> [String] {
        escaped(text).replacingAll(". ", with: ".\n").split(separator: "\n").map { line in
            line.first == "." || line.first == "'" ? "\\&" + line : String(line)
        }
    }

    /// `text` with roff's special characters escaped (`\` and `-`).
    static func escaped(_ text: String) -> String {
        text.replacingAll("\\", with: "\\e").replacingAll("-", with: "\\-")
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

    // MARK: Value writers and readers

    /// Seconds as the file writes them: `60`, `0.5`.
    static func written(seconds: Double) -> String {
        seconds == seconds.rounded() && abs(seconds) < 1e15 ? String(Int(seconds)) : String(seconds)
    }

    /// A list as the file writes it: `a, b, c`.
    static func written<Item>(list: [Item], _ item: (Item) -> String) -> String {
        list.map(item).joined(separator: ", ")
    }

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
    static func integer(_ key: String, _ section: Section, _ field: @escaping Field<Int>, name: String, in range: ClosedRange<Int>,
                        _ application: Application, _ text: String) -> ConfigurationSetting {
        ConfigurationSetting(key, section, field, name: name, type: "a whole number from \(range.lowerBound) to \(range.upperBound)",
                             render: { String($0) }, application, text) { (value) throws(ValueError) in try integer(value, in: range) }
    }

    /// A seconds row (0 allowed or not).
    static func seconds(_ key: String, _ section: Section, _ field: @escaping Field<Double>, name: String, allowZero: Bool,
                        _ application: Application, _ text: String) -> ConfigurationSetting {
        ConfigurationSetting(key, section, field, name: name, type: "seconds from \(allowZero ? "0" : "more than 0") to 31536000",
                             render: written(seconds:), application, text) { (value) throws(ValueError) in try seconds(value, allowZero: allowZero) }
    }

    /// A `true`/`false` row.
    static func flag(_ key: String, _ section: Section, _ field: @escaping Field<Bool>, name: String,
                     _ application: Application, _ text: String) -> ConfigurationSetting {
        ConfigurationSetting(key, section, field, name: name, type: "true or false", render: { String($0) }, application, text) {
            (value) throws(ValueError) in try flag(value)
        }
    }
}

extension ConfigurationSetting {
    /// Every key of `localauthd.conf`, in the order the parser's "known keys" lists them.
    public static let all: [ConfigurationSetting] = [
        ConfigurationSetting("backends", .biometryAndPasscode, { $1(&$0.backends) }, name: "backends", type: "a comma-separated list of backend ids",
                             render: { written(list: $0) { $0 } }, shown: "fprintd, passcode", .restart,
                             "The backends to load, in order: any of fingerprint, face and passcode, or the Id of a provider (a sensor in a separate process) described by a *.provider file in provider_directories (see docs/providers.md). fingerprint-sim and face-sim are other names of the built-in simulators fingerprint and face; either name may be listed, not both. An unknown id stops start-up with an error that lists the built-in ids. The installed file enables the real backends: fingerprint readers through fprintd (the fprintd provider, unavailable while fprintd or a reader is missing) and the passcode. The simulators have no sensor behind them (localauth sim plays their inputs); they are for development and tests and are offered only when listed here, as localauth status and localauth backends say.") {
            (value) throws(ValueError) in try backendList(value)
        },
        ConfigurationSetting("preferred_biometry", .biometryAndPasscode, { $1(&$0.preferredBiometry) }, name: "preferredBiometry", type: "face or fingerprint", render: \.rawValue, .reload,
                             "Which biometry type a context reports when both sensors are available: face or fingerprint.") {
            (value) throws(ValueError) in
            guard let modality = BiometricModality(rawValue: value) else {
                throw ValueError(message: "expected `face` or `fingerprint`, found \"\(value)\"")
            }
            return modality
        },
        .integer("biometry_max_failures", .biometryAndPasscode, { $1(&$0.biometryMaxFailures) }, name: "biometryMaxFailures", in: 1...1000, .reload,
                 "Consecutive biometric no-matches of one user (all clients, all modalities) that lock biometry (BiometryLockout) until the passcode is entered."),
        .integer("fingerprint_attempts_per_evaluation", .biometryAndPasscode, { $1(&$0.fingerprintAttemptsPerEvaluation) }, name: "fingerprintAttemptsPerEvaluation",
                 in: 1...1000, .reload, "No-matches one evaluation accepts from the fingerprint sensor before it gives up on biometry."),
        .integer("face_attempts_per_evaluation", .biometryAndPasscode, { $1(&$0.faceAttemptsPerEvaluation) }, name: "faceAttemptsPerEvaluation",
                 in: 1...1000, .reload, "No-matches one evaluation accepts from the face sensor before it gives up on biometry."),
        ConfigurationSetting("passcode_delays", .biometryAndPasscode, { $1(&$0.passcodeDelays) }, name: "passcodeDelays", type: "a comma-separated list of seconds from 0 to 31536000",
                             render: { written(list: $0, written(seconds:)) }, .reload,
                             "Seconds of delay after the Nth consecutive wrong passcode; the last entry repeats.") {
            (value) throws(ValueError) in
            let delays = try value.split(separator: ",").map { (item) throws(ValueError) in
                try seconds(item.trimmingWhitespace(), allowZero: true)
            }
            guard !delays.isEmpty else { throw ValueError(message: "expected a comma-separated list of seconds") }
            return delays
        },
        .integer("passcode_max_failures", .biometryAndPasscode, { $1(&$0.passcodeMaxFailures) }, name: "passcodeMaxFailures", in: 1...1000, .reload,
                 "Consecutive wrong passcodes that lock the passcode (PasscodeLockout) until an administrator runs localauth lockout reset --uid N."),
        .seconds("evaluation_timeout", .evaluationsAndSensors, { $1(&$0.evaluationTimeout) }, name: "evaluationTimeout", allowZero: true, .reload,
                 "Seconds before an evaluation ends with SystemCancel; 0 means never."),
        .seconds("sensor_turn_seconds", .evaluationsAndSensors, { $1(&$0.sensorTurnLength) }, name: "sensorTurnLength", allowZero: true, .reload,
                 "Seconds one user's evaluation may hold a sensor while another user's evaluation waits for it (the foreground session's user always goes first); 0 means until the evaluation ends. Also how long an enrollment on a provider may take no capture before an evaluation that needs the sensor ends it (SystemCancel, nothing enrolled); 0 means never."),
        .seconds("simulator_event_ttl", .simulator, { $1(&$0.simulatorEventTTL) }, name: "simulatorEventTTL", allowZero: false, .restart,
                 "Seconds a simulator event (localauth sim touch, localauth sim face, ...) waits for an evaluation to read it."),
        ConfigurationSetting("simulator_group", .simulator, { $1(&$0.simulatorGroup) }, name: "simulatorGroup", type: "a group name, or nothing", render: { $0 }, .restart,
                             "The group whose members may drive the simulated sensors without asking polkit (root and the daemon's own user always may; anyone else needs polkit's org.localauth.LocalAuthentication1.simulator); empty means none.") {
            (value) throws(ValueError) in
            guard value.allSatisfy({ $0.isLetter || $0.isNumber || "_-.".contains($0) }) else {
                throw ValueError(message: "\"\(value)\" is not a group name")
            }
            return value
        },
        .integer("max_contexts_per_client", .limits, { $1(&$0.maxContextsPerClient) }, name: "maxContextsPerClient", in: 1...1_000_000, .reload,
                 "Live authentication contexts one client (bus connection) may hold; more are refused with LimitsExceeded."),
        .integer("max_contexts_per_user", .limits, { $1(&$0.maxContextsPerUser) }, name: "maxContextsPerUser", in: 1...1_000_000, .reload,
                 "Live contexts of all of one user's connections together (root is exempt); more are refused with LimitsExceeded."),
        .integer("max_contexts", .limits, { $1(&$0.maxContexts) }, name: "maxContexts", in: 1...1_000_000, .reload,
                 "Live contexts of all clients together; more are refused with LimitsExceeded."),
        .integer("root_reserved_contexts", .limits, { $1(&$0.rootReservedContexts) }, name: "rootReservedContexts", in: 0...1_000_000, .reload,
                 "How many of max_contexts only root may take (login screens, sudo, unlock contexts), so they work even when other users hold all the rest. Less than max_contexts."),
        .integer("max_queued_requests_per_client", .limits, { $1(&$0.maxQueuedRequestsPerClient) }, name: "maxQueuedRequestsPerClient", in: 1...1_000_000,
                 .restart,
                 "Unfinished requests one connection may have queued; more are refused with LimitsExceeded until replies come back."),
        .integer("max_queued_bytes_per_client", .limits, { $1(&$0.maxQueuedBytesPerClient) }, name: "maxQueuedBytesPerClient", in: 1024...(1 << 30),
                 .restart, "Bytes of arguments the requests one connection has queued may hold; more are refused with LimitsExceeded."),
        .integer("max_queued_requests_per_user", .limits, { $1(&$0.maxQueuedRequestsPerUser) }, name: "maxQueuedRequestsPerUser", in: 1...1_000_000,
                 .restart, "Unfinished requests all connections of one user together may have queued; more are refused with LimitsExceeded until replies come back."),
        .integer("max_queued_bytes_per_user", .limits, { $1(&$0.maxQueuedBytesPerUser) }, name: "maxQueuedBytesPerUser", in: 1024...(1 << 30),
                 .restart, "Bytes of arguments the requests all connections of one user have queued may hold; more are refused with LimitsExceeded."),
        .integer("passcode_hash_workers", .limits, { $1(&$0.passcodeHashWorkers) }, name: "passcodeHashWorkers", in: 1...64, .reload,
                 "Argon2id passcode hashes and checks that run at once (each uses about 64 MiB while it runs). Each user's checks wait in a queue of their own, served in turn, so another user's flood delays one's own by at most one hash."),
        .integer("max_passcode_operations_per_user", .limits, { $1(&$0.maxPasscodeOperationsPerUser) }, name: "maxPasscodeOperationsPerUser", in: 1...10_000,
                 .reload, "Passcode checks and changes one user may have waiting or running; more are refused at once with LimitsExceeded, before anything is counted."),
        ConfigurationSetting("state_directory", .files, { $1(&$0.stateDirectory) }, name: "stateDirectory", type: "an absolute path", render: { $0 },
                             shown: Configuration.defaultStateDirectory, .restart,
                             "Where per-user state lives. $STATE_DIRECTORY from systemd wins over this default, and localauthd --state-dir over both. The directory must belong to the daemon's user and be closed to others.") {
            (value) throws(ValueError) -> String? in
            guard value.hasPrefix("/") else { throw ValueError(message: "expected an absolute path, found \"\(value)\"") }
            return value
        },
        ConfigurationSetting("provider_directories", .files, { $1(&$0.providerDirectories) }, name: "providerDirectories", type: "a comma-separated list of absolute paths",
                             render: { $0.map { written(list: $0) { $0 } } }, example: "/opt/vendor/localauthd-providers, /etc/localauthd/providers", .restart,
                             "Where provider descriptors (ID.provider) are read; a file in a later directory replaces the file of the same name in an earlier one. Unset, they are $(PREFIX)/lib/localauthd/providers of the installation, then /etc/localauthd/providers. A provider's Id listed in backends enables it; an id that no descriptor names stops start-up with a configuration error. See docs/providers.md for writing and installing a provider.") {
            (value) throws(ValueError) -> [String]? in
            let directories = value.split(separator: ",").map { $0.trimmingWhitespace() }
            guard !directories.isEmpty, directories.allSatisfy({ $0.hasPrefix("/") }) else {
                throw ValueError(message: "expected a comma-separated list of absolute paths, found \"\(value)\"")
            }
            return directories
        },
        ConfigurationSetting("provider_timeout", .limits, { $1(&$0.providerTimeout) }, name: "providerTimeout", type: "seconds from more than 0 to 600", render: written(seconds:), .restart,
                             "Seconds a biometric provider (a sensor in a separate process) has to answer each call. One that does not is treated as crashed: the evaluation it serves sees its sensor disconnect (nothing is counted) and the provider is restarted with backoff.") {
            (value) throws(ValueError) in
            let seconds = try seconds(value, allowZero: false)
            guard seconds <= 600 else { throw ValueError(message: "expected seconds from more than 0 to 600, found \"\(value)\"") }
            return seconds
        },
        .flag("app_passcode_entry", .agentsAndConsent, { $1(&$0.appPasscodeEntry) }, name: "appPasscodeEntry", .reload,
              "Whether an ordinary application may submit the passcode itself (Context.SubmitPasscode) and is sent passcode prompts. With false only the authentication agent of the application's session (localauth agent, a desktop agent) takes the passcode, so no application sees it; policy 2 ends with NotInteractive when it needs the passcode and no agent can ask. true is weaker (any application that asks for policy 2 can collect the passcode): for headless test rigs only. Logins and sudo (contexts with User or Unlock) always take it themselves."),
        .flag("face_consent", .agentsAndConsent, { $1(&$0.faceConsent) }, name: "faceConsent", .reload,
              "Whether an application needs a usage description (the context option FaceUsageDescription) and the user's consent, asked once by the session's agent and kept per user and application, before it may use the face sensor; see localauth apps. false lets every application use it."),
        ConfigurationSetting("key_protection", .rightsAndKeys, { $1(&$0.keyProtection) }, name: "keyProtection", type: "auto, tpm2 or wrapping-key", render: \.rawValue, .restart,
                             "Where the wrapping key comes from. tpm2 seals it with the machine's TPM 2.0 (reached through tpm_tcti), so the sealed rights open only on this machine; wrapping-key keeps it in sealing/wrapping-key in the state directory, readable by root only (for machines without a TPM); auto takes the TPM when one answers, else the file. Once a key is sealed with a TPM, that TPM is needed: when it is gone the daemon does not fall back to a file, and rights are unavailable (their methods fail with Failed, saying why) until it is back. The Rights object's KeyProtection property says which is in use.") {
            (value) throws(ValueError) in
            guard let setting = Configuration.KeyProtectionSetting(rawValue: value) else {
                throw ValueError(message: "expected `auto`, `tpm2` or `wrapping-key`, found \"\(value)\"")
            }
            return setting
        },
        ConfigurationSetting("tpm_tcti", .rightsAndKeys, { $1(&$0.tpmTCTI) }, name: "tpmTCTI", type: "a tpm2-tss TCTI string", render: { $0 }, .restart,
                             "The TPM 2.0 to use, as a tpm2-tss TCTI string: the kernel's resource manager by default; swtpm:host=127.0.0.1,port=2321 or swtpm:path=SOCKET for a software TPM (tests).") {
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

extension String {
    /// Every occurrence of `target` replaced with `replacement` (without Foundation).
    func replacingAll(_ target: String, with replacement: String) -> String {
        var result = ""
        var rest = self[...]
        while let range = rest.firstRange(of: target) {
            result += rest[..<range.lowerBound] + replacement
            rest = rest[range.upperBound...]
        }
        return result + rest
    }
}
