// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI
import LocalAuthCore

/// The one list of backends: maps each id `backends` may name to the factory that makes it.
///
/// The daemon's composition root starts from ``builtIn``, adds a row per provider descriptor,
/// checks the configuration against ``ids`` and makes the configured backends; the test harness
/// makes its backends from the same rows. A new backend is its own files plus one row here.
/// A value: whoever composes owns it.
public struct BackendRegistry: Sendable {
    /// What rows may need to make their backend.
    public struct Inputs: Sendable {
        /// Shared by the simulators, so `Pending` counts every queued input.
        public var simulatorQueue: SimulatorEventQueue
        /// The passcode hasher to use; nil: the passcode row makes the real one (Argon2id).
        public var passcodeHasher: (any PasscodeHasher)?

        public init(simulatorQueue: SimulatorEventQueue, passcodeHasher: (any PasscodeHasher)? = nil) {
            self.simulatorQueue = simulatorQueue
            self.passcodeHasher = passcodeHasher
        }
    }

    /// What one row made.
    public struct Product: Sendable {
        /// How `Backends` lists it.
        public var listed: any ListedBackend
        /// The sensor the engine arms, if it is a biometric backend.
        public var sensor: (any BiometricBackend)?
        /// The passcode hasher, if it is the passcode backend.
        public var passcodeHasher: (any PasscodeHasher)?
        /// What the `Simulator` bus object drives, if it is a simulator.
        public var simulator: (any SimulatorControl)?

        public init(listed: any ListedBackend, sensor: (any BiometricBackend)? = nil,
                    passcodeHasher: (any PasscodeHasher)? = nil, simulator: (any SimulatorControl)? = nil) {
            self.listed = listed
            self.sensor = sensor
            self.passcodeHasher = passcodeHasher
            self.simulator = simulator
        }

        /// A biometric backend, listed as itself.
        public static func sensor(_ sensor: any BiometricBackend, simulator: (any SimulatorControl)? = nil) -> Product {
            Product(listed: sensor, sensor: sensor, simulator: simulator)
        }
    }

    /// One backend: its id, other names it answers to in `backends`, and its factory.
    public struct Row: Sendable {
        public let id: String
        public let aliases: [String]
        public let make: @Sendable (Inputs) throws(LocalAuthError) -> Product

        public init(id: String, aliases: [String] = [], make: @escaping @Sendable (Inputs) throws(LocalAuthError) -> Product) {
            self.id = id
            self.aliases = aliases
            self.make = make
        }
    }

    /// The configured backends, made, in `backends` order.
    public struct Made: Sendable {
        public let products: [Product]

        public var sensors: [any BiometricBackend] { products.compactMap(\.sensor) }
        public var listed: [any ListedBackend] { products.map(\.listed) }
        /// nil when the passcode backend is not enabled.
        public var passcodeHasher: (any PasscodeHasher)? { products.lazy.compactMap(\.passcodeHasher).first }
        public var simulators: [BiometricModality: any SimulatorControl] {
            Dictionary(products.compactMap(\.simulator).map { ($0.modality, $0) }, uniquingKeysWith: { first, _ in first })
        }
    }

    public private(set) var rows: [Row]

    public init(rows: [Row]) {
        self.rows = rows
    }

    /// The daemon's own backends: the two simulators and the passcode.
    public static let builtIn = BackendRegistry(rows: [
        Row(id: "fingerprint", aliases: ["fingerprint-sim"]) { inputs in
            let simulator = FingerprintSimulator(queue: inputs.simulatorQueue)
            return .sensor(simulator, simulator: simulator)
        },
        Row(id: "face", aliases: ["face-sim"]) { inputs in
            let simulator = FaceSimulator(queue: inputs.simulatorQueue)
            return .sensor(simulator, simulator: simulator)
        },
        Row(id: "passcode") { (inputs) throws(LocalAuthError) -> Product in
            let hasher: any PasscodeHasher
            if let given = inputs.passcodeHasher { hasher = given } else { hasher = try Argon2idPasscodeHasher() }
            return Product(listed: PasscodeListing(), passcodeHasher: hasher)
        },
    ])

    /// Every name a row answers to, ids before their aliases, in row order: what `backends` may
    /// name besides providers, and what an unknown id's error lists.
    public var ids: [String] { rows.flatMap { [$0.id] + $0.aliases } }

    /// The row `name` (an id or an alias) selects.
    public func row(named name: String) -> Row? {
        rows.first { $0.id == name || $0.aliases.contains(name) }
    }

    /// Adds a row (a provider's); a name another row already answers to is an error.
    public mutating func register(_ row: Row) throws(LocalAuthError) {
        for name in [row.id] + row.aliases where self.row(named: name) != nil {
            throw LocalAuthError(.invalidArgument, "Backend \"\(name)\" is registered twice; give the provider another Id.")
        }
        rows.append(row)
    }

    /// The rows `names` selects, in that order. An unknown name, or two names of one row, is an
    /// error that says which.
    public func rows(selectedBy names: [String]) throws(LocalAuthError) -> [Row] {
        var selected: [Row] = []
        for name in names {
            guard let row = row(named: name) else {
                throw LocalAuthError(.invalidArgument, "Unknown backend \"\(name)\"; known backends: \(ids.joined(separator: ", ")).")
            }
            guard !selected.contains(where: { $0.id == row.id }) else {
                throw LocalAuthError(.invalidArgument, "Backend \"\(row.id)\" is enabled twice (as \"\(name)\"); list it once.")
            }
            selected.append(row)
        }
        return selected
    }

    /// Makes the backends `names` selects, in that order; see ``rows(selectedBy:)``.
    public func make(_ names: [String], inputs: Inputs) throws(LocalAuthError) -> Made {
        var products: [Product] = []
        for row in try rows(selectedBy: names) {
            products.append(try row.make(inputs))
        }
        return Made(products: products)
    }
}

/// The passcode backend as `Backends` lists it: always available.
struct PasscodeListing: ListedBackend {
    var status: BackendStatus {
        BackendStatus(id: "passcode", modality: "passcode", available: true,
                      detail: BackendDetail(kind: .builtIn, version: "", state: "available", description: "Passcode (Argon2id)"))
    }
}
