// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI
import LocalAuthDBus

/// One connection to localauthd and the calls the commands make, with errors turned into `CLIError`s.
struct DaemonClient: Sendable {
    static let busName = LocalAuthBusNames.busName
    static let managerPath = LocalAuthBusNames.managerPath
    static let managerInterface = LocalAuthBusNames.managerInterface
    static let contextInterface = LocalAuthBusNames.contextInterface
    static let simulatorPath = LocalAuthBusNames.simulatorPath
    static let simulatorInterface = LocalAuthBusNames.simulatorInterface

    let connection: DBusConnection
    let global: GlobalOptions
    var timeout: Duration { global.timeout ?? .seconds(25) }

    static func connect(_ global: GlobalOptions) async throws(CLIError) -> DaemonClient {
        do {
            return DaemonClient(connection: try await DBusConnection.connect(to: global.bus), global: global)
        } catch let error as DBusError {
            throw .unreachable("Cannot connect to \(global.busDescription): \(error.message). Is the bus running? Choose one with --system, --session or --address.")
        } catch {
            throw .unreachable("Cannot connect to \(global.busDescription): \(error).")
        }
    }

    func translate<T: Sendable>(_ body: @Sendable () async throws -> T) async throws(CLIError) -> T {
        do {
            return try await body()
        } catch let error as DBusError {
            throw CLIError(error, bus: global.busDescription)
        } catch {
            throw .failed("\(error)")
        }
    }

    @discardableResult
    func manager(_ member: String, _ arguments: [DBusValue] = []) async throws(CLIError) -> [DBusValue] {
        try await translate {
            try await connection.call(destination: Self.busName, path: Self.managerPath, interface: Self.managerInterface,
                                      member: member, arguments: arguments, timeout: timeout)
        }
    }

    @discardableResult
    func context(_ path: String, _ member: String, _ arguments: [DBusValue] = [], timeout: Duration? = nil) async throws(CLIError) -> [DBusValue] {
        try await translate {
            try await connection.call(destination: Self.busName, path: path, interface: Self.contextInterface,
                                      member: member, arguments: arguments, timeout: timeout ?? self.timeout)
        }
    }

    func simulator(_ member: String, _ arguments: [DBusValue] = []) async throws(CLIError) {
        _ = try await translate {
            try await connection.call(destination: Self.busName, path: Self.simulatorPath, interface: Self.simulatorInterface,
                                      member: member, arguments: arguments, timeout: timeout)
        }
    }

    func managerProperty(_ name: String) async throws(CLIError) -> DBusValue {
        try await translate {
            try await connection.property(name, interface: Self.managerInterface, path: Self.managerPath,
                                          destination: Self.busName, timeout: timeout)
        }
    }

    func contextProperty(_ path: String, _ name: String) async throws(CLIError) -> DBusValue {
        try await translate {
            try await connection.property(name, interface: Self.contextInterface, path: path, destination: Self.busName, timeout: timeout)
        }
    }

    func createContext(_ options: [String: DBusValue] = [:]) async throws(CLIError) -> String {
        guard let path = try await manager("CreateContext", [.vardict(options)]).first?.objectPath else {
            throw .failed("CreateContext replied without an object path.")
        }
        return path
    }

    func userState() async throws(CLIError) -> UserState {
        guard let values = try await manager("GetUserState").first?.vardict else {
            throw .failed("GetUserState replied without a dictionary.")
        }
        return UserState(values)
    }

    func backends() async throws(CLIError) -> [Backend] {
        let value = try await managerProperty("Backends")
        return (value.arrayElements ?? []).compactMap { element in
            guard let fields = element.structure, fields.count >= 3, let id = fields[0].string,
                  let modality = fields[1].string, let available = fields[2].bool else { return nil }
            let details = fields.count > 3 ? fields[3].vardict ?? [:] : [:]
            return Backend(id: id, modality: modality, available: available, kind: details["Kind"]?.string ?? "built-in",
                           version: details["ProviderVersion"]?.string ?? "", state: details["State"]?.string ?? (available ? "available" : "disconnected"),
                           description: details["Description"]?.string ?? "")
        }
    }

    /// A passcode as the string argument D-Bus needs, without a `String` copy: the secret's buffer
    /// and the message's copy are wiped when released; the caller wipes its own bytes.
    static func passcodeArgument(_ passcode: [UInt8]) -> DBusValue {
        .secret(DBusSecret(copying: passcode))
    }

    func close() { connection.close() }
}

/// An enabled backend, from the Manager's `Backends` property.
struct Backend: Sendable {
    let id: String
    let modality: String
    let available: Bool
    /// `built-in` or `provider`.
    let kind: String
    /// The provider's software version; empty for built-ins.
    let version: String
    let state: String
    let description: String

    var json: JSONValue {
        .object([("id", .string(id)), ("modality", .string(modality)), ("available", .bool(available)), ("kind", .string(kind)),
                 ("version", .string(version)), ("state", .string(state)), ("description", .string(description))])
    }
}
