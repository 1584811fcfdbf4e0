// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI
import LocalAuthDBus
import Testing

/// Every typed declaration spells exactly its types' codec signatures and secret flags, and every
/// method of every interface has a typed declaration here.
@Suite struct BusMethodTests {
    /// Records `method`'s mismatch, if any, and that it was checked.
    private static func check<each Input: DBusArgument, Output: DBusArgument>(
        _ method: BusMethod<repeat each Input, Output>, _ interface: DBusInterfaceDescription,
        into checked: inout [String: Set<String>], _ mismatches: inout [String]
    ) {
        if let mismatch = DBusInterfaceDescription.Method.codecMismatch(method) { mismatches.append("\(interface.name): \(mismatch)") }
        if interface.method(method.member) != method.description { mismatches.append("\(interface.name) does not serve \(method.member) as declared") }
        checked[interface.name, default: []].insert(method.member)
    }

    @Test func declarationsMatchTheirCodecs() {
        var checked: [String: Set<String>] = [:], mismatches: [String] = []
        let m = LocalAuthInterface.manager
        Self.check(ManagerMethod.createContext, m, into: &checked, &mismatches)
        Self.check(ManagerMethod.getUserState, m, into: &checked, &mismatches)
        Self.check(ManagerMethod.setPasscode, m, into: &checked, &mismatches)
        Self.check(ManagerMethod.removePasscode, m, into: &checked, &mismatches)
        Self.check(ManagerMethod.enroll, m, into: &checked, &mismatches)
        Self.check(ManagerMethod.unenroll, m, into: &checked, &mismatches)
        Self.check(ManagerMethod.setRequireAttention, m, into: &checked, &mismatches)
        Self.check(ManagerMethod.resetLockout, m, into: &checked, &mismatches)
        Self.check(ManagerMethod.cancelEnrollment, m, into: &checked, &mismatches)
        Self.check(ManagerMethod.registerAgent, m, into: &checked, &mismatches)
        Self.check(ManagerMethod.unregisterAgent, m, into: &checked, &mismatches)
        Self.check(ManagerMethod.agentResponse, m, into: &checked, &mismatches)
        Self.check(ManagerMethod.getFaceConsents, m, into: &checked, &mismatches)
        Self.check(ManagerMethod.setFaceConsent, m, into: &checked, &mismatches)
        Self.check(ManagerMethod.getBackends, m, into: &checked, &mismatches)
        let c = LocalAuthInterface.context
        Self.check(ContextMethod.canEvaluatePolicy, c, into: &checked, &mismatches)
        Self.check(ContextMethod.evaluatePolicy, c, into: &checked, &mismatches)
        Self.check(ContextMethod.submitPasscode, c, into: &checked, &mismatches)
        Self.check(ContextMethod.fallback, c, into: &checked, &mismatches)
        Self.check(ContextMethod.cancel, c, into: &checked, &mismatches)
        Self.check(ContextMethod.invalidate, c, into: &checked, &mismatches)
        Self.check(ContextMethod.authorizeRight, c, into: &checked, &mismatches)
        Self.check(ContextMethod.checkCanAuthorizeRight, c, into: &checked, &mismatches)
        Self.check(ContextMethod.deauthorizeRight, c, into: &checked, &mismatches)
        Self.check(ContextMethod.evaluateRequirement, c, into: &checked, &mismatches)
        Self.check(ContextMethod.canEvaluateRequirement, c, into: &checked, &mismatches)
        Self.check(ContextMethod.loadSecret, c, into: &checked, &mismatches)
        Self.check(ContextMethod.sign, c, into: &checked, &mismatches)
        Self.check(ContextMethod.decrypt, c, into: &checked, &mismatches)
        Self.check(ContextMethod.exchangeKeys, c, into: &checked, &mismatches)
        Self.check(ContextMethod.releaseLoginPassword, c, into: &checked, &mismatches)
        Self.check(ContextMethod.discardLoginPassword, c, into: &checked, &mismatches)
        let r = LocalAuthInterface.rights
        Self.check(RightsMethod.saveRight, r, into: &checked, &mismatches)
        Self.check(RightsMethod.getRight, r, into: &checked, &mismatches)
        Self.check(RightsMethod.listRights, r, into: &checked, &mismatches)
        Self.check(RightsMethod.removeRight, r, into: &checked, &mismatches)
        Self.check(RightsMethod.removeAllRights, r, into: &checked, &mismatches)
        Self.check(RightsMethod.removeApplicationRight, r, into: &checked, &mismatches)
        Self.check(RightsMethod.encrypt, r, into: &checked, &mismatches)
        Self.check(RightsMethod.verify, r, into: &checked, &mismatches)
        Self.check(RightsMethod.storeLoginPassword, r, into: &checked, &mismatches)
        Self.check(RightsMethod.removeLoginPassword, r, into: &checked, &mismatches)
        let s = LocalAuthInterface.simulator
        Self.check(SimulatorMethod.touch, s, into: &checked, &mismatches)
        Self.check(SimulatorMethod.fingerprintRetry, s, into: &checked, &mismatches)
        Self.check(SimulatorMethod.presentFace, s, into: &checked, &mismatches)
        Self.check(SimulatorMethod.setConnected, s, into: &checked, &mismatches)
        Self.check(SimulatorMethod.pressCancel, s, into: &checked, &mismatches)
        Self.check(SimulatorMethod.pressFallback, s, into: &checked, &mismatches)
        Self.check(SimulatorMethod.reset, s, into: &checked, &mismatches)
        let a = LocalAuthInterface.agent
        Self.check(AgentMethod.beginAuthentication, a, into: &checked, &mismatches)
        Self.check(AgentMethod.updateAuthentication, a, into: &checked, &mismatches)
        Self.check(AgentMethod.endAuthentication, a, into: &checked, &mismatches)
        let h = LocalAuthInterface.providerHost
        Self.check(ProviderHostMethod.reportAttempt, h, into: &checked, &mismatches)
        Self.check(ProviderHostMethod.reportEnrollment, h, into: &checked, &mismatches)
        Self.check(ProviderHostMethod.reportAvailability, h, into: &checked, &mismatches)
        let p = LocalAuthInterface.provider
        Self.check(ProviderMethod.hello, p, into: &checked, &mismatches)
        Self.check(ProviderMethod.arm, p, into: &checked, &mismatches)
        Self.check(ProviderMethod.disarm, p, into: &checked, &mismatches)
        Self.check(ProviderMethod.enrollStart, p, into: &checked, &mismatches)
        Self.check(ProviderMethod.enrollCancel, p, into: &checked, &mismatches)
        Self.check(ProviderMethod.listTemplates, p, into: &checked, &mismatches)
        Self.check(ProviderMethod.deleteTemplate, p, into: &checked, &mismatches)

        #expect(mismatches.isEmpty, "\(mismatches)")
        for interface in LocalAuthInterface.all {
            #expect(checked[interface.name] == Set(interface.methods.map(\.name)), "\(interface.name): not every method is checked here")
        }
    }

    /// The check can fail: a declaration whose strings disagree with its types is reported.
    @Test func aMismatchIsReported() {
        let wrong = BusMethod<UInt32, BusWire.Nothing>("Wrong", in: [.init("flag", "b")])
        #expect(DBusInterfaceDescription.Method.codecMismatch(wrong) != nil)
        let unflagged = BusMethod<BusWire.Secret, BusWire.Nothing>("Unflagged", in: [.init("passcode", "s")])
        #expect(DBusInterfaceDescription.Method.codecMismatch(unflagged) != nil)
        let reply = BusMethod<String, [String]>("Reply", in: [.init("name", "s")], out: [.init("names", "ay")])
        #expect(DBusInterfaceDescription.Method.codecMismatch(reply) != nil)
    }
}
