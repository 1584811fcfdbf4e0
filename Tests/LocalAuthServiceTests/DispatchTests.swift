// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI
import LocalAuthDBus
import LocalAuthTestSupport
import Testing

/// The daemon's dispatch tables (``DBusVTable`` rows built from ``LocalAuthInterface``), through the
/// real binary on a private bus.
@Suite("Dispatch tables of the daemon", .timeLimit(.minutes(1)))
struct DispatchTests {
    /// Every member of every interface the daemon serves, called with one argument too many, is
    /// InvalidArgs from the table, and nothing changes.
    @Test func everyMemberRefusesAWrongSignatureAndNothingChanges() async throws {
        try await withDaemon { _, bus in
            let client = try await Client(bus)
            try await client.setUp(fingers: ["left-thumb"])
            let before = try await client.userState()
            let context = try await client.createContext()
            let objects = [(LocalAuthInterface.manager, LocalAuthBusNames.managerPath), (LocalAuthInterface.context, context),
                           (LocalAuthInterface.simulator, LocalAuthBusNames.simulatorPath)]
            var refused = 0
            for (interface, path) in objects {
                for method in interface.methods {
                    let arguments = method.inputs.map { Self.sample($0.type) } + [.uint32(0)]
                    let name = await errorName {
                        _ = try await client.connection.call(destination: LocalAuthBusNames.busName, path: path, interface: interface.name,
                                                             member: method.name, arguments: arguments)
                    }
                    #expect(name == DBusError.Name.invalidArgs.rawValue, "\(interface.name).\(method.name)(\(method.inputSignature)u) answered \(name ?? "success")")
                    refused += 1
                }
            }
            #expect(refused == 15 + 6 + 7)
            #expect(try await client.userState() == before)
            #expect(try await client.property(context, "State") == .string("idle"))
        }
    }

    /// Each string property Set reaches the property it names (a Set of the fallback title once
    /// could only be told from the cancel title by its name).
    @Test func eachTitleSetReachesTheTitleItNames() async throws {
        try await withDaemon { _, bus in
            let client = try await Client(bus)
            let context = client.contextProxy(try await client.createContext())
            try await context.setProperty("LocalizedFallbackTitle", to: .string("Use Password"))
            #expect(try await context.property("LocalizedFallbackTitle") == .string("Use Password"))
            #expect(try await context.property("LocalizedCancelTitle") == .string("Cancel"))
            try await context.setProperty("LocalizedCancelTitle", to: .string("Not now"))
            #expect(try await context.property("LocalizedFallbackTitle") == .string("Use Password"))
            #expect(try await context.property("LocalizedCancelTitle") == .string("Not now"))
            let readOnly = await errorName {
                try await client.connection.setProperty("State", to: .string("idle"), interface: LocalAuthBusNames.contextInterface,
                                                        path: context.path, destination: LocalAuthBusNames.busName)
            }
            #expect(readOnly == DBusError.Name.propertyReadOnly.rawValue)
        }
    }

    /// `GetBackends` (the method added as one declaration line and one row) answers what the
    /// `Backends` property says.
    @Test func getBackendsIsTheBackendsProperty() async throws {
        try await withDaemon { _, bus in
            let client = try await Client(bus)
            let property = try await client.managerProxy.proxy.property("Backends")
            #expect(try await client.managerProxy.backends() == property)
            #expect(property.arrayElements?.count == 3, "passcode, fingerprint and face by default: \(property)")
        }
    }

    /// ProviderHost's stage runs before its table: a connection that is no provider's hears
    /// AccessDenied whatever member or arguments it sends, and learns nothing else.
    @Test func providerHostAdmitsNoStrangerWhateverItSends() async throws {
        try await withDaemon { _, bus in
            let client = try await Client(bus)
            for (member, arguments) in [("ReportAvailability", [DBusValue.bool(true)]), ("ReportAvailability", [.uint32(1)]),
                                        ("ReportAttempt", [.uint64(1), .string("match"), .string("")]), ("NoSuchMember", [])] {
                let name = await errorName {
                    _ = try await client.connection.call(destination: LocalAuthBusNames.busName, path: LocalAuthBusNames.providerHostPath,
                                                         interface: LocalAuthBusNames.providerHostInterface, member: member, arguments: arguments)
                }
                #expect(name == DBusError.Name.accessDenied.rawValue, "\(member)(\(DBusValue.signature(of: arguments))) answered \(name ?? "success")")
            }
        }
    }

    static func sample(_ type: String) -> DBusValue {
        switch type {
        case "s": .string("x")
        case "u": .uint32(1)
        case "b": .bool(false)
        case "a{sv}": .vardict([:])
        default: preconditionFailure("no sample of \(type)")
        }
    }
}
