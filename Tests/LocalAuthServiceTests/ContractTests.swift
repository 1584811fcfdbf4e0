// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthAPI
import LocalAuthDBus
import LocalAuthProviders
import LocalAuthProxies
import LocalAuthTestSupport
import Testing

/// `dbus/*.xml` documents API v1; these tests keep it in step with what the running daemon
/// introspects, read by a client we did not write (`gdbus introspect`), and check that every
/// member is documented.
@Suite("D-Bus contract files match the daemon", .timeLimit(.minutes(1)))
struct ContractTests {
    /// Every interface of the one declaration; each has its contract file.
    static let interfaces = LocalAuthInterface.all.map(\.name)

    /// The checkout root, found from this file: `<root>/Tests/LocalAuthServiceTests/ContractTests.swift`.
    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func contractFile(_ interface: String) -> URL {
        repositoryRoot.appendingPathComponent("dbus").appendingPathComponent("\(interface).xml")
    }

    static func relativeName(_ interface: String) -> String { "dbus/\(interface).xml" }

    @Test func theDaemonIntrospectsExactlyWhatTheContractFilesSay() async throws {
        try await withDaemon { _, bus in
            let client = try await Client(bus)
            let context = try await client.createContext()
            let objects = [
                (path: LocalAuthBusNames.managerPath, interface: LocalAuthBusNames.managerInterface),
                (path: context, interface: LocalAuthBusNames.contextInterface),
                (path: LocalAuthBusNames.rightsPath, interface: LocalAuthBusNames.rightsInterface),
                (path: LocalAuthBusNames.simulatorPath, interface: LocalAuthBusNames.simulatorInterface),
                (path: LocalAuthBusNames.providerHostPath, interface: LocalAuthBusNames.providerHostInterface),
            ]
            for object in objects {
                let served = try await Self.introspect(bus, object.path)
                #expect(Array(served.interfaces.keys.filter { !$0.hasPrefix("org.freedesktop.DBus.") }) == [object.interface],
                        "\(object.path) should serve exactly \(object.interface) besides the standard interfaces; it introspects as \(served.interfaces.keys.sorted())")
                #expect(served.duplicates.isEmpty, "\(object.path) introspects duplicate members: \(served.duplicates)")
                let file = try await Self.canonical(Self.contractFile(object.interface))
                #expect(file.duplicates.isEmpty, "\(Self.relativeName(object.interface)) has duplicate members: \(file.duplicates)")
                let daemonSide = try #require(served.interfaces[object.interface], "\(object.path) does not introspect \(object.interface)")
                let fileSide = try #require(file.interfaces[object.interface], "\(Self.relativeName(object.interface)) does not describe \(object.interface)")
                for difference in Self.differences(daemon: daemonSide, file: fileSide) {
                    Issue.record("\(object.interface) (\(object.path) vs \(Self.relativeName(object.interface))): \(difference)")
                }
                if object.path == LocalAuthBusNames.managerPath {
                    #expect(Set(served.nodes).isSuperset(of: ["context", "providers", "rights", "simulator"]),
                            "\(object.path) should list the child nodes context, providers, rights and simulator; it lists \(served.nodes)")
                }
            }
            connectionStaysOpen(client)
        }
    }

    /// The `a{sv}` of GetUserState has exactly the keys of `LocalAuthUserStateKey`, with their
    /// signatures, and the contract file documents each as `Key (signature`.
    @Test func userStateKeysAreTheContractsAndDocumented() async throws {
        try await withDaemon { _, bus in
            let client = try await Client(bus)
            let state = try await client.userState()
            #expect(Set(state.keys) == Set(LocalAuthUserStateKey.allCases.map(\.rawValue)))
            for key in LocalAuthUserStateKey.allCases {
                #expect(state[key.rawValue]?.signature == key.signature, "\(key.rawValue) is \(state[key.rawValue]?.signature ?? "missing"), not \(key.signature)")
            }
            connectionStaysOpen(client)
        }
        let file = try String(contentsOf: Self.contractFile(LocalAuthBusNames.managerInterface), encoding: .utf8)
        for key in LocalAuthUserStateKey.allCases {
            #expect(file.contains("\(key.rawValue) (\(key.signature)"), "\(Self.relativeName(LocalAuthBusNames.managerInterface)) does not document \(key.rawValue) (\(key.signature))")
        }
    }

    /// A right's `a{sv}` (SaveRight, GetRight) has exactly the keys of `LocalAuthRightKey` with
    /// their signatures; the Rights contract file documents each, and the Context contract file
    /// documents ExchangeKeys's parameters and the requirement options, as `Key (signature`.
    @Test func rightKeysAreTheContractsAndDocumented() async throws {
        try await withDaemon { _, bus in
            let client = try await Client(bus)
            try await client.setUp()
            let right = try await RightsProxy(client.connection).saveRight("contract", requirement: "default", secret: Array("s".utf8))
            #expect(Set(right.keys) == Set(LocalAuthRightKey.allCases.map(\.rawValue)))
            for key in LocalAuthRightKey.allCases {
                #expect(right[key.rawValue]?.signature == key.signature, "\(key.rawValue) is \(right[key.rawValue]?.signature ?? "missing"), not \(key.signature)")
            }
            connectionStaysOpen(client)
        }
        let rights = try String(contentsOf: Self.contractFile(LocalAuthBusNames.rightsInterface), encoding: .utf8)
        for key in LocalAuthRightKey.allCases {
            #expect(rights.contains("\(key.rawValue) (\(key.signature)"), "\(Self.relativeName(LocalAuthBusNames.rightsInterface)) does not document \(key.rawValue) (\(key.signature))")
        }
        let context = try String(contentsOf: Self.contractFile(LocalAuthBusNames.contextInterface), encoding: .utf8)
        let keys = LocalAuthExchangeKeysParameter.allCases.map { ($0.rawValue, $0.signature) } + LocalAuthRequirementOption.allCases.map { ($0.rawValue, $0.signature) }
        for (key, signature) in keys {
            #expect(context.contains("\(key) (\(signature)"), "\(Self.relativeName(LocalAuthBusNames.contextInterface)) does not document \(key) (\(signature))")
        }
    }

    /// The agent's request and update keys are documented in the Agent contract file as `Key (signature`.
    @Test func agentKeysAreDocumented() throws {
        let file = try String(contentsOf: Self.contractFile(LocalAuthBusNames.agentInterface), encoding: .utf8)
        let keys = LocalAuthAgentRequestKey.allCases.map { ($0.rawValue, $0.signature) } + LocalAuthAgentUpdateKey.allCases.map { ($0.rawValue, $0.signature) }
        for (key, signature) in keys {
            #expect(file.contains("\(key) (\(signature)"), "\(Self.relativeName(LocalAuthBusNames.agentInterface)) does not document \(key) (\(signature))")
        }
    }

    /// The daemon calls providers through ``ProviderProtocol/provider``; served by a test double,
    /// it must introspect exactly as `dbus/org.localauth.Provider1.xml` says.
    @Test func theDaemonsProvider1DeclarationIsTheContractFile() async throws {
        try await withPrivateBus { bus in
            let double = try await bus.connect()
            defer { double.close() }
            try double.register(path: LocalAuthBusNames.providerPath, introspectionXML: DBusInterfaceDescription.document([LocalAuthInterface.provider])) { _ in
                throw DBusError(.notSupported, "a contract test double")
            }
            try await double.requestName(ReferenceProvider.busName)
            let served = try await Self.introspect(bus, LocalAuthBusNames.providerPath, destination: ReferenceProvider.busName)
            let file = try await Self.canonical(Self.contractFile(LocalAuthBusNames.providerInterface))
            let daemonSide = try #require(served.interfaces[LocalAuthBusNames.providerInterface])
            let fileSide = try #require(file.interfaces[LocalAuthBusNames.providerInterface])
            for difference in Self.differences(daemon: daemonSide, file: fileSide) {
                Issue.record("Provider1 (LocalAuthInterface.provider vs \(Self.relativeName(LocalAuthBusNames.providerInterface))): \(difference)")
            }
        }
    }

    /// The Python reference provider serves Provider1 as the contract file says. python3-dbus
    /// does not name out arguments, so only their types and order are compared.
    @Test func theReferenceProviderServesTheProvider1ContractFile() async throws {
        let provider = try ReferenceProvider(exec: false)
        try await withPrivateBus { bus in
            let watcher = try await bus.connect()
            defer { watcher.close() }
            let owned = Inbox<String>()
            let watch = try await watcher.watchNameOwners(ReferenceProvider.busName) { if $0.newOwner != nil { owned.put($0.name) } }
            defer { watcher.unsubscribe(watch) }
            let process = Process()
            let command = provider.command(address: bus.address)
            process.executableURL = URL(fileURLWithPath: command[0])
            process.arguments = Array(command.dropFirst())
            process.standardError = FileHandle.nullDevice
            try process.run()
            defer { ChildProcess.kill(process) }
            _ = try await owned.next()
            let served = try await Self.introspect(bus, LocalAuthBusNames.providerPath, destination: ReferenceProvider.busName)
            let file = try await Self.canonical(Self.contractFile(LocalAuthBusNames.providerInterface))
            let pythonSide = try #require(served.interfaces[LocalAuthBusNames.providerInterface], "the reference provider does not serve Provider1")
            var fileSide = try #require(file.interfaces[LocalAuthBusNames.providerInterface])
            fileSide.methods = fileSide.methods.mapValues { arguments in
                arguments.map { argument in
                    let fields = argument.split(separator: " ")
                    return fields.last == "out" ? "<unnamed> \(fields[1]) out" : argument
                }
            }
            for difference in Self.differences(daemon: pythonSide, file: fileSide) {
                Issue.record("Provider1 (reference-provider.py vs \(Self.relativeName(LocalAuthBusNames.providerInterface))): \(difference)")
            }
        }
    }

    /// The agent interface is served by agents, not the daemon: the terminal agent must match it.
    @Test func theTerminalAgentServesExactlyWhatTheAgentContractSays() async throws {
        try await withDaemon(configuration: "app_passcode_entry = false") { _, bus in
            let agent = Process()
            agent.executableURL = URL(fileURLWithPath: DaemonUnderTest.binary).deletingLastPathComponent().appendingPathComponent("localauth")
            agent.arguments = ["--address", bus.address, "agent", "--fallback"]
            let output = Pipe(), input = Pipe()
            agent.standardOutput = output
            agent.standardError = output
            agent.standardInput = input
            try agent.run()
            defer { ChildProcess.kill(agent) }
            _ = try await ChildOutput(output).lines.next(within: .seconds(10))
            let client = try await Client(bus)
            var name: String?
            for candidate in try #require(try await client.connection.call(
                destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus", member: "ListNames").first?.strings)
            where candidate.hasPrefix(":") {
                let pid = try? await client.connection.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                                                            member: "GetConnectionUnixProcessID", arguments: [.string(candidate)]).first?.uint32
                if pid == UInt32(agent.processIdentifier) { name = candidate }
            }
            let served = try await Self.introspect(bus, LocalAuthBusNames.agentPath, destination: try #require(name))
            let interface = LocalAuthBusNames.agentInterface
            let file = try await Self.canonical(Self.contractFile(interface))
            let agentSide = try #require(served.interfaces[interface], "the terminal agent does not introspect \(interface)")
            let fileSide = try #require(file.interfaces[interface])
            for difference in Self.differences(daemon: agentSide, file: fileSide) {
                Issue.record("\(interface) (localauth agent vs \(Self.relativeName(interface))): \(difference)")
            }
        }
    }

    /// The Swift declaration (what the daemon's tables, proxies and introspection come from) says
    /// exactly what the contract file says, for every interface, whoever serves it.
    @Test(arguments: interfaces)
    func theSwiftDeclarationIsTheContractFile(_ name: String) async throws {
        let declaration = try #require(LocalAuthInterface.all.first { $0.name == name })
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("declaration-\(UUID().uuidString).xml")
        try DBusInterfaceDescription.document([declaration]).write(to: scratch, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let declared = try #require(try await Self.canonical(scratch, describedAs: "LocalAuthInterface \(name)").interfaces[name])
        let file = try #require(try await Self.canonical(Self.contractFile(name)).interfaces[name], "\(Self.relativeName(name)) does not describe \(name)")
        for difference in Self.differences(daemon: declared, file: file) {
            Issue.record("\(name) (LocalAuthInterface vs \(Self.relativeName(name))): \(difference)")
        }
    }

    /// dbus/ holds a contract file for each declared interface and no other.
    @Test func everyContractFileIsDeclared() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.repositoryRoot.appendingPathComponent("dbus").path)
            .filter { $0.hasSuffix(".xml") }.map { String($0.dropLast(4)) }
        #expect(Set(files) == Set(Self.interfaces), "dbus/*.xml \(files.sorted()) vs LocalAuthInterface.all \(Self.interfaces.sorted())")
    }

    @Test(arguments: interfaces)
    func everyContractFileIsWellFormedAndFullyDocumented(_ interface: String) async throws {
        let file = Self.contractFile(interface)
        let result = try await Self.python("docs", file.path)
        try #require(result.status == 0, "\(Self.relativeName(interface)): \(result.output)")
        let report = try JSONDecoder().decode(DocReport.self, from: Data(result.output.utf8))
        #expect(report.interfaces == [interface], "\(Self.relativeName(interface)) should hold exactly the interface \(interface), not \(report.interfaces)")
        #expect(report.undocumented.isEmpty,
                "\(Self.relativeName(interface)): no org.gtk.GDBus.DocString annotation on \(report.undocumented.joined(separator: ", "))")
        #expect(report.unannotated.isEmpty,
                "\(Self.relativeName(interface)): no org.freedesktop.DBus.Property.EmitsChangedSignal annotation (true, invalidates, const or false) on \(report.unannotated.joined(separator: ", "))")
    }

    // MARK: Reading introspection data

    /// One interface reduced to what the contract fixes; of the annotations only EmitsChangedSignal.
    struct Interface: Decodable, Equatable {
        /// Method name → its arguments in order, each "name type direction".
        var methods: [String: [String]]
        /// Signal name → its arguments in order, each "name type".
        var signals: [String: [String]]
        /// Property name → "type access emits=VALUE" (VALUE: its EmitsChangedSignal annotation, or "unset").
        var properties: [String: String]
    }

    struct Node: Decodable {
        var interfaces: [String: Interface]
        var nodes: [String]
        /// Members named twice in one interface (or interfaces named twice), which a dictionary would hide.
        var duplicates: [String]
    }

    struct DocReport: Decodable {
        var interfaces: [String]
        var undocumented: [String]
        /// Properties without a valid EmitsChangedSignal annotation.
        var unannotated: [String]
    }

    /// What `gdbus introspect --xml` reports for `path`, reduced to the canonical form.
    static func introspect(_ bus: PrivateBus, _ path: String, destination: String = LocalAuthBusNames.busName) async throws -> Node {
        let result = try await runTool("/usr/bin/gdbus", [
            "introspect", "--address", bus.address, "--dest", destination, "--object-path", path, "--xml",
        ])
        try #require(result.status == 0, "gdbus introspect \(path) failed: \(result.output)")
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("introspect-\(UUID().uuidString).xml")
        try result.output.write(to: scratch, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: scratch) }
        return try await canonical(scratch, describedAs: "gdbus introspect \(path)")
    }

    static func canonical(_ file: URL, describedAs name: String? = nil) async throws -> Node {
        let result = try await python("canon", file.path)
        try #require(result.status == 0, "\(name ?? file.path): \(result.output)")
        return try JSONDecoder().decode(Node.self, from: Data(result.output.utf8))
    }

    static func python(_ mode: String, _ path: String) async throws -> (status: Int32, output: String) {
        try await runTool("/usr/bin/python3", ["-c", introspectionScript, mode, path])
    }

    /// Every way the two descriptions of one interface disagree, one sentence per member.
    static func differences(daemon: Interface, file: Interface) -> [String] {
        func compare<Value: Equatable>(_ kind: String, _ served: [String: Value], _ documented: [String: Value],
                                       _ show: (Value) -> String) -> [String] {
            Set(served.keys).union(documented.keys).sorted().compactMap { name in
                switch (served[name], documented[name]) {
                case (let s?, nil): "\(kind) \(name) is served by the daemon (\(show(s))) but missing from the contract file"
                case (nil, let d?): "\(kind) \(name) is in the contract file (\(show(d))) but not served by the daemon"
                case (let s?, let d?) where s != d: "\(kind) \(name) differs: daemon (\(show(s))), contract file (\(show(d)))"
                default: nil
                }
            }
        }
        let arguments: ([String]) -> String = { $0.isEmpty ? "no arguments" : $0.joined(separator: ", ") }
        return compare("method", daemon.methods, file.methods, arguments)
            + compare("signal", daemon.signals, file.signals, arguments)
            + compare("property", daemon.properties, file.properties, { $0 })
    }

    /// `python3 -c SCRIPT MODE FILE`. Mode `canon` prints the node as JSON (see ``Node``); mode
    /// `docs` lists the interfaces and every element without a DocString annotation. A document
    /// that is not well-formed exits 2 with the parser's message.
    static let introspectionScript = #"""
        import json, sys
        import xml.etree.ElementTree as ET

        DOC = "org.gtk.GDBus.DocString"
        EMITS = "org.freedesktop.DBus.Property.EmitsChangedSignal"

        def emits(element):
            values = [a.get("value") for a in element.findall("annotation") if a.get("name") == EMITS]
            return values[0] if len(values) == 1 else "unset"

        def arguments(element, direction):
            result = []
            for arg in element.findall("arg"):
                fields = [arg.get("name", "<unnamed>"), arg.get("type", "<untyped>")]
                if direction is not None:
                    fields.append(arg.get("direction", direction))
                result.append(" ".join(fields))
            return result

        def canonical(root):
            interfaces, duplicates = {}, []
            for interface in root.findall("interface"):
                name = interface.get("name")
                if name in interfaces:
                    duplicates.append("interface " + name)
                members = {"methods": {}, "signals": {}, "properties": {}}
                for tag, kind, value in (
                    ("method", "methods", lambda e: arguments(e, "in")),
                    ("signal", "signals", lambda e: arguments(e, None)),
                    ("property", "properties", lambda e: e.get("type", "<untyped>") + " " + e.get("access", "<no access>") + " emits=" + emits(e)),
                ):
                    for element in interface.findall(tag):
                        member = element.get("name")
                        if member in members[kind]:
                            duplicates.append(name + " " + tag + " " + member)
                        members[kind][member] = value(element)
                interfaces[name] = members
            nodes = [node.get("name") for node in root.findall("node")]
            return {"interfaces": interfaces, "nodes": nodes, "duplicates": duplicates}

        def documented(element):
            return any(a.get("name") == DOC and (a.get("value") or "").strip()
                       for a in element.findall("annotation"))

        def undocumented(root):
            missing = []
            for interface in root.findall("interface"):
                name = interface.get("name")
                if not documented(interface):
                    missing.append("interface " + name)
                for tag in ("method", "signal", "property"):
                    for element in interface.findall(tag):
                        member = tag + " " + element.get("name", "<unnamed>")
                        if not documented(element):
                            missing.append(member)
                        for arg in element.findall("arg"):
                            if not documented(arg):
                                missing.append(member + " arg " + arg.get("name", "<unnamed>"))
            return missing

        def unannotated(root):
            return ["property " + p.get("name", "<unnamed>") for i in root.findall("interface") for p in i.findall("property")
                    if emits(p) not in ("true", "invalidates", "const", "false")]

        mode, path = sys.argv[1], sys.argv[2]
        try:
            root = ET.parse(path).getroot()
        except (ET.ParseError, OSError) as error:
            print("not a well-formed introspection document: %s" % error)
            sys.exit(2)
        if root.tag != "node":
            print("the root element is <%s>, not <node>" % root.tag)
            sys.exit(2)
        if mode == "canon":
            print(json.dumps(canonical(root), sort_keys=True))
        elif mode == "docs":
            names = [i.get("name") for i in root.findall("interface")]
            print(json.dumps({"interfaces": names, "undocumented": undocumented(root), "unannotated": unannotated(root)}))
        else:
            print("unknown mode " + mode)
            sys.exit(2)
        """#
}

/// Keeps the context's owner connected until the introspection is done.
private func connectionStaysOpen(_ client: Client) {
    withExtendedLifetime(client) {}
}
