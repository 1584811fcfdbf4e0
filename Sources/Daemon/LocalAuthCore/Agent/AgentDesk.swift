// SPDX-License-Identifier: Apache-2.0
/// Registered agents and the sheets they show: pure bookkeeping, owned by ``PolicyEngine``'s actor.
struct AgentDesk: Sendable {
    /// One sheet: an evaluation shown by an agent.
    struct Sheet: Sendable {
        let handle: String
        /// The cookie the next answer must carry; nil while an answer is being handled (cookies are
        /// single-use: a second answer with the same one finds none).
        var cookie: String?
        let agent: ClientID
        let agentUID: UInt32
        let language: MessageCatalog.Language
        /// The face sensor waits for the user's answer to the consent question.
        var faceConsentPending: Bool
    }

    /// Agents a uid may register (fallback ones; a session has one).
    static let maximumAgentsPerUser = 8
    static let maximumAgents = 1024

    private(set) var agents: [ClientID: AgentRegistration] = [:]
    var sheets: [ContextID: Sheet] = [:]

    mutating func add(client: ClientID, uid: UInt32, scope: AgentScope,
                      language: MessageCatalog.Language) throws(LocalAuthError) {
        guard agents[client] == nil else {
            throw LocalAuthError(.busy, "This connection is already registered as an agent; unregister first.")
        }
        if case .session(let session) = scope, agents.values.contains(where: { $0.scope == scope }) {
            throw LocalAuthError(.busy, "Session \(DisplayText.escaped(session, limit: 64)) already has an agent; only one agent per session shows prompts.")
        }
        // The first fallback agent serves until it leaves: a later one must not take over the
        // sheets (and passcodes) of this uid's apps.
        if scope == .fallback, agents.values.contains(where: { $0.scope == .fallback && $0.uid == uid }) {
            throw LocalAuthError(.busy, "A fallback agent is already registered for this user and shows its prompts; stop it (or let it unregister) first.")
        }
        guard agents.values.filter({ $0.uid == uid }).count < Self.maximumAgentsPerUser, agents.count < Self.maximumAgents else {
            throw LocalAuthError(.limitsExceeded, "Too many agents are registered for this user; stop some before registering more.")
        }
        agents[client] = AgentRegistration(client: client, uid: uid, scope: scope, language: language)
    }

    /// Removes the agent's registration; returns the sheets it showed.
    mutating func remove(_ client: ClientID) -> [ContextID: Sheet] {
        agents[client] = nil
        let shown = sheets.filter { $0.value.agent == client }
        for id in shown.keys { sheets[id] = nil }
        return shown
    }

    /// The agent that shows evaluations of `owner` (a process in `session`, or in none) for `user`.
    func agent(owner: ClientID, session: LoginSession?, user: UInt32, includingOwn: Bool = true) -> AgentRegistration? {
        if includingOwn, let own = agents[owner], own.scope == .ownContexts, own.uid == user { return own }
        if let session {
            guard session.owner == user else { return nil }
            return agents.values.first { $0.scope == .session(session.id) && $0.uid == user }
        }
        return agents.values.first { $0.scope == .fallback && $0.uid == user }
    }

    /// The sheet whose cookie is `cookie`, compared in constant time per sheet.
    func sheet(withCookie cookie: String) -> (ContextID, Sheet)? {
        let wanted = Array(cookie.utf8)
        var found: (ContextID, Sheet)?
        for (id, sheet) in sheets {
            guard let current = sheet.cookie else { continue }
            if Self.constantTimeEqual(Array(current.utf8), wanted) { found = (id, sheet) }
        }
        return found
    }

    private static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }
}
