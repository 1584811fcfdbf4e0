// SPDX-License-Identifier: Apache-2.0
import LocalAuthCore
import LocalAuthDBus

/// Asks polkit (`org.freedesktop.PolicyKit1.Authority.CheckAuthorization`) over the daemon's
/// own bus connection whether a caller may do a ``PrivilegedAction``. The subject is the
/// caller's unique bus name, so polkit judges the process that sent the call. No interaction is
/// requested: an action whose answer is `auth_admin*` is refused unless a rule allows it.
/// When polkit is not on the bus, everyone is refused (the engine lets root through first).
struct PolkitAuthorizer: Authorizer {
    static let busName = "org.freedesktop.PolicyKit1"
    static let path = "/org/freedesktop/PolicyKit1/Authority"
    static let interface = "org.freedesktop.PolicyKit1.Authority"

    let connection: DBusConnection

    /// The action ids of `polkit/org.localauth.LocalAuthentication1.policy`.
    static func actionID(_ action: PrivilegedAction) -> String {
        switch action {
        case .resetLockout: "org.localauth.LocalAuthentication1.reset-lockout"
        case .actForOtherUsers: "org.localauth.LocalAuthentication1.act-for-other-users"
        case .useSimulator: "org.localauth.LocalAuthentication1.simulator"
        }
    }

    func authorize(_ action: PrivilegedAction, caller: Caller) async throws(LocalAuthError) {
        let id = Self.actionID(action)
        let subject = DBusValue.structure([.string("system-bus-name"), .vardict(["name": .string(caller.client.rawValue)])])
        let reply: [DBusValue]
        do {
            reply = try await connection.call(
                destination: Self.busName, path: Self.path, interface: Self.interface, member: "CheckAuthorization",
                arguments: [subject, .string(id), .dictionary(keySignature: "s", valueSignature: "s", [:]), .uint32(0), .string("")],
                timeout: .seconds(10))
        } catch let error as DBusError where error.name == .serviceUnknown || error.name == .nameHasNoOwner {
            throw LocalAuthError(.accessDenied, "\(PolicyEngine.rootOnly(action)) polkit is not running, so no rule can allow \(id); start polkitd or run this as root.")
        } catch let error as DBusError {
            throw LocalAuthError(.accessDenied, "Could not ask polkit about \(id) (\(error.name.rawValue): \(error.message)); refused. Run this as root or try again.")
        } catch {
            throw LocalAuthError(.accessDenied, "Could not ask polkit about \(id) (\(error)); refused.")
        }
        guard case .structure(let fields)? = reply.first, fields.count == 3, let granted = fields[0].bool, let challenge = fields[1].bool else {
            throw LocalAuthError(.accessDenied, "polkit answered CheckAuthorization for \(id) with something other than (bba{ss}); refused.")
        }
        guard granted else {
            let how = challenge ? "only after authenticating as an administrator, which this service does not ask for" : "not for you"
            throw LocalAuthError(.accessDenied, "Not authorized for \(id): polkit allows it \(how). Run this as root, or have an administrator add a polkit rule for \(id).")
        }
    }
}
