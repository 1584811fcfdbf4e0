// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthCore
import LocalAuthBackends
import LocalAuthSystem
import Testing

/// Provider descriptors (`ID.provider`): what they say, the errors that name file and line, and
/// which directory wins.
@Suite("Provider descriptors")
struct ProviderDescriptorTests {
    static let valid = """
        # a comment
        [Provider]
        Id=acme
        Modality=face
        BusName=com.acme.FaceProvider
        Exec=/usr/libexec/acme-face --verbose
        User=0
        ProtocolVersion=1
        Description=ACME IR camera
        """

    @Test func aDescriptorSaysHowToReachAndCheckTheProvider() throws {
        let descriptor = try ProviderDescriptor.parse(Self.valid, path: "/usr/lib/localauthd/providers/acme.provider", builtIn: BackendRegistry.builtIn.ids)
        #expect(descriptor.id == "acme" && descriptor.modality == .face && descriptor.busName == "com.acme.FaceProvider")
        #expect(descriptor.exec == ["/usr/libexec/acme-face", "--verbose"] && descriptor.uid == 0 && descriptor.protocolVersion == 1)
        #expect(descriptor.description == "ACME IR camera")
        let named = try ProviderDescriptor.parse(Self.valid.replacingOccurrences(of: "User=0", with: "User=acme"), path: "/x/acme.provider", builtIn: BackendRegistry.builtIn.ids,
                                                 resolveUser: { $0 == "acme" ? 4242 : nil })
        #expect(named.uid == 4242 && named.user == "acme")
    }

    @Test("errors name file and line", arguments: [
        ("Id=acme", "Id=Acme!", 3, "Id: \"Acme!\" is not a provider id"),
        ("Id=acme", "Id=fingerprint", 3, "not a built-in backend's id"),
        ("Id=acme", "Id=other", 3, "must be called other.provider, not acme.provider"),
        ("Modality=face", "Modality=iris", 4, "expected fingerprint or face"),
        ("BusName=com.acme.FaceProvider", "BusName=:1.42", 5, "is not a well-known D-Bus name"),
        ("Exec=/usr/libexec/acme-face --verbose", "Exec=acme-face", 6, "must start with an absolute path"),
        ("User=0", "User=no-such-user-here", 7, "no user \"no-such-user-here\""),
        ("ProtocolVersion=1", "ProtocolVersion=2", 8, "speaks provider protocol 1 (org.localauth.Provider1), not 2"),
        ("Description=ACME IR camera", "Colour=red", 9, "unknown key \"Colour\""),
        ("[Provider]", "[Sensor]", 2, "unknown group [Sensor]"),
        ("BusName=com.acme.FaceProvider", "", 0, "BusName= is missing"),
    ])
    func errorsNameFileAndLine(replacing original: String, with replacement: String, line: Int, fragment: String) {
        let text = Self.valid.replacingOccurrences(of: original, with: replacement)
        do {
            _ = try ProviderDescriptor.parse(text, path: "/etc/localauthd/providers/acme.provider", builtIn: BackendRegistry.builtIn.ids, resolveUser: { _ in nil })
            Issue.record("accepted \(text)")
        } catch {
            #expect(error.line == line, "\(error)")
            #expect(error.description.contains(fragment), "\(error)")
        }
    }

    @Test func etcOverridesThePackagesDescriptorAndAnUnknownIdIsAnError() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("descriptors-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        for directory in ["lib", "etc"] { try FileManager.default.createDirectory(atPath: "\(root)/\(directory)", withIntermediateDirectories: true) }
        try Self.valid.write(toFile: "\(root)/lib/acme.provider", atomically: true, encoding: .utf8)
        try Self.valid.replacingOccurrences(of: "ACME IR camera", with: "local override").write(toFile: "\(root)/etc/acme.provider", atomically: true, encoding: .utf8)
        let text = "backends = acme, fingerprint, passcode\nprovider_directories = \(root)/lib, \(root)/etc\n"
        let located = try ConfigurationParser.parseLocated(text, file: "/etc/localauthd/localauthd.conf")
        let descriptors = try ProviderCatalog.descriptors(for: located, builtIn: BackendRegistry.builtIn.ids).descriptors
        #expect(descriptors.map(\.description) == ["local override"])
        #expect(located.configuration.providerIDs(builtIn: BackendRegistry.builtIn.ids) == ["acme"])

        let unknown = try ConfigurationParser.parseLocated(text.replacingOccurrences(of: "acme,", with: "iris,"), file: "/etc/localauthd/localauthd.conf")
        #expect(throws: ConfigurationError.self) { try ProviderCatalog.descriptors(for: unknown, builtIn: BackendRegistry.builtIn.ids) }
        do { _ = try ProviderCatalog.descriptors(for: unknown, builtIn: BackendRegistry.builtIn.ids) } catch {
            #expect(error.description.hasPrefix("/etc/localauthd/localauthd.conf:1: backends: unknown backend \"iris\""), "\(error)")
        }
    }
}
