// SPDX-License-Identifier: Apache-2.0
import LocalAuthCore
import LocalAuthSystem

/// What a row of a bus object's table needs from its caller. ``AccessStage`` checks it before the
/// row's handler runs, as fprintd's `g-authorize-method` does; rules that depend on the engine's
/// state stay in the engine, and the row says so.
enum BusAccess: Sendable, Hashable {
    /// Any caller; what it may do with its own user's data is the engine's rule.
    case anyone
    /// A caller whose app identity the daemon could read (sandboxed or not): rights belong to an
    /// application, so an unidentified caller has none.
    case identifiedApp
    /// A caller whose app identity the daemon could read and that runs in no sandbox (Flatpak,
    /// Snap): the rows that take the user's passcode, and registering an agent. Refused before the
    /// handler runs, so a sandboxed app cannot burn the user's passcode tries.
    case unconfinedApp
    /// The connection that created the context. Checked by the engine, which knows the owners.
    case contextOwner
    /// Root, the daemon's own uid, members of `simulator_group`, or whoever polkit grants
    /// ``PrivilegedAction/useSimulator``.
    case simulator
    /// Root, or whoever polkit grants the action.
    case privileged(PrivilegedAction)
    /// Root, or whoever polkit grants the action, checked by the engine itself (its public API
    /// guards the action for every embedder, so the stage does not ask polkit a second time).
    case privilegedByEngine(PrivilegedAction)
}

/// The one authorization stage every queued bus call passes, in the caller's queue, before the
/// row's handler. Immutable; `authorize` runs off the engine's actor.
struct AccessStage: Sendable {
    let engine: PolicyEngine
    /// Allowed the simulator without asking polkit: the daemon's own uid (it could drive the daemon anyway).
    let daemonUser: UInt32
    /// The gid of `simulator_group`, if one is configured.
    let simulatorGroup: UInt32?

    /// Runs where it is awaited (the caller's queue, in the engine's isolation): a check that
    /// asks no one costs no hop.
    nonisolated(nonsending) func check(_ access: BusAccess, _ bus: BusCaller) async throws(LocalAuthError) {
        if grantsAtOnce(access, bus) { return }
        switch access {
        case .anyone, .contextOwner, .privilegedByEngine:
            return
        case .unconfinedApp:
            throw Self.appRefusal(bus.app)
        case .identifiedApp:
            throw Self.unidentifiedRefusal(bus.app)
        case .simulator:
            try await engine.authorize(.useSimulator, caller: bus.caller)
        case .privileged(let action):
            try await engine.authorize(action, caller: bus.caller)
        }
    }

    /// Whether ``check(_:_:)`` passes without asking anyone (polkit).
    func grantsAtOnce(_ access: BusAccess, _ bus: BusCaller) -> Bool {
        switch access {
        case .anyone, .contextOwner, .privilegedByEngine:
            return true
        case .unconfinedApp:
            return (try? bus.app.get())?.isSandboxed == false
        case .identifiedApp:
            return (try? bus.app.get()) != nil
        case .simulator:
            return bus.credentials.uid == daemonUser || simulatorGroup.map(bus.credentials.groups.contains) == true
        case .privileged:
            return false
        }
    }

    /// Why a caller is refused ``BusAccess/identifiedApp``.
    static func unidentifiedRefusal(_ app: Result<AppIdentity, ProcessIdentity.Unknown>) -> LocalAuthError {
        let reason = if case .failure(let unknown) = app { " (\(unknown))" } else { "" }
        return LocalAuthError(.accessDenied, "The service could not tell which app is calling\(reason); rights belong to an app, "
                              + "so it has none. Call from a process whose executable the service can read.")
    }

    /// Why an app is refused ``BusAccess/unconfinedApp``.
    static func appRefusal(_ app: Result<AppIdentity, ProcessIdentity.Unknown>) -> LocalAuthError {
        switch app {
        case .success(let identity):
            LocalAuthError(.accessDenied, "A sandboxed app (\(DisplayText.escaped(identity.id, limit: 64))) may not do this: it takes your "
                           + "passcode, shows other apps' prompts or reaches other apps' rights. Use localauth outside the sandbox.")
        case .failure(let unknown):
            LocalAuthError(.accessDenied, "The service could not tell which app is calling (\(unknown)), so it may not do this: "
                           + "it takes your passcode, shows other apps' prompts or reaches other apps' rights.")
        }
    }
}
