// SPDX-License-Identifier: Apache-2.0
@testable import LocalAuthService
import LocalAuthCore
import LocalAuthDBus
import LocalAuthSystem
import LocalAuthTestSupport
import Testing

/// The access stage's decisions, without a bus or the daemon: which callers each ``BusAccess``
/// admits at once, which it refuses and with what, and which it leaves to polkit or the engine.
@Suite struct AccessStageTests {
    static let daemonUser: UInt32 = 990, simulatorGroup: UInt32 = 991

    let stage: AccessStage

    init() throws {
        stage = AccessStage(engine: try EngineHarness().engine, daemonUser: Self.daemonUser, simulatorGroup: Self.simulatorGroup)
    }

    static func caller(uid: UInt32 = 1000, groups: [UInt32] = [], app: Result<AppIdentity, ProcessIdentity.Unknown>) -> BusCaller {
        BusCaller(caller: Caller(client: ClientID(":1.7"), uid: uid, pid: 4242), credentials: DBusCredentials(uid: uid, pid: 4242, groups: groups), app: app)
    }

    static let plain = caller(app: .success(AppIdentity(executable: "/usr/bin/demo")))
    static let sandboxed = caller(app: .success(AppIdentity(sandbox: .flatpak, name: "org.example.Demo")))
    static let unknown = caller(app: .failure(ProcessIdentity.Unknown(pid: 4242, .processGone)))

    @Test func theEngineAndAnyoneRowsAdmitEveryCallerAtOnce() async throws {
        for access in [BusAccess.anyone, .contextOwner, .privilegedByEngine(.resetLockout)] {
            for bus in [Self.plain, Self.sandboxed, Self.unknown] {
                #expect(stage.grantsAtOnce(access, bus), "\(access)")
                try await stage.check(access, bus)
            }
        }
    }

    @Test func anIdentifiedAppIsAnyAppTheDaemonCouldRead() async throws {
        #expect(stage.grantsAtOnce(.identifiedApp, Self.plain))
        #expect(stage.grantsAtOnce(.identifiedApp, Self.sandboxed))
        #expect(!stage.grantsAtOnce(.identifiedApp, Self.unknown))
        let error = await #expect(throws: LocalAuthError.self) { try await stage.check(.identifiedApp, Self.unknown) }
        #expect(error?.kind == .accessDenied)
    }

    @Test func anUnconfinedAppIsAnIdentifiedOneOutsideAnySandbox() async throws {
        #expect(stage.grantsAtOnce(.unconfinedApp, Self.plain))
        try await stage.check(.unconfinedApp, Self.plain)
        for bus in [Self.sandboxed, Self.unknown] {
            #expect(!stage.grantsAtOnce(.unconfinedApp, bus))
            let error = await #expect(throws: LocalAuthError.self) { try await stage.check(.unconfinedApp, bus) }
            #expect(error?.kind == .accessDenied)
        }
    }

    @Test func theSimulatorIsTheDaemonsUserAndItsGroupWithoutAskingPolkit() async throws {
        let own = Self.caller(uid: Self.daemonUser, app: Self.plain.app)
        let member = Self.caller(groups: [27, Self.simulatorGroup], app: Self.plain.app)
        #expect(stage.grantsAtOnce(.simulator, own))
        #expect(stage.grantsAtOnce(.simulator, member))
        #expect(!stage.grantsAtOnce(.simulator, Self.plain))
        // Anyone else is polkit's to decide; with no authorizer that is a refusal, root aside.
        let error = await #expect(throws: LocalAuthError.self) { try await stage.check(.simulator, Self.plain) }
        #expect(error?.kind == .accessDenied)
        try await stage.check(.simulator, Self.caller(uid: 0, app: Self.plain.app))
    }

    @Test func aPrivilegedRowAlwaysAsks() async throws {
        let root = Self.caller(uid: 0, app: Self.plain.app)
        #expect(!stage.grantsAtOnce(.privileged(.actForOtherUsers), root))
        try await stage.check(.privileged(.actForOtherUsers), root)
        let error = await #expect(throws: LocalAuthError.self) { try await stage.check(.privileged(.actForOtherUsers), Self.plain) }
        #expect(error?.kind == .accessDenied)
        // Said so that it fits every case the rule covers: User set to the caller's own uid, and
        // Unlock set to false, are refused alike.
        #expect(error?.message == "Only root may give CreateContext the User or Unlock option (a context for another user, or one that unlocks the session); leave both out for a context of your own.")
    }
}
