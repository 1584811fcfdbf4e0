// SPDX-License-Identifier: Apache-2.0
import LocalAuthCore
import Testing

@Suite("Configuration file", .timeLimit(.minutes(1)))
struct ConfigurationParserTests {
    @Test func emptyFileGivesDocumentedDefaults() throws {
        let configuration = try ConfigurationParser.parse("# nothing\n\n", file: "test.conf")
        #expect(configuration == Configuration())
        #expect(configuration.backends == ["fingerprint", "face", "passcode"])
        #expect(configuration.preferredBiometry == .face)
        #expect(configuration.biometryMaxFailures == 5)
        #expect(configuration.fingerprintAttemptsPerEvaluation == 3)
        #expect(configuration.faceAttemptsPerEvaluation == 2)
        #expect(configuration.passcodeDelays == [0, 0, 0, 0, 60, 300, 900, 900, 3600])
        #expect(configuration.passcodeMaxFailures == 10)
        #expect(configuration.evaluationTimeout == 60)
        #expect(configuration.simulatorEventTTL == 10)
        #expect(configuration.simulatorGroup == "")
        #expect(configuration.maxContextsPerClient == 32)
        #expect(configuration.maxContexts == 4096)
        #expect(configuration.maxContextsPerUser == 256)
        #expect(configuration.rootReservedContexts == 64)
        #expect(configuration.passcodeHashWorkers == 2)
        #expect(configuration.maxPasscodeOperationsPerUser == 4)
        #expect(configuration.resolvedStateDirectory(environment: [:]) == "/var/lib/localauthd")
    }

    @Test func everyKeyIsRead() throws {
        let text = """
        backends = fingerprint, passcode   # no face
        preferred_biometry = fingerprint
        biometry_max_failures = 7
        fingerprint_attempts_per_evaluation = 4
        face_attempts_per_evaluation = 1
        passcode_delays = 0, 1.5, 30
        passcode_max_failures = 6
        evaluation_timeout = 0
        simulator_event_ttl = 2.5
        simulator_group = localauth-sim
        max_contexts_per_client = 8
        max_contexts = 100
        max_contexts_per_user = 50
        root_reserved_contexts = 10
        passcode_hash_workers = 1
        max_passcode_operations_per_user = 16
        state_directory = /tmp/state
        """
        let c = try ConfigurationParser.parse(text, file: "x.conf")
        #expect(c.backends == ["fingerprint", "passcode"])
        #expect(c.preferredBiometry == .fingerprint)
        #expect(c.biometryMaxFailures == 7)
        #expect(c.fingerprintAttemptsPerEvaluation == 4)
        #expect(c.faceAttemptsPerEvaluation == 1)
        #expect(c.passcodeDelays == [0, 1.5, 30])
        #expect(c.passcodeMaxFailures == 6)
        #expect(c.evaluationTimeout == 0)
        #expect(c.simulatorEventTTL == 2.5)
        #expect(c.simulatorGroup == "localauth-sim")
        #expect(c.maxContextsPerClient == 8)
        #expect(c.maxContexts == 100)
        #expect(c.maxContextsPerUser == 50)
        #expect(c.rootReservedContexts == 10)
        #expect(c.maxUnprivilegedContexts == 90)
        #expect(c.passcodeHashWorkers == 1)
        #expect(c.maxPasscodeOperationsPerUser == 16)
        #expect(c.resolvedStateDirectory(environment: ["STATE_DIRECTORY": "/var/lib/other"]) == "/tmp/state")
    }

    @Test func systemdStateDirectoryWinsOverTheDefaultOnly() {
        #expect(Configuration().resolvedStateDirectory(environment: ["STATE_DIRECTORY": "/var/lib/localauthd2:/x"]) == "/var/lib/localauthd2")
    }

    @Test("errors name file and line", arguments: [
        ("a = 1", 1, "unknown key \"a\""),
        ("\n\nbiometry_max_failures = five", 3, "biometry_max_failures: expected a whole number"),
        ("backends = fingerprint, Iris!", 1, "\"Iris!\" is not a backend id"),
        ("provider_directories = relative/dir", 1, "absolute paths"),
        ("provider_timeout = 0", 1, "more than 0"),
        ("backends = face, face", 1, "listed twice"),
        ("preferred_biometry = iris", 1, "expected `face` or `fingerprint`"),
        ("passcode_delays = 1, -2", 1, "expected seconds"),
        ("evaluation_timeout = nan", 1, "expected seconds"),
        ("simulator_event_ttl = 0", 1, "more than 0"),
        ("state_directory = relative/path", 1, "absolute path"),
        ("max_contexts = 0", 1, "from 1"),
        ("passcode_hash_workers = 0", 1, "from 1 to 64"),
        ("max_passcode_operations_per_user = 0", 1, "from 1"),
        ("just words", 1, "expected `key = value`"),
        ("max_contexts = 5\nmax_contexts = 6", 2, "already set on line 1"),
        ("max_contexts_per_user = 0", 1, "from 1"),
        ("root_reserved_contexts = -1", 1, "from 0"),
        ("max_contexts = 64", 1, "root_reserved_contexts (64) must be less than max_contexts (64)"),
        ("max_contexts = 100\nroot_reserved_contexts = 100", 2, "must be less than max_contexts"),
    ])
    func errorsNameFileAndLine(text: String, line: Int, fragment: String) {
        do {
            _ = try ConfigurationParser.parse(text, file: "/etc/localauthd/localauthd.conf")
            Issue.record("accepted \(text)")
        } catch {
            #expect(error.line == line)
            #expect(error.description.hasPrefix("/etc/localauthd/localauthd.conf:\(line): "))
            #expect(error.description.contains(fragment), "\(error.description)")
        }
    }
}
