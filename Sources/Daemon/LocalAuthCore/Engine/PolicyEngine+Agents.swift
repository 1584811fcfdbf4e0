// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI

/// Agents: who shows an evaluation's sheet and takes the passcode, and per-app face consent.
///
/// An evaluation of an ordinary context is shown by the agent of the app's logind session (or,
/// for an app in no session, by its user's fallback agent, the first registered). The agent gets a random,
/// single-use cookie; an answer counts only with the current cookie, from the agent's own
/// connection and uid. Contexts of logins and sudo (``ContextOptions/isPrivilegedConversation``)
/// are never shown by an agent: their PAM conversation is the sheet.
extension PolicyEngine {
    /// Registers the caller as an agent. A session agent must be the owner of the session its
    /// process is in; an ``AgentScope/ownContexts`` agent is refused while another agent would
    /// show its evaluations (it could otherwise take the passcode away from the session's agent).
    /// A sandboxed app (``AppIdentity/isSandboxed``) may not be an agent: an agent sees other
    /// apps' reasons and takes the passcode. (The daemon refuses a caller it cannot identify before
    /// it gets here; an embedder without app identities passes none.)
    public func registerAgent(_ caller: Caller, locale: String, scope requested: AgentScope.Requested, app: AppIdentity? = nil) throws(LocalAuthError) {
        if let app, app.isSandboxed {
            throw LocalAuthError(.accessDenied, "A sandboxed app (\(DisplayText.escaped(app.id, limit: 64))) may not register as an agent; run the agent outside the sandbox.")
        }
        guard !locale.isEmpty, locale.utf8.count <= 64,
              locale.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || "0123456789_.-@".unicodeScalars.contains($0)) })
        else {
            throw LocalAuthError(.invalidArgument, "The locale must be a POSIX locale name such as de_DE.UTF-8 (at most 64 ASCII characters).")
        }
        remember(caller)
        let session = environment.sessionLookup?.session(ofProcess: caller.pid)
        let scope: AgentScope
        switch requested {
        case .session:
            guard let session else {
                throw LocalAuthError(.invalidArgument, "Your process is in no logind session, so it cannot be a session agent; register as a fallback agent (localauth agent --fallback).")
            }
            guard session.owner == caller.uid else {
                throw LocalAuthError(.accessDenied, "Only the owner of session \(session.id) may register its agent.")
            }
            scope = .session(session.id)
        case .fallback:
            scope = .fallback
        case .ownContexts:
            if let other = agentDesk.agent(owner: caller.client, session: session, user: caller.uid, includingOwn: false) {
                let which: String
                switch other.scope {
                case .session(let id): which = "session \(id)"
                case .fallback, .ownContexts: which = "your processes outside a session"
                }
                throw LocalAuthError(.busy, "An agent already shows the prompts of \(which); it will ask for the passcode.")
            }
            scope = .ownContexts
        }
        try agentDesk.add(client: caller.client, uid: caller.uid, scope: scope,
                          language: MessageCatalog.Language(locale: locale))
    }

    public func unregisterAgent(_ client: ClientID) throws(LocalAuthError) {
        guard agentDesk.agents[client] != nil else {
            throw LocalAuthError(.invalidArgument, "This connection is not registered as an agent.")
        }
        dropAgent(client)
        settle()
    }

    /// Takes an agent's answer for the sheet `cookie` names. Any cookie that is not current, not
    /// this caller's or not of this uid gets the same refusal, so guessing learns nothing.
    public func agentResponse(cookie: String, _ answer: AgentAnswer, caller: Caller) async throws(LocalAuthError) {
        guard let (id, sheet) = agentDesk.sheet(withCookie: cookie), sheet.agent == caller.client, sheet.agentUID == caller.uid,
              let record = contexts[id], let evaluation = record.evaluation
        else { throw Self.noSuchAuthentication }
        agentDesk.sheets[id]?.cookie = nil
        // A new cookie is issued before the answer's effects are shown (they carry it), after the
        // passcode's verdict (one passcode in flight per sheet), and on every refusal here.
        defer { if contexts[id]?.evaluation?.serial == evaluation.serial, agentDesk.sheets[id]?.cookie == nil { issueCookie(id) } }
        switch answer {
        case .cancel:
            issueCookie(id)
            handle(.ended(.userCancel), on: id)
            settle()
        case .fallback:
            guard !record.options.localizedFallbackTitle.isEmpty else {
                throw LocalAuthError(.notSupported, "The sheet shows no fallback button: the context's fallback title is empty.")
            }
            issueCookie(id)
            handle(.fallback, on: id)
            settle()
        case .faceConsent(let allowed, let passcode):
            guard sheet.faceConsentPending, let app = record.options.appIdentity else {
                throw LocalAuthError(.notSupported, "No face consent question is open on this sheet.")
            }
            if allowed {
                guard !passcode.isEmpty else {
                    throw LocalAuthError(.authenticationFailed, "Allowing Face ID needs the user's passcode with allow-face; deny-face needs none.")
                }
                try await requirePasscode(passcode, user: record.user, client: record.owner)
                guard contexts[id]?.evaluation?.serial == evaluation.serial, agentDesk.sheets[id]?.faceConsentPending == true else {
                    throw LocalAuthError(.notEvaluating, "The evaluation ended before the passcode was checked; nothing was stored.")
                }
            }
            try await recordFaceConsent(app, allowed: allowed, user: record.user)
            // Stored; the sheet is gone if the evaluation ended while it was saved.
            guard contexts[id]?.evaluation?.serial == evaluation.serial else { return }
            agentDesk.sheets[id]?.faceConsentPending = false
            issueCookie(id)
            if allowed { dirty.insert(id) } else { handle(.sensorLost(.face), on: id) }
            settle()
        case .passcode(let passcode):
            guard evaluation.machine.acceptsPasscode else {
                throw LocalAuthError(.notEvaluating, "This evaluation does not take the passcode (policy 1 or 4); use fallback or cancel.")
            }
            try await applyPasscode(passcode, to: id, serial: evaluation.serial, user: record.user, client: record.owner) {
                issueCookie(id)
            }
        }
    }

    /// The same for every cookie that does not authorize the caller.
    static let noSuchAuthentication = LocalAuthError(.accessDenied, "No authentication waits for an answer from this agent with that cookie.")

    // MARK: Face consent

    /// The user's face consent decisions, by app identity.
    public func faceConsentDecisions(of uid: UInt32) -> [String: Bool] {
        consents(of: uid).apps
    }

    /// Allows or refuses an app the face sensor for the caller. Allowing needs the caller's
    /// passcode (counted like every check), so an app cannot allow itself; refusing needs none.
    public func setFaceConsent(app: String, allowed: Bool, passcode: Passcode, caller: Caller) async throws(LocalAuthError) {
        try ContextOptions.validateText(app, name: "app identity", allowEmpty: false)
        guard !DisplayText.containsControls(app) else {
            throw LocalAuthError(.invalidArgument, "An app identity holds no control or format characters; give it as GetFaceConsents lists it.")
        }
        if allowed {
            try await requirePasscode(passcode, user: caller.uid, client: caller.client)
        }
        try await recordFaceConsent(app, allowed: allowed, user: caller.uid)
    }

    func consents(of uid: UInt32) -> FaceConsents {
        if let known = users.consents(of: uid) { return known }
        // Unreadable decisions count as none: the user is asked again, nothing is granted.
        let loaded = (try? environment.consentStore?.loadFaceConsents(user: uid)) ?? nil
        let consents = loaded ?? FaceConsents()
        users.setConsents(consents, of: uid)
        return consents
    }

    /// Stores a decision once it is the user's turn to save (``beginSaveTurn(of:)``).
    private func recordFaceConsent(_ app: String, allowed: Bool, user uid: UInt32) async throws(LocalAuthError) {
        await beginSaveTurn(of: uid)
        defer { endSaveTurn(of: uid) }
        var updated = consents(of: uid)
        // Repeating a stored decision writes and logs nothing (a flood of no-op revocations stalled everyone).
        guard updated.apps[app] != allowed else { return }
        guard updated.apps[app] != nil || updated.apps.count < FaceConsents.maximumApps else {
            throw LocalAuthError(.limitsExceeded, "This user already has \(FaceConsents.maximumApps) face decisions; revoke some first.")
        }
        let now = environment.clock.uptime().seconds
        guard users.consentChanges(of: uid, at: now) < FaceConsents.maximumChangesPerMinute else {
            throw LocalAuthError(.limitsExceeded, "This user changed \(FaceConsents.maximumChangesPerMinute) face decisions in the last minute; try again in a minute.")
        }
        updated.apps[app] = allowed
        if let store = environment.consentStore {
            let saved = updated
            if case .failure(let error) = await saveElsewhere({ () throws(StateStoreError) in try store.saveFaceConsents(saved, user: uid) }) {
                throw LocalAuthError(.serviceFailure, "The face decision could not be saved (\(error.message)); nothing changed.")
            }
        }
        users.recordConsentChange(updated, of: uid, at: now)
        recordAudit(AuditEntry(.evaluation, severity: .notice, user: uid, client: nil, result: allowed ? "face-allowed" : "face-denied",
                               message: "Face ID \(allowed ? "allowed" : "denied") for \(DisplayText.escaped(app))."))
    }

    func faceAllowance(_ record: ContextRecord) -> FaceAllowance {
        if !configuration.faceConsent || record.options.isPrivilegedConversation { return .allowed }
        guard !record.options.faceUsageDescription.isEmpty else { return .noUsageDescription }
        guard let app = record.options.appIdentity else { return .appUnidentified }
        switch consents(of: record.user).apps[app] {
        case true?: return .allowed
        case false?: return .denied
        case nil: return .undecided
        }
    }

    /// biometryNotAvailable when face is the only usable sensor for policy 1 or 4 and this app
    /// may not use it (no usage description, unidentified, refused, or undecided with no agent to ask).
    func faceRefusal(of policy: LAPolicy, _ record: ContextRecord, user: UserRecord) -> LocalAuthError? {
        guard policy.kind == .biometricsOnly else { return nil }
        let usable = usableSensors(for: user.profile)
        guard usable == [.face] else { return nil }
        return faceWithheld(record, asker: faceConsentAsker(record)).map { LocalAuthError(.biometryNotAvailable, $0) }
    }

    /// Why face is not offered to this context's app, or nil when it is (allowed, or undecided
    /// and `asker` can ask the user).
    func faceWithheld(_ record: ContextRecord, asker: AgentRegistration?) -> String? {
        switch faceAllowance(record) {
        case .allowed: nil
        case .undecided: asker == nil
            ? "Face ID is not offered to this app: you have not decided whether it may use Face ID, and no agent runs to ask you "
                + "(run `localauth agent`, or allow it with `localauth apps allow`)."
            : nil
        case .denied: "The user has not allowed this app to use Face ID (localauth apps allow)."
        case .noUsageDescription: "Face ID is not offered to this app: it gave no FaceUsageDescription."
        case .appUnidentified: "Face ID is not offered to this app: the service could not tell which app it is (the service's log says why)."
        }
    }

    /// The agent that would ask the user about face for this context: the one that shows its
    /// sheet, unless that is the app's own agent (it would answer for itself).
    func faceConsentAsker(_ record: ContextRecord) -> AgentRegistration? {
        guard !record.options.isPrivilegedConversation,
              let agent = agentDesk.agent(owner: record.owner, session: session(of: record.owner), user: record.user),
              agent.scope != .ownContexts else { return nil }
        return agent
    }

    // MARK: Sheets

    /// Which sensors a starting evaluation may use and who shows it: face only when allowed, or
    /// when undecided and an agent can ask (it then waits for the answer). Face withheld from an
    /// app that asked for it is audited (`face-not-offered`) with the reason.
    func planSheet(_ record: ContextRecord, usable: BiometricModalitySet) -> (usable: BiometricModalitySet, agent: AgentRegistration?, askFace: Bool) {
        let agent = record.options.isPrivilegedConversation ? nil
            : agentDesk.agent(owner: record.owner, session: session(of: record.owner), user: record.user)
        var usable = usable
        var askFace = false
        if usable.contains(.face) {
            let asker = faceConsentAsker(record)
            if let reason = faceWithheld(record, asker: asker) {
                usable.remove(.face)
                if !record.options.faceUsageDescription.isEmpty {
                    recordAudit(AuditEntry(.evaluation, severity: .notice, user: record.user, client: record.owner.rawValue,
                                           result: "face-not-offered", message: reason))
                }
            } else if faceAllowance(record) == .undecided {
                askFace = true
            }
        }
        return (usable, agent, askFace)
    }

    func openSheet(_ id: ContextID, agent: AgentRegistration, usable: BiometricModalitySet, askFace: Bool) {
        guard let record = contexts[id], let evaluation = record.evaluation else { return }
        let sheet = AgentDesk.Sheet(handle: environment.cookies.cookie(), cookie: environment.cookies.cookie(), agent: agent.client,
                                    agentUID: agent.uid, language: agent.language, faceConsentPending: askFace)
        agentDesk.sheets[id] = sheet
        let app = record.options.appIdentity ?? "unknown"
        environment.agentObserver?.agentBegin(AgentRequest(
            handle: sheet.handle, cookie: sheet.cookie!, app: app, user: record.user, policy: evaluation.policy,
            reason: evaluation.reason, fallbackTitle: record.options.localizedFallbackTitle,
            cancelTitle: record.options.localizedCancelTitle, biometry: usable,
            passcodeAllowed: evaluation.machine.kind == .biometricsOrPasscode,
            title: environment.messages.title(agent.language),
            faceUsageDescription: askFace ? record.options.faceUsageDescription : nil,
            faceConsentQuestion: askFace ? environment.messages.faceConsentQuestion(app: app, agent.language) : nil), agent: agent.client)
    }

    /// Sensors the evaluation may not arm yet (face while its consent question is open).
    func heldBackSensors(_ id: ContextID) -> BiometricModalitySet {
        agentDesk.sheets[id]?.faceConsentPending == true ? [.face] : []
    }

    /// Shows a prompt: to the sheet's agent, and to the app unless it asks for a passcode the app may not take.
    func show(_ prompt: Prompt, on id: ContextID) {
        guard let record = contexts[id] else { return }
        if let sheet = agentDesk.sheets[id], let detail = prompt.detail {
            environment.agentObserver?.agentUpdate(AgentUpdate(
                handle: sheet.handle, cookie: sheet.cookie ?? "", kind: AgentUpdateKind.prompt(prompt.kind).rawValue, advice: detail.advice,
                sensors: detail.sensors, message: environment.messages.sentence(detail, sheet.language)), agent: sheet.agent)
        }
        if !prompt.isPasscodeRequest || appMayTakePasscode(record) {
            environment.observer?.prompt(prompt, context: id, owner: record.owner)
        }
    }

    /// Whether the app itself may submit the passcode (``Configuration/appPasscodeEntry``, or a
    /// login's or sudo's context).
    func appMayTakePasscode(_ record: ContextRecord) -> Bool {
        configuration.appPasscodeEntry || record.options.isPrivilegedConversation
    }

    /// Whether someone can take the passcode for this evaluation; otherwise policy 2 ends with
    /// notInteractive when it needs it.
    func passcodeCanBeTaken(_ id: ContextID) -> Bool {
        guard let record = contexts[id] else { return false }
        return agentDesk.sheets[id] != nil || appMayTakePasscode(record)
    }

    /// The evaluation ended: its agent is told and its cookie dies.
    func closeSheet(_ id: ContextID, _ result: Result<EvaluationSuccess, LocalAuthError>) {
        guard let sheet = agentDesk.sheets.removeValue(forKey: id) else { return }
        let name: String
        switch result {
        case .success: name = "success"
        case .failure(let error): name = error.code?.name ?? "SystemCancel"
        }
        environment.agentObserver?.agentEnd(handle: sheet.handle, result: name, agent: sheet.agent)
    }

    /// The agent left or unregistered: its sheets are gone; their evaluations go on (sensors,
    /// cancel and the timeout still end them) without anyone to take the passcode. A face consent
    /// question left unanswered is a no for this evaluation (nothing is stored).
    func dropAgent(_ client: ClientID) {
        for (id, sheet) in agentDesk.remove(client) {
            dirty.insert(id)
            if sheet.faceConsentPending { handle(.sensorLost(.face), on: id) }
        }
    }

    private func issueCookie(_ id: ContextID) {
        guard let sheet = agentDesk.sheets[id] else { return }
        let cookie = environment.cookies.cookie()
        agentDesk.sheets[id]?.cookie = cookie
        environment.agentObserver?.agentUpdate(AgentUpdate(
            handle: sheet.handle, cookie: cookie, kind: AgentUpdateKind.ready.rawValue, advice: "", sensors: [],
            message: environment.messages.ready(sheet.language)), agent: sheet.agent)
    }

    /// The login session of `client`'s process, looked up once per connection.
    func session(of client: ClientID) -> LoginSession? {
        if let known = clientSessions[client] { return known }
        guard let pid = clientPIDs[client] else { return nil }
        let session = environment.sessionLookup?.session(ofProcess: pid)
        clientSessions[client] = session
        return session
    }
}
