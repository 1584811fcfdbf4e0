// SPDX-License-Identifier: Apache-2.0
import Dispatch
import Foundation
import LocalAuthAPI
import LocalAuthDBus
import LocalAuthProxies
import Synchronization

/// Apple's `LAEnvironment` (iOS 18, macOS 15): how the current user can authenticate, and
/// observers told when that changes.
///
/// The state comes from localauthd: `Manager.GetUserState` (passcode, enrollments, lockout),
/// the `Backends` property (which sensors exist and are reachable), and a biometric check of a
/// short-lived context for `stateHash`. While an observer is registered, the environment follows
/// `UserStateChanged` and `Backends`' `PropertiesChanged`, reads the state again on each, and
/// tells every observer when it differs. `state` blocks until localauthd answers unless it is
/// being followed.
open class LAEnvironment: NSObject, @unchecked Sendable {
    /// Apple's Swift name of ``LAEnvironmentObserver`` (`class Watcher: NSObject, LAEnvironment.Observer`).
    public typealias Observer = LAEnvironmentObserver
    public typealias State = LAEnvironmentState
    public typealias Mechanism = LAEnvironmentMechanism
    public typealias MechanismBiometry = LAEnvironmentMechanismBiometry
    public typealias MechanismUserPassword = LAEnvironmentMechanismUserPassword
    public typealias MechanismCompanion = LAEnvironmentMechanismCompanion

    /// `@unchecked Sendable`: Apple's observers are not Sendable; they are only called on `observerQueue`.
    private struct WeakObserver: @unchecked Sendable {
        weak var observer: (any LAEnvironmentObserver)?
        let id: ObjectIdentifier
    }

    private struct Following {
        var observers: [WeakObserver] = []
        /// The state as last read while following; nil before.
        var current: EnvironmentSnapshot?
        var start: Task<Void, Never>?
        var subscriptions: [(DBusConnection, DBusSubscription)] = []
    }

    private let bus: Result<DBusBus, LAError>
    private let following = Mutex(Following())
    private let changes: AsyncStream<Void>.Continuation
    private static let observerQueue = DispatchQueue(label: "org.localauth.LocalAuthentication.environment")
    private static let current = LAEnvironment(bus: DaemonBus.fromEnvironment())

    /// The environment of the user this process runs as.
    open class var currentUser: LAEnvironment { current }

    /// An environment whose daemon is at `busAddress` (tests).
    @_spi(Testing) public convenience init(busAddress: String) {
        self.init(bus: .success(.address(busAddress)))
    }

    init(bus: Result<DBusBus, LAError>) {
        self.bus = bus
        let (stream, changes) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        self.changes = changes
        super.init()
        // One reader, so the state is read again once per burst of signals, in order.
        Task(executorPreference: ClientExecutor.shared) { [weak self] in
            for await _ in stream {
                guard let self else { return }
                await refresh()
            }
        }
    }

    deinit {
        changes.finish()
        let subscriptions = following.withLock { $0.subscriptions }
        for (connection, subscription) in subscriptions { connection.unsubscribe(subscription) }
    }

    /// The current state.
    open var state: LAEnvironmentState {
        if let current = following.withLock({ $0.current }) { return LAEnvironmentState(current) }
        let answered = DispatchSemaphore(value: 0)
        let result = Mutex(EnvironmentSnapshot.unknown)
        Task(executorPreference: ClientExecutor.shared) { [bus] in
            let snapshot = (try? await Self.read(bus)) ?? .unknown
            result.withLock { $0 = snapshot }
            answered.signal()
        }
        answered.wait()
        return LAEnvironmentState(result.withLock { $0 })
    }

    /// Tells `observer` of every change from now on (held weakly).
    open func addObserver(_ observer: any LAEnvironmentObserver) {
        let entry = WeakObserver(observer: observer, id: ObjectIdentifier(observer))
        following.withLock { following in
            following.observers.removeAll { $0.observer == nil || $0.id == entry.id }
            following.observers.append(entry)
            if following.start == nil {
                following.start = Task(executorPreference: ClientExecutor.shared) { [weak self] in await self?.follow() }
            }
        }
    }

    /// Stops telling `observer`.
    open func removeObserver(_ observer: any LAEnvironmentObserver) {
        let id = ObjectIdentifier(observer)
        following.withLock { $0.observers.removeAll { $0.observer == nil || $0.id == id } }
    }

    /// Returns once changes are followed (the signals subscribed and the state read): a change
    /// after this reaches the observers.
    @_spi(Testing) public func followingChanges() async {
        await following.withLock { $0.start }?.value
    }

    // MARK: Following

    private func follow() async {
        guard let connection = try? await DaemonBus.connection(to: bus.get()) else { return }
        let rules = [
            DBusMatchRule(sender: LocalAuthBusNames.busName, path: LocalAuthBusNames.managerPath,
                          interface: LocalAuthBusNames.managerInterface, member: "UserStateChanged"),
            DBusMatchRule(sender: LocalAuthBusNames.busName, path: LocalAuthBusNames.managerPath,
                          interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged", arg0: LocalAuthBusNames.managerInterface),
        ]
        for rule in rules {
            guard let subscription = try? await connection.subscribe(rule, handler: { [changes] _ in changes.yield() }) else { continue }
            following.withLock { $0.subscriptions.append((connection, subscription)) }
        }
        // GetUserState (in read) also asks the daemon for UserStateChanged on this connection.
        let snapshot = (try? await Self.read(bus)) ?? .unknown
        following.withLock { if $0.current == nil { $0.current = snapshot } }
    }

    private func refresh() async {
        guard let snapshot = try? await Self.read(bus) else { return }
        let (old, entries) = following.withLock { following -> (EnvironmentSnapshot?, [WeakObserver]) in
            let old = following.current
            following.current = snapshot
            return (old, following.observers)
        }
        guard let old, old != snapshot else { return }
        let oldState = LAEnvironmentState(old)
        for entry in entries {
            Self.observerQueue.async { entry.observer?.environment(self, stateDidChangeFromOldState: oldState) }
        }
    }

    // MARK: Reading

    /// The user's state from the daemon.
    private static func read(_ bus: Result<DBusBus, LAError>) async throws -> EnvironmentSnapshot {
        let connection = try await DaemonBus.connection(to: bus.get())
        let manager = ManagerProxy(connection)
        let user = try await manager.userState()
        let backends = try await manager.backends()
        let enrolled = Set((user[LocalAuthUserStateKey.enrollments.rawValue]?.arrayElements ?? []).compactMap {
            $0.structure?.first?.string.flatMap(BiometricModality.init(rawValue:))
        })
        // Each backend: (id, modality, available, details).
        var sensors: [BiometricModality: Bool] = [:]
        for entry in backends.arrayElements ?? [] {
            guard let fields = entry.structure, fields.count >= 3, let name = fields[1].string, let available = fields[2].bool,
                  let modality = BiometricModality(rawValue: name)
            else { continue }
            sensors[modality] = (sensors[modality] ?? false) || available
        }
        let modality: BiometricModality? = if sensors[.face] != nil, enrolled.contains(.face) || !enrolled.contains(.fingerprint) || sensors[.fingerprint] == nil {
            .face
        } else if sensors[.fingerprint] != nil { .fingerprint } else { nil }
        var biometry: EnvironmentSnapshot.Biometry?
        if let modality {
            let isEnrolled = enrolled.contains(modality)
            biometry = EnvironmentSnapshot.Biometry(
                type: modality.biometryType, isEnrolled: isEnrolled,
                isLockedOut: user[LocalAuthUserStateKey.biometryLockedOut.rawValue]?.bool ?? false,
                sensorInaccessible: sensors[modality] != true,
                stateHash: isEnrolled ? await domainState(connection) : nil)
        }
        return EnvironmentSnapshot(biometry: biometry, passcodeSet: user[LocalAuthUserStateKey.passcodeSet.rawValue]?.bool ?? false)
    }

    /// The user's biometric domain state, from a biometric check of a context made for it; nil
    /// when the check fails (locked out, no sensor reachable).
    private static func domainState(_ connection: DBusConnection) async -> Data? {
        guard let path = try? await ManagerProxy(connection).createContext() else { return nil }
        let context = ContextProxy(connection, path: path)
        defer { Task(executorPreference: ClientExecutor.shared) { try? await context.invalidate() } }
        guard (try? await context.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics)) != nil,
              let bytes = try? await context.property("EvaluatedPolicyDomainState").bytes, !bytes.isEmpty
        else { return nil }
        return Data(bytes)
    }
}
