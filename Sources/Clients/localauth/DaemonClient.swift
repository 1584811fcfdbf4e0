// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI
import LocalAuthDBus
import LocalAuthProxies

/// One connection to localauthd and the calls the commands make, through the typed proxies of
/// LocalAuthProxies (every call checked against the contract), with errors turned into `CLIError`s.
struct DaemonClient: Sendable {
    let connection: DBusConnection
    let global: GlobalOptions
    var timeout: Duration { global.timeout ?? .seconds(25) }

    var managerProxy: ManagerProxy { ManagerProxy(connection, timeout: timeout) }
    var simulatorProxy: SimulatorProxy { SimulatorProxy(connection, timeout: timeout) }
    func contextProxy(_ path: String) -> ContextProxy { ContextProxy(connection, path: path, timeout: timeout) }

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

    /// `call` with the Manager's typed proxy, its errors as `CLIError`s.
    @discardableResult
    func manager<T: Sendable>(_ call: @Sendable (ManagerProxy) async throws -> T) async throws(CLIError) -> T {
        let proxy = managerProxy
        return try await translate { try await call(proxy) }
    }

    /// `call` with the typed proxy of the context at `path`; `timeout` bounds each call (default: `--timeout`).
    @discardableResult
    func context<T: Sendable>(_ path: String, timeout: Duration? = nil, _ call: @Sendable (ContextProxy) async throws -> T) async throws(CLIError) -> T {
        let proxy = ContextProxy(connection, path: path, timeout: timeout ?? self.timeout)
        return try await translate { try await call(proxy) }
    }

    func simulator(_ call: @Sendable (SimulatorProxy) async throws -> Void) async throws(CLIError) {
        let proxy = simulatorProxy
        try await translate { try await call(proxy) }
    }

    func managerProperty(_ name: String) async throws(CLIError) -> DBusValue {
        let proxy = managerProxy.proxy
        return try await translate { try await proxy.property(name) }
    }

    func contextProperty(_ path: String, _ name: String) async throws(CLIError) -> DBusValue {
        let proxy = contextProxy(path)
        return try await translate { try await proxy.property(name) }
    }

    func createContext(_ options: [String: DBusValue] = [:]) async throws(CLIError) -> String {
        let manager = managerProxy
        return try await translate { try await manager.createContext(options: options) }
    }

    func userState() async throws(CLIError) -> UserState {
        let manager = managerProxy
        return UserState(try await translate { try await manager.userState() })
    }

    func backends() async throws(CLIError) -> [Backend] {
        let value = try await managerProperty("Backends")
        return (value.arrayElements ?? []).compactMap { element in
            guard let fields = element.structure, fields.count >= 3, let id = fields[0].string,
                  let modality = fields[1].string, let available = fields[2].bool else { return nil }
            let details = fields.count > 3 ? fields[3].vardict ?? [:] : [:]
            func detail(_ key: LocalAuthBackendDetailKey) -> String? { details[key.rawValue]?.string }
            return Backend(id: id, modality: modality, available: available, kind: detail(.kind) ?? "built-in",
                           version: detail(.providerVersion) ?? "", state: detail(.state) ?? (available ? "available" : "disconnected"),
                           description: detail(.description) ?? "")
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
    /// `built-in`, `simulator` or `provider`.
    let kind: String
    /// The provider's software version; empty otherwise.
    let version: String
    let state: String
    let description: String

    var json: JSONValue {
        .object([("id", .string(id)), ("modality", .string(modality)), ("available", .bool(available)), ("kind", .string(kind)),
                 ("version", .string(version)), ("state", .string(state)), ("description", .string(description))])
    }
}
