// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthCore
import Testing

/// The settings table (``ConfigurationSetting/all``) against ``Configuration``, the parser, reload,
/// `localauthd.conf(5)` and the sample file `config/localauthd.conf`.
@Suite("Configuration settings table", .timeLimit(.minutes(1)))
struct ConfigurationSettingTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let table = ConfigurationSetting.all

    static func file(_ path: String) throws -> String {
        try String(contentsOfFile: repository.appendingPathComponent(path).path, encoding: .utf8)
    }

    /// Each stored property's name and value as text, for comparing configurations field by field.
    static func fields(_ configuration: Configuration) -> [String: String] {
        Dictionary(uniqueKeysWithValues: Mirror(reflecting: configuration).children.map { ($0.label ?? "?", String(describing: $0.value)) })
    }

    /// A value other than the default for every key (the test below checks it covers the table).
    static let changed: [String: String] = [
        "backends": "passcode", "preferred_biometry": "fingerprint", "biometry_max_failures": "7",
        "fingerprint_attempts_per_evaluation": "4", "face_attempts_per_evaluation": "1", "passcode_delays": "1, 2",
        "passcode_max_failures": "6", "evaluation_timeout": "0", "sensor_turn_seconds": "3", "simulator_event_ttl": "2.5",
        "simulator_group": "sim", "max_contexts_per_client": "8", "max_contexts_per_user": "50", "max_contexts": "100",
        "root_reserved_contexts": "10", "max_queued_requests_per_client": "9", "max_queued_bytes_per_client": "2048",
        "max_queued_requests_per_user": "99", "max_queued_bytes_per_user": "4096", "passcode_hash_workers": "1",
        "max_passcode_operations_per_user": "16", "state_directory": "/tmp/state", "provider_directories": "/a, /b",
        "provider_timeout": "1", "app_passcode_entry": "true", "face_consent": "false", "key_protection": "tpm2",
        "tpm_tcti": "swtpm:port=2321",
    ]

    @Test func everyConfigurationPropertyHasExactlyOneRow() {
        let properties = Mirror(reflecting: Configuration()).children.compactMap(\.label)
        #expect(properties.count == Self.table.count)
        #expect(Set(properties) == Set(Self.table.map(\.property)))
        #expect(Set(Self.table.map(\.key)).count == Self.table.count, "a key has two rows")
        #expect(ConfigurationSetting.byKey.count == Self.table.count)
    }

    @Test func theDefaultsAreTheConfigurationsDefaults() throws {
        for row in Self.table {
            guard let value = row.defaultValue else { continue }
            #expect(try ConfigurationParser.parse("\(row.key) = \(value)", file: "x.conf") == Configuration(), "\(row.key)")
        }
        #expect(Self.table.filter { $0.defaultValue == nil }.map(\.key) == ["state_directory", "provider_directories"])
    }

    /// Each row sets its own property and no other.
    @Test func eachRowSetsTheNamedProperty() throws {
        #expect(Set(Self.changed.keys) == Set(Self.table.map(\.key)))
        let defaults = Self.fields(Configuration())
        for row in Self.table {
            var configuration = Configuration()
            try row.read(try #require(Self.changed[row.key]), &configuration)
            let differing = Self.fields(configuration).filter { defaults[$0.key] != $0.value }.map(\.key)
            #expect(differing == [row.property], "\(row.key)")
        }
    }

    @Test func reloadKeepsExactlyTheRestartRows() throws {
        let running = Configuration()
        let text = Self.table.map { "\($0.key) = \(Self.changed[$0.key] ?? "")" }.joined(separator: "\n")
        let reloaded = try ConfigurationParser.parse(text, file: "x.conf")
        var applied = reloaded
        let kept = ConfigurationSetting.keepRestartSettings(of: running, in: &applied)
        let restart = Self.table.filter { $0.application == .restart }
        #expect(kept == restart.map(\.key))
        #expect(kept == ["backends", "simulator_event_ttl", "simulator_group", "max_queued_requests_per_client",
                         "max_queued_bytes_per_client", "max_queued_requests_per_user", "max_queued_bytes_per_user",
                         "state_directory", "provider_directories", "provider_timeout", "key_protection", "tpm_tcti"])
        let runningFields = Self.fields(running), reloadedFields = Self.fields(reloaded), appliedFields = Self.fields(applied)
        for row in Self.table {
            let expected = row.application == .restart ? runningFields[row.property] : reloadedFields[row.property]
            #expect(appliedFields[row.property] == expected, "\(row.key)")
        }
        var unchanged = running
        #expect(ConfigurationSetting.keepRestartSettings(of: running, in: &unchanged).isEmpty)
    }

    @Test func anUnknownKeyListsTheTablesKeys() {
        #expect(throws: ConfigurationError.self) { try ConfigurationParser.parse("colour = blue", file: "x.conf") }
        do {
            _ = try ConfigurationParser.parse("colour = blue", file: "x.conf")
        } catch {
            #expect(error.message == "unknown key \"colour\"; known keys: " + Self.table.map(\.key).joined(separator: ", "))
        }
    }

    static let writeDocuments = ProcessInfo.processInfo.environment["LOCALAUTH_WRITE_CONFIGURATION_DOCS"] == "1"
    static let staleHint = "run LOCALAUTH_WRITE_CONFIGURATION_DOCS=1 swift test --filter ConfigurationSettingTests"

    /// The committed sample is the table's rendering.
    @Test func theSampleFileIsTheTablesRendering() throws {
        let path = Self.repository.appendingPathComponent("config/localauthd.conf").path
        if Self.writeDocuments { try ConfigurationSetting.sampleFile.write(toFile: path, atomically: true, encoding: .utf8) }
        #expect(try Self.file("config/localauthd.conf") == ConfigurationSetting.sampleFile, "config/localauthd.conf is stale: \(Self.staleHint)")
        let wide = ConfigurationSetting.sampleFile.split(separator: "\n").filter { $0.count > 100 && $0.split(separator: " ").count > 2 }
        #expect(wide.isEmpty, "lines wider than 100 columns: \(wide)")
    }

    /// localauthd.conf(5)'s settings sections are the table's rendering.
    @Test func theManualsSettingsSectionsAreTheTablesRendering() throws {
        let path = Self.repository.appendingPathComponent("man/localauthd.conf.5").path
        let page = try Self.file("man/localauthd.conf.5")
        let begin = try #require(page.range(of: ".\\\" BEGIN SETTINGS: generated from the settings table (ConfigurationSetting.manualSection); do not edit.\n"))
        let end = try #require(page.range(of: ".\\\" END SETTINGS\n", range: begin.upperBound..<page.endIndex))
        if Self.writeDocuments {
            let rewritten = page[..<begin.upperBound] + ConfigurationSetting.manualSection + page[end.lowerBound...]
            try String(rewritten).write(toFile: path, atomically: true, encoding: .utf8)
        }
        #expect(String(page[begin.upperBound..<end.lowerBound]) == ConfigurationSetting.manualSection || Self.writeDocuments,
                "man/localauthd.conf.5 is stale: \(Self.staleHint)")
    }

    /// The sample file sets every key (`key = value`), or shows it commented out (`# key = value`,
    /// `#key = example`) where the default is computed at start; the values are the table's.
    @Test func theSampleFileShowsExactlyTheTablesKeysAndValues() throws {
        var shown: [String: (value: String, commented: Bool)] = [:]
        for line in try Self.file("config/localauthd.conf").split(separator: "\n") {
            let commented = line.hasPrefix("#")
            let setting = commented ? line.drop { $0 == "#" || $0 == " " } : line[...]
            guard let equals = setting.range(of: " ="), setting[..<equals.lowerBound].allSatisfy({ $0.isLowercase || $0 == "_" }),
                  !setting[..<equals.lowerBound].isEmpty else { continue }
            let key = String(setting[..<equals.lowerBound])
            #expect(shown[key] == nil, "the sample shows \(key) twice")
            shown[key] = (setting[equals.upperBound...].trimmingCharacters(in: .whitespaces), commented)
        }
        #expect(Set(shown.keys) == Set(Self.table.map(\.key)))
        for row in Self.table {
            #expect(shown[row.key]?.value == row.example ?? row.shownValue, "\(row.key)")
            #expect(shown[row.key]?.commented == (row.defaultValue == nil), "\(row.key)")
        }
    }

    /// localauthd.conf(5) has one entry (`.TP`/`.TQ` then `.B key = value`) per key, with the
    /// table's value, and says which keys take effect only on restart.
    @Test func theManualShowsExactlyTheTablesKeysAndValues() throws {
        let lines = try Self.file("man/localauthd.conf.5").split(separator: "\n", omittingEmptySubsequences: false)
        var shown: [String: String] = [:]
        for (previous, line) in zip(lines, lines.dropFirst()) where (previous == ".TP" || previous == ".TQ") && line.hasPrefix(".B ") {
            let entry = line.dropFirst(3)
            let equals = entry.range(of: " =")
            let key = String(entry[..<(equals?.lowerBound ?? entry.endIndex)])
            #expect(shown[key] == nil, "the page has two entries for \(key)")
            shown[key] = equals.map { entry[$0.upperBound...].trimmingCharacters(in: .whitespaces) } ?? ""
        }
        #expect(Set(shown.keys) == Set(Self.table.map(\.key)))
        for row in Self.table {
            #expect(shown[row.key]?.replacingOccurrences(of: "\\-", with: "-") == row.shownValue, "\(row.key)")
        }
        // DESCRIPTION: "… take effect only on restart; the others on reload."
        let text = lines.joined(separator: "\n")
        let sentence = try #require(text.range(of: "On reload a bad file is refused and the running configuration kept.\n")
            .flatMap { start in text.range(of: "take effect only on restart", range: start.upperBound..<text.endIndex).map { text[start.upperBound..<$0.lowerBound] } })
        let named = sentence.split(separator: "\n").filter { $0.hasPrefix(".B") }.map { String($0.split(separator: " ")[1]) }
        #expect(named == Self.table.filter { $0.application == .restart }.map(\.key))
    }
}
