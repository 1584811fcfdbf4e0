// SPDX-License-Identifier: Apache-2.0
import LocalAuthCore
import LocalAuthBackends
import LocalAuthSystem
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("Configuration file loading", .timeLimit(.minutes(1)))
final class ConfigurationLoaderTests {
    let temporary: TemporaryDirectory
    var file: String { "\(temporary.path)/localauthd.conf" }

    init() throws { temporary = try TemporaryDirectory() }
    deinit { temporary.remove() }

    func loadError(_ path: String?) -> ConfigurationError? {
        do {
            let configuration = try ConfigurationLoader.load(path: path, builtIn: BackendRegistry.builtIn.ids)
            Issue.record("loaded \(configuration)")
            return nil
        } catch {
            return error
        }
    }

    @Test func aMissingNamedFileIsAnError() throws {
        let error = try #require(loadError(file))
        #expect(error.description == "\(file): no such file")
        #expect(error.file == file && error.line == 0)
    }

    @Test func anUnknownKeyNamesFileAndLine() throws {
        try writeFile(file, Array("# localauthd\n\nevaluation_timeout = 30\nfingerprint_atempts = 2\n".utf8))
        let error = try #require(loadError(file))
        #expect(error.file == file && error.line == 4)
        #expect(error.description.hasPrefix("\(file):4: unknown key \"fingerprint_atempts\""), "\(error)")
    }

    @Test(arguments: [[0xff, 0xfe, 0x3d], Array("backends = face\n".utf8) + [0xc3, 0x28, 0x0a]] as [[UInt8]])
    func contentThatIsNotUTF8IsAnError(_ content: [UInt8]) throws {
        try writeFile(file, content)
        let error = try #require(loadError(file))
        #expect(error.file == file && error.line == 0)
        #expect(error.description.contains("UTF-8"), "\(error)")
    }

    @Test func aDirectoryIsAnError() throws {
        #expect(mkdir(file, 0o700) == 0)
        let error = try #require(loadError(file))
        #expect(error.description.hasPrefix("\(file): "), "\(error)")
    }

    @Test func aValidFileIsParsed() throws {
        try writeFile(file, Array("""
            # test configuration
            backends = fingerprint, passcode
            preferred_biometry = fingerprint   # no camera here
            evaluation_timeout = 30
            simulator_event_ttl = 5
            state_directory = /srv/localauthd

            """.utf8))
        let configuration = try ConfigurationLoader.load(path: file, builtIn: BackendRegistry.builtIn.ids)
        var expected = Configuration()
        expected.backends = ["fingerprint", "passcode"]
        expected.preferredBiometry = .fingerprint
        expected.evaluationTimeout = 30
        expected.simulatorEventTTL = 5
        expected.stateDirectory = "/srv/localauthd"
        #expect(configuration == expected)
    }

    @Test func anUnknownSimulatorGroupNamesFileAndLine() throws {
        try writeFile(file, Array("# localauthd\nevaluation_timeout = 30\nsimulator_group = no-such-group-h10\n".utf8))
        let error = try #require(loadError(file))
        #expect(error.file == file && error.line == 3)
        #expect(error.description.hasPrefix("\(file):3: simulator_group: unknown group \"no-such-group-h10\""), "\(error)")
        #expect(error.description.contains("groupadd"), "says what to do: \(error)")
    }

    @Test func aKnownSimulatorGroupIsResolved() throws {
        try writeFile(file, Array("simulator_group = root\n".utf8))
        let loaded = try ConfigurationLoader.loadResolvingNames(path: file, builtIn: BackendRegistry.builtIn.ids)
        #expect(loaded.configuration.simulatorGroup == "root" && loaded.simulatorGroup == 0)
        try writeFile(file, [])
        #expect(try ConfigurationLoader.loadResolvingNames(path: file, builtIn: BackendRegistry.builtIn.ids).simulatorGroup == nil)
    }

    @Test func anEmptyFileGivesTheDefaults() throws {
        try writeFile(file, [])
        #expect(try ConfigurationLoader.load(path: file, builtIn: BackendRegistry.builtIn.ids) == Configuration())
    }

    @Test(.enabled("only while \(ConfigurationLoader.defaultPath) does not exist") { !exists(ConfigurationLoader.defaultPath) })
    func aMissingDefaultFileGivesTheDefaults() throws {
        #expect(try ConfigurationLoader.load(path: nil, builtIn: BackendRegistry.builtIn.ids) == Configuration())
    }
}
