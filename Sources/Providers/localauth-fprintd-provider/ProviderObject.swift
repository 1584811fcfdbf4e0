// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI
import LocalAuthDBus
import Synchronization

/// The bus side of the provider: /org/localauth/Provider1 and what the provider listens to.
///
/// Runs on the connection's queue: it checks the caller, decodes the arguments, and hands each call
/// to `FprintdProvider` as an event. It believes only the unique name that owns localauthd's bus
/// name (calls) and the one that owns fprintd's (signals), both tracked from NameOwnerChanged.
final class ProviderObject: Sendable {

    private let connection: DBusConnection
    private let events: AsyncStream<FprintdProvider.Event>.Continuation
    private let log: @Sendable (String) -> Void
    private let hostOwner = Mutex<String?>(nil)
    private let fprintdOwner = Mutex<String?>(nil)
    private let signalCount = Atomic<UInt64>(0)

    /// How many fprintd signals have arrived (see `FprintdProvider.staleSignals`).
    var signalsReceived: UInt64 { signalCount.load(ordering: .acquiring) }

    init(connection: DBusConnection, events: AsyncStream<FprintdProvider.Event>.Continuation, log: @escaping @Sendable (String) -> Void) {
        self.connection = connection
        self.events = events
        self.log = log
    }

    /// Watches the two names, subscribes to fprintd's device signals, then serves the object.
    func start() async throws {
        _ = try await connection.watchNameOwners(LocalAuthBusNames.busName) { [self] change in
            hostOwner.withLock { $0 = change.newOwner }
            events.yield(.hostOwner(change.newOwner))
        }
        _ = try await connection.watchNameOwners(Fprintd.busName) { [self] change in
            fprintdOwner.withLock { $0 = change.newOwner }
            events.yield(.fprintdOwner(change.newOwner))
        }
        _ = try await connection.subscribe(DBusMatchRule(sender: Fprintd.busName, interface: Fprintd.deviceInterface)) { [self] signal in
            receive(signal)
        }
        // Owners now, read after the watches are in place so that no change is missed.
        let host = await owner(of: LocalAuthBusNames.busName)
        hostOwner.withLock { $0 = host }
        events.yield(.hostOwner(host))
        let fprintd = await owner(of: Fprintd.busName)
        fprintdOwner.withLock { $0 = fprintd }
        events.yield(.fprintdOwner(fprintd))
        try connection.register(path: LocalAuthBusNames.providerPath, table: table) { [self] call throws(DBusError) in
            try admit(call)
        }
    }

    private func owner(of name: String) async -> String? {
        try? await connection.call(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            member: "GetNameOwner", arguments: [.string(name)]
        ).first?.string
    }

    /// Only the owner of localauthd's name may call; others are refused and logged.
    private func admit(_ call: DBusMethodCall) throws(DBusError) {
        guard let sender = call.sender, sender == hostOwner.withLock({ $0 }) else {
            log("refused \(call.member) from \(call.sender ?? "?"), which does not own \(LocalAuthBusNames.busName)")
            throw .accessDenied("only localauthd (the owner of \(LocalAuthBusNames.busName)) may call this provider")
        }
    }

    /// `org.localauth.Provider1`: each row checks its member and signature, reads its typed
    /// arguments and hands the call to the provider's event stream, which answers it.
    private var table: DBusVTable {
        let events = self.events
        @Sendable func deferred(_ event: FprintdProvider.Event) -> DBusMethodReply {
            events.yield(event)
            return .deferred
        }
        return DBusVTable(LocalAuthInterface.provider, methods: [
            .init(ProviderMethod.hello) { call, _ throws(DBusError) in deferred(.hello(call.reply)) },
            .init(ProviderMethod.arm) { call, session, user, templates, _ throws(DBusError) in
                deferred(.arm(session: session, user: user, templates: templates, call.reply))
            },
            .init(ProviderMethod.disarm) { call, session throws(DBusError) in deferred(.disarm(session: session, call.reply)) },
            .init(ProviderMethod.enrollStart) { call, id, user, label throws(DBusError) in
                deferred(.enrollStart(id: id, user: user, label: label, call.reply))
            },
            .init(ProviderMethod.enrollCancel) { call, id throws(DBusError) in deferred(.enrollCancel(id: id, call.reply)) },
            .init(ProviderMethod.listTemplates) { call, user throws(DBusError) in deferred(.listTemplates(user: user, call.reply)) },
            .init(ProviderMethod.deleteTemplate) { call, user, template throws(DBusError) in
                deferred(.deleteTemplate(user: user, template: template, call.reply))
            },
        ])
    }

    /// fprintd's VerifyFingerSelected, VerifyStatus and EnrollStatus, from fprintd only: anyone on
    /// the bus can send a signal named VerifyStatus, and a forged verify-match must not count.
    private func receive(_ signal: DBusSignal) {
        guard let sender = signal.sender, sender == fprintdOwner.withLock({ $0 }) else { return }
        var reader = DBusArgumentReader(signal.arguments)
        guard let first = try? reader.string(), ["VerifyFingerSelected", "VerifyStatus", "EnrollStatus"].contains(signal.member) else { return }
        let numbered = FprintdProvider.FprintdSignal(
            number: signalCount.add(1, ordering: .acquiringAndReleasing).newValue, device: signal.path, value: first)
        switch signal.member {
        case "VerifyFingerSelected": events.yield(.verifyFingerSelected(numbered))
        case "VerifyStatus": events.yield(.verifyStatus(numbered))
        default: events.yield(.enrollStatus(numbered))
        }
    }
}
