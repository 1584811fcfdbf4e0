// SPDX-License-Identifier: Apache-2.0
/// Rights: per user and application, saved with a requirement, a new P-256 key and an optional
/// secret; authorized in a context by evaluating the requirement; used (secret, sign, decrypt,
/// key exchange) only while authorized. And the stored login password (the login keyring).
///
/// `app` is the caller's application identity as the transport resolved it (as for face consent);
/// nil (unidentified) is refused. Another app's or user's right reads as not found. Every change is
/// durable before the reply and changes nothing in memory when it cannot be saved. Audit entries
/// never carry secrets, plaintexts or keys.
extension PolicyEngine {
    /// How rights are protected at rest; nil when the vault could not be opened (rights unavailable).
    /// Opens the vault if no rights call did yet.
    public nonisolated var keyProtection: KeyProtection? {
        try? environment.vault.result.get().protection
    }

    /// The stored login password's lifetime after the biometric match that releases it.
    public static let loginPasswordReleaseWindow: Double = 30

    // MARK: Saved rights

    /// Saves (or replaces) the caller's app's right `identifier`: a new key and generation, the
    /// secret sealed; authorizations of the right it replaces end.
    public func saveRight(_ identifier: String, requirement: String, secret: SecretBytes?, app: String?,
                          caller: Caller) async throws(LocalAuthError) -> RightInfo {
        remember(caller)
        let app = try identifiedApp(app)
        try UserRights.validateIdentifier(identifier)
        let parsed = try AuthenticationRequirement(parsing: requirement)
        let secret = secret.flatMap { $0.isEmpty ? nil : $0 }
        if let secret, secret.count > UserRights.maximumSecretLength {
            throw LocalAuthError(.invalidArgument, "A right's secret may be at most \(UserRights.maximumSecretLength) bytes (this one has \(secret.count)).")
        }
        return try await save(RightKey(application: app, identifier: identifier), requirement: parsed, secret: secret, user: caller.uid, client: caller.client)
    }

    /// The caller's app's right `identifier`.
    public func right(_ identifier: String, app: String?, caller: Caller) throws(LocalAuthError) -> RightInfo {
        remember(caller)
        let app = try identifiedApp(app)
        try UserRights.validateIdentifier(identifier)
        guard let record = try book(of: caller.uid).record(RightKey(application: app, identifier: identifier)) else { throw Self.rightNotFound }
        return RightInfo(record, domainStateNow: domainState(of: caller.uid))
    }

    /// The caller's app's rights, or (`allApplications`, for unconfined callers: the transport
    /// checks) every right of the caller's user; sorted by application, then identifier.
    public func rights(app: String?, allApplications: Bool, caller: Caller) throws(LocalAuthError) -> [(application: String, identifier: String)] {
        remember(caller)
        let app = allApplications ? nil : try identifiedApp(app)
        return try book(of: caller.uid).all.filter { app == nil || $0.application == app }.map { ($0.application, $0.identifier) }
    }

    /// Removes the caller's app's right `identifier`; its authorizations end.
    public func removeRight(_ identifier: String, app: String?, caller: Caller) async throws(LocalAuthError) {
        remember(caller)
        let app = try identifiedApp(app)
        try UserRights.validateIdentifier(identifier)
        try await remove(RightKey(application: app, identifier: identifier), user: caller.uid, client: caller.client)
    }

    /// Removes every right of the caller's app (none is no error).
    public func removeAllRights(app: String?, caller: Caller) async throws(LocalAuthError) {
        remember(caller)
        let app = try identifiedApp(app)
        try takeChange(of: caller.uid)
        try await changeRights(of: caller.uid, client: caller.client) { book in
            let removed = book.removeAll(of: app)
            return removed == 0 ? nil : "Removed the \(removed) rights of \(DisplayText.escaped(app, limit: 128))."
        }
    }

    /// The user removes another app's right (unconfined callers: the transport checks), proving
    /// it with the passcode, which is checked and counted as any passcode is.
    public func removeApplicationRight(_ identifier: String, application: String, passcode: Passcode, caller: Caller) async throws(LocalAuthError) {
        remember(caller)
        try UserRights.validateIdentifier(identifier)
        guard !application.isEmpty, application.utf8.count <= 4096 else {
            throw LocalAuthError(.invalidArgument, "Name the right's application as ListRights shows it.")
        }
        try await requirePasscode(passcode, user: caller.uid, client: caller.client)
        try await remove(RightKey(application: application, identifier: identifier), user: caller.uid, client: caller.client)
    }

    // MARK: Public-key operations (no authorization)

    /// Encrypts for a right's public key (LAPublicKey.encrypt); needs no authorization.
    public func encrypt(_ plaintext: [UInt8], algorithm: String, publicKey: [UInt8], caller: Caller) throws(LocalAuthError) -> [UInt8] {
        remember(caller)
        let algorithm = try Self.algorithm(algorithm)
        try Self.checkDataSize(plaintext.count, name: "plaintext")
        try Self.checkDataSize(publicKey.count, name: "public key")
        let vault = try openVault()
        try takeOperation(of: caller.uid)
        return try Self.vaultCall { () throws(RightVaultError) in try vault.encrypt(plaintext, algorithm: algorithm, publicKey: publicKey) }
    }

    /// Whether `signature` is `publicKey`'s signature of `data` (LAPublicKey.verify).
    public func verify(_ data: [UInt8], signature: [UInt8], algorithm: String, publicKey: [UInt8], caller: Caller) throws(LocalAuthError) -> Bool {
        remember(caller)
        let algorithm = try Self.algorithm(algorithm)
        try Self.checkDataSize(data.count, name: "signed data")
        try Self.checkDataSize(signature.count, name: "signature")
        try Self.checkDataSize(publicKey.count, name: "public key")
        let vault = try openVault()
        try takeOperation(of: caller.uid)
        return try Self.vaultCall { () throws(RightVaultError) in try vault.verify(data, signature: signature, algorithm: algorithm, publicKey: publicKey) }
    }

    // MARK: The login password

    /// Stores (or replaces) the caller's login password as a right of the login keyring
    /// (requirement `biometry`); unconfined callers only (the transport checks).
    public func storeLoginPassword(_ password: Passcode, caller: Caller) async throws(LocalAuthError) {
        remember(caller)
        guard !password.isEmpty, password.count <= UserRights.maximumSecretLength else {
            throw LocalAuthError(.invalidArgument, "The login password must be 1 to \(UserRights.maximumSecretLength) bytes long.")
        }
        let secret = password.withBytes { SecretBytes(bytes: $0) }
        _ = try await save(Self.loginKey, requirement: AuthenticationRequirement([.biometry]), secret: secret, user: caller.uid, client: caller.client)
    }

    /// Removes the caller's stored login password; rightNotFound when none is stored.
    public func removeLoginPassword(caller: Caller) async throws(LocalAuthError) {
        remember(caller)
        try await remove(Self.loginKey, user: caller.uid, client: caller.client)
    }

    /// The stored login password of the context's user, to root's context created with `User`
    /// (the PAM module's) whose last evaluation succeeded by a biometric match at most
    /// ``loginPasswordReleaseWindow`` seconds ago; once per context.
    public func releaseLoginPassword(context id: ContextID, caller: ClientID) throws(LocalAuthError) -> SecretBytes {
        let record = try ownedContext(id, caller: caller)
        guard record.ownerUID == 0 else { throw LocalAuthError(.accessDenied, "Only root (the PAM module) may release the stored login password.") }
        guard let right = try book(of: record.user).record(Self.loginKey) else {
            throw LocalAuthError(.rightNotFound, "uid \(record.user) has no stored login password (localauth keyring enroll stores it).")
        }
        let now = environment.clock.uptime()
        guard record.options.user != nil, !record.loginPasswordReleased, let match = record.lastBiometricMatch, match.boot == now.boot,
              now.seconds - match.seconds <= Self.loginPasswordReleaseWindow else {
            recordAudit(AuditEntry(.loginPassword, severity: .notice, user: record.user, client: caller.rawValue, result: "RightNotAuthorized",
                                   message: "The stored login password was not released: the context's last evaluation was no biometric match of the last \(Int(Self.loginPasswordReleaseWindow)) s, or it was released before."))
            throw LocalAuthError(.rightNotAuthorized, "The login password is released only once, within \(Int(Self.loginPasswordReleaseWindow)) s of a biometric match in a context created with User, and never after a passcode or password.")
        }
        let vault = try openVault()
        let secret = try unsealSecret(of: right, user: record.user, vault: vault)
        contexts[id]?.loginPasswordReleased = true
        // The generation released: DiscardLoginPassword removes that password only, never one stored since.
        contexts[id]?.authorizedRights[Self.loginKey] = right.generation
        recordAudit(AuditEntry(.loginPassword, severity: .notice, user: record.user, client: caller.rawValue, result: "released",
                               message: "The stored login password was released after a biometric match."))
        return secret
    }

    /// Removes the stored login password the context released, when it did not work (the user
    /// changed it); root only, the same context after ``releaseLoginPassword(context:caller:)``.
    public func discardLoginPassword(context id: ContextID, caller: ClientID) async throws(LocalAuthError) {
        let record = try ownedContext(id, caller: caller)
        guard record.ownerUID == 0 else { throw LocalAuthError(.accessDenied, "Only root (the PAM module) may discard the stored login password.") }
        guard record.loginPasswordReleased else {
            throw LocalAuthError(.rightNotAuthorized, "Only the context that released the stored login password may discard it.")
        }
        // Changes of the stored password end this entry (as they end authorizations): the one released is gone.
        let replaced = LocalAuthError(.rightNotFound, "The login password this context released is no longer stored (it was replaced or removed since); nothing was removed.")
        guard let released = record.authorizedRights[Self.loginKey] else { throw replaced }
        try takeChange(of: record.user)
        try await changeRights(of: record.user, client: caller) { (book) throws(LocalAuthError) in
            guard book.record(Self.loginKey)?.generation == released, book.remove(Self.loginKey) != nil else { throw replaced }
            return "Right \(Self.name(Self.loginKey)) discarded (it no longer worked)."
        }
    }

    // MARK: Authorization in a context

    /// Evaluates the right's requirement in the context (as EvaluatePolicy: prompts, counting,
    /// lockout) and on success holds it authorized until DeauthorizeRight, Invalidate, the owner
    /// leaving, or the right's removal or replacement. `completion` is called once, on the engine.
    public func beginRightAuthorization(_ identifier: String, reason: String, context id: ContextID, caller: ClientID,
                                        completion reply: @escaping @Sendable (Result<Void, LocalAuthError>) -> Void) {
        do throws(LocalAuthError) {
            let record = try ownedContext(id, caller: caller)
            let (key, right) = try ownRight(identifier, in: record)
            let steps = try RightAuthorization.steps(for: right.parsedRequirement, currentSetValid: !right.isInvalidated(domainStateNow: domainState(of: record.user)))
            try beginSteps(steps, right: key, generation: right.generation, reason: reason, record: record, reply: reply)
        } catch {
            auditRight(error, identifier: identifier, context: id, caller: caller)
            reply(.failure(error))
        }
    }

    /// Whether ``beginRightAuthorization(_:reason:context:caller:completion:)`` could succeed now
    /// (the refusals it would start with), without asking the user.
    public func checkCanAuthorizeRight(_ identifier: String, context id: ContextID, caller: ClientID) throws(LocalAuthError) {
        let record = try ownedContext(id, caller: caller)
        let (_, right) = try ownRight(identifier, in: record)
        let steps = try RightAuthorization.steps(for: right.parsedRequirement, currentSetValid: !right.isInvalidated(domainStateNow: domainState(of: record.user)))
        for step in steps {
            if let refusal = refusal(of: step, record) { throw refusal }
        }
    }

    /// Ends the context's authorization of the right; does nothing when it is not authorized.
    public func deauthorizeRight(_ identifier: String, context id: ContextID, caller: ClientID) throws(LocalAuthError) {
        let record = try ownedContext(id, caller: caller)
        let (key, _) = try ownRight(identifier, in: record)
        if contexts[id]?.authorizedRights.removeValue(forKey: key) != nil {
            recordAudit(AuditEntry(.right, user: record.user, client: caller.rawValue, result: "deauthorized",
                                   message: "Right \(Self.name(key)) deauthorized."))
        }
    }

    /// Evaluates a requirement without a stored right (a non-persisted LARight, evaluateAccessControl).
    /// `domainState`: with a `biometry-current-set` term, the enrollments it is bound to.
    public func beginRequirementEvaluation(_ requirement: String, domainState expected: [UInt8]?, reason: String, context id: ContextID,
                                           caller: ClientID, completion reply: @escaping @Sendable (Result<Void, LocalAuthError>) -> Void) {
        do throws(LocalAuthError) {
            let record = try ownedContext(id, caller: caller)
            let steps = try requirementSteps(requirement, domainState: expected, user: record.user)
            try beginSteps(steps, right: nil, generation: 0, reason: reason, record: record, reply: reply)
        } catch {
            if let record = contexts[id] {
                recordAudit(AuditEntry(.right, severity: .notice, user: record.user, client: caller.rawValue, result: Self.resultName(error),
                                       message: "Requirement not evaluated: \(error.message)"))
            }
            reply(.failure(error))
        }
    }

    /// Whether ``beginRequirementEvaluation(_:domainState:reason:context:caller:completion:)`` could succeed now.
    public func canEvaluateRequirement(_ requirement: String, domainState expected: [UInt8]?, context id: ContextID, caller: ClientID) throws(LocalAuthError) {
        let record = try ownedContext(id, caller: caller)
        for step in try requirementSteps(requirement, domainState: expected, user: record.user) {
            if let refusal = refusal(of: step, record) { throw refusal }
        }
    }

    // MARK: Operations of an authorized right

    /// The right's secret; only while the context holds the right authorized.
    public func loadSecret(_ identifier: String, context id: ContextID, caller: ClientID) throws(LocalAuthError) -> SecretBytes {
        let (right, user) = try authorizedRight(identifier, context: id, caller: caller)
        guard right.sealedSecret != nil else {
            throw LocalAuthError(.invalidArgument, "The right \"\(DisplayText.escaped(identifier, limit: 64))\" was saved without a secret.")
        }
        let secret = try unsealSecret(of: right, user: user, vault: openVault())
        auditOperation("secret loaded", right: right, user: user, client: caller)
        return secret
    }

    /// Signs `data` with the right's private key (ECDSA, DER signature).
    public func sign(_ identifier: String, algorithm: String, data: [UInt8], context id: ContextID, caller: ClientID) throws(LocalAuthError) -> [UInt8] {
        let algorithm = try Self.algorithm(algorithm)
        try Self.checkDataSize(data.count, name: "data")
        return try withPrivateKey(of: identifier, context: id, caller: caller, audited: "signed") { vault, key, label throws(RightVaultError) in
            try vault.sign(data, algorithm: algorithm, sealedPrivateKey: key, label: label)
        }
    }

    /// Decrypts an ECIES ciphertext made for the right's public key.
    public func decrypt(_ identifier: String, algorithm: String, ciphertext: [UInt8], context id: ContextID, caller: ClientID) throws(LocalAuthError) -> SecretBytes {
        let algorithm = try Self.algorithm(algorithm)
        try Self.checkDataSize(ciphertext.count, name: "ciphertext")
        return try withPrivateKey(of: identifier, context: id, caller: caller, audited: "decrypted") { vault, key, label throws(RightVaultError) in
            try vault.decrypt(ciphertext, algorithm: algorithm, sealedPrivateKey: key, label: label)
        }
    }

    /// ECDH of the right's private key with `peerPublicKey` (raw, or with the X9.63 KDF).
    public func exchangeKeys(_ identifier: String, peerPublicKey: [UInt8], algorithm: String, requestedSize: Int, sharedInfo: [UInt8],
                             context id: ContextID, caller: ClientID) throws(LocalAuthError) -> SecretBytes {
        let algorithm = try Self.algorithm(algorithm)
        try Self.checkDataSize(peerPublicKey.count, name: "public key")
        try Self.checkDataSize(sharedInfo.count, name: "shared info")
        guard (0...UserRights.maximumDataLength).contains(requestedSize) else {
            throw LocalAuthError(.invalidArgument, "The requested size must be 0 to \(UserRights.maximumDataLength) bytes.")
        }
        return try withPrivateKey(of: identifier, context: id, caller: caller, audited: "exchanged keys") { vault, key, label throws(RightVaultError) in
            try vault.exchangeKeys(peerPublicKey: peerPublicKey, algorithm: algorithm, requestedSize: requestedSize, sharedInfo: sharedInfo,
                                   sealedPrivateKey: key, label: label)
        }
    }

    /// One private-key operation of the right `context` holds authorized: `body` gets the vault,
    /// the sealed private key and its label; the operation is audited as `event` once it succeeded.
    private func withPrivateKey<Value>(of identifier: String, context id: ContextID, caller: ClientID, audited event: String,
                                       _ body: (any RightVault, [UInt8], [UInt8]) throws(RightVaultError) -> Value) throws(LocalAuthError) -> Value {
        let (right, user) = try authorizedRight(identifier, context: id, caller: caller)
        let vault = try openVault()
        let value = try Self.vaultCall { () throws(RightVaultError) in try body(vault, right.sealedPrivateKey, right.label(user: user)) }
        auditOperation(event, right: right, user: user, client: caller)
        return value
    }

    // MARK: Passcode removal

    /// Removes every right of `uid` and its stored login password, durably (the passcode is going):
    /// an unreadable file is replaced by an empty one. Throws, changing nothing, when that cannot be saved.
    func removeEveryRight(of uid: UInt32, client: ClientID) async throws(LocalAuthError) {
        guard let store = environment.rightStore else { return }
        await beginSaveTurn(of: uid)
        defer { endSaveTurn(of: uid) }
        let before = try? book(of: uid)
        if before?.count == 0 { return }
        if case .failure(let error) = await saveElsewhere({ () throws(StateStoreError) in try store.saveRights([], user: uid) }) {
            reportRightsError("Could not remove the rights of uid \(uid) with its passcode: \(error.message)", user: uid)
            throw LocalAuthError(.serviceFailure, "Could not remove your rights (\(error.message)), so the passcode was not removed; try again.")
        }
        rightBooks[uid] = .success(UserRights())
        endAuthorizations(of: uid) { _ in true }
        recordAudit(AuditEntry(.right, severity: .notice, user: uid, client: client.rawValue, result: "removed",
                               message: "Every right (\(before.map { "\($0.count)" } ?? "unreadable")) and the stored login password removed with the passcode."))
        announceUserState(uid)
    }

    /// Whether `uid` has a stored login password (GetUserState's LoginPasswordStored); false while unreadable.
    func loginPasswordStored(_ uid: UInt32) -> Bool {
        (try? book(of: uid).record(Self.loginKey)) != nil
    }

    // MARK: Internals

    static let loginKey = RightKey(application: RightRecord.loginKeyringApplication, identifier: RightRecord.loginPasswordIdentifier)
    static let rightNotFound = LocalAuthError(.rightNotFound, "No such right for this application; save it first.")

    private func identifiedApp(_ app: String?) throws(LocalAuthError) -> String {
        guard let app, !app.isEmpty, app != RightRecord.loginKeyringApplication else {
            throw LocalAuthError(.accessDenied, "Rights belong to an application, and the service cannot tell which application this caller is.")
        }
        return app
    }

    private func openVault() throws(LocalAuthError) -> any RightVault {
        switch environment.vault.result {
        case .success(let vault): return vault
        case .failure(let error): throw LocalAuthError(.serviceFailure, error.message)
        }
    }

    /// The user's saved rights, loaded on first use. An unreadable file makes them unavailable
    /// (logged once), is read again at the next use, and is never taken for none.
    func book(of uid: UInt32) throws(LocalAuthError) -> UserRights {
        if case .success(let book)? = rightBooks[uid] { return book }
        guard let store = environment.rightStore else {
            throw LocalAuthError(.serviceFailure, "Rights are not available: the service was started without a place to save them.")
        }
        do throws(StateStoreError) {
            let book = UserRights(try store.loadRights(user: uid))
            rightBooks[uid] = .success(book)
            return book
        } catch {
            let refusal = LocalAuthError(.serviceFailure, "Your saved rights cannot be read now; an administrator finds why in localauthd's log. Nothing was changed.")
            if rightBooks[uid] == nil {
                reportRightsError("Could not read the rights of uid \(uid) (\(error.message)); they are unavailable until the file can be read.", user: uid)
            }
            rightBooks[uid] = .failure(refusal)
            throw refusal
        }
    }

    /// The right `identifier` of the context's app and user; rightNotFound for anything else.
    private func ownRight(_ identifier: String, in record: ContextRecord) throws(LocalAuthError) -> (RightKey, RightRecord) {
        let app = try identifiedApp(record.options.appIdentity)
        try UserRights.validateIdentifier(identifier)
        let key = RightKey(application: app, identifier: identifier)
        // A context acting for another user reaches none of that user's app rights.
        guard record.user == record.ownerUID, let right = try book(of: record.user).record(key) else { throw Self.rightNotFound }
        return (key, right)
    }

    /// The right, checked: still valid, authorized by this context at its generation, within the operation limit.
    private func authorizedRight(_ identifier: String, context id: ContextID, caller: ClientID) throws(LocalAuthError) -> (RightRecord, UInt32) {
        let record = try ownedContext(id, caller: caller)
        let (key, right) = try ownRight(identifier, in: record)
        if right.isInvalidated(domainStateNow: domainState(of: record.user)) { throw RightAuthorization.invalidated }
        guard record.authorizedRights[key] == right.generation else {
            throw LocalAuthError(.rightNotAuthorized, "The right \"\(DisplayText.escaped(identifier, limit: 64))\" is not authorized in this context; authorize it first.")
        }
        try takeOperation(of: record.user)
        return (right, record.user)
    }

    private func requirementSteps(_ requirement: String, domainState expected: [UInt8]?, user: UInt32) throws(LocalAuthError) -> [RightAuthorization.Step] {
        let parsed = try AuthenticationRequirement(parsing: requirement)
        if let expected, expected.count > 1024 {
            throw LocalAuthError(.invalidArgument, "The domain state is at most 1024 bytes (as evaluatedPolicyDomainState gives it).")
        }
        let valid = expected.map { $0 == domainState(of: user) } ?? true
        return try RightAuthorization.steps(for: parsed, currentSetValid: valid)
    }

    /// What refuses a step now (as canEvaluatePolicy): policy 1's or 2's rules, the passcode's for the passcode alone.
    private func refusal(of step: RightAuthorization.Step, _ record: ContextRecord) -> LocalAuthError? {
        let user = userRecord(record.user)
        return refusal(of: step.policy, for: user, applicant: record.foreignApplicant)
            ?? (step == .passcode ? nil : faceRefusal(of: step.policy, record, user: user))
    }

    private func beginSteps(_ steps: [RightAuthorization.Step], right: RightKey?, generation: UInt64, reason: String, record: ContextRecord,
                            reply: @escaping @Sendable (Result<Void, LocalAuthError>) -> Void) throws(LocalAuthError) {
        try ContextOptions.validateText(reason, name: "localized reason", allowEmpty: false)
        guard record.evaluation == nil, record.rightAuthorization == nil else {
            throw LocalAuthError(.busy, "This context is already evaluating a policy; wait for it to end or cancel it.")
        }
        guard !isShutDown else { throw LocalAuthError(.systemCancel, "The authentication service is shutting down.") }
        try requireSavedLedger(of: record.user)
        contexts[record.id]?.lastBiometricMatch = nil
        contexts[record.id]?.rightAuthorization = RightAuthorization(right: right, generation: generation, remaining: steps, reason: reason, reply: reply)
        runNextStep(record.id)
    }

    /// Starts the next evaluation of the context's right authorization, or ends it when none is left.
    private func runNextStep(_ id: ContextID) {
        guard let record = contexts[id], var authorization = record.rightAuthorization else { return }
        if let key = authorization.right, (try? book(of: record.user).record(key))?.generation != authorization.generation {
            return endAuthorization(id, .failure(Self.rightNotFound))
        }
        guard !authorization.remaining.isEmpty else { return endAuthorization(id, .success(())) }
        guard !isShutDown else { return endAuthorization(id, .failure(LocalAuthError(.systemCancel, "The authentication service is shutting down."))) }
        let step = authorization.remaining.removeFirst()
        contexts[id]?.rightAuthorization = authorization
        if let refusal = refusal(of: step, record) { return endAuthorization(id, .failure(refusal)) }
        guard !record.options.interactionNotAllowed else { return endAuthorization(id, .failure(LocalAuthError(.notInteractive))) }
        let reply = authorization.reply
        startInteractive(step.policy, passcodeOnly: step == .passcode, reason: authorization.reason, record: record,
                         user: userRecord(record.user)) { result in
            // Not from inside the evaluation's end: the next step starts in a turn of its own.
            Task { await self.stepEnded(id, result, reply: reply) }
        }
    }

    private func stepEnded(_ id: ContextID, _ result: EvaluationResult, reply: @escaping @Sendable (Result<Void, LocalAuthError>) -> Void) {
        guard contexts[id]?.rightAuthorization != nil else {
            // The context went away with its evaluation (Invalidate, the owner left).
            if case .failure(let error) = result { reply(.failure(error)) } else { reply(.failure(LocalAuthError(.appCancel))) }
            return
        }
        switch result {
        case .success(let success):
            if case .biometricMatch = success {} else { contexts[id]?.rightAuthorization?.onlyBiometricMatches = false }
            runNextStep(id)
        case .failure(let error): endAuthorization(id, .failure(error))
        }
        settle()
    }

    private func endAuthorization(_ id: ContextID, _ result: Result<Void, LocalAuthError>) {
        guard let record = contexts[id], let authorization = record.rightAuthorization else { return }
        contexts[id]?.rightAuthorization = nil
        // A requirement that failed, or took a passcode in any of its steps, is no biometric match.
        if case .failure = result { contexts[id]?.lastBiometricMatch = nil }
        if !authorization.onlyBiometricMatches { contexts[id]?.lastBiometricMatch = nil }
        let what = authorization.right.map { "Right \(Self.name($0))" } ?? "Requirement"
        switch result {
        case .success:
            if let key = authorization.right { contexts[id]?.authorizedRights[key] = authorization.generation }
            recordAudit(AuditEntry(.right, user: record.user, client: record.owner.rawValue, result: "authorized", message: "\(what) authorized."))
        case .failure(let error):
            recordAudit(AuditEntry(.right, severity: .notice, user: record.user, client: record.owner.rawValue, result: Self.resultName(error),
                                   message: "\(what) not authorized: \(error.message)"))
        }
        authorization.reply(result)
    }

    /// Saves `key` anew for `uid`: a new key pair and generation, the secret sealed for them.
    private func save(_ key: RightKey, requirement: AuthenticationRequirement, secret: SecretBytes?, user uid: UInt32,
                      client: ClientID) async throws(LocalAuthError) -> RightInfo {
        let vault = try openVault()
        let user = userRecord(uid)
        if user.profileDamaged { throw Self.damagedProfile }
        guard user.profile.hasPasscode else { throw LocalAuthError(.passcodeNotSet, "A right needs the passcode set; set one with `localauth passcode set`.") }
        if requirement.terms.contains(where: { $0 == .biometry || $0 == .biometryCurrentSet }), user.profile.enrollments.isEmpty {
            throw LocalAuthError(.biometryNotEnrolled, "This requirement needs biometry, and no finger or face is enrolled.")
        }
        try takeChange(of: uid)
        var info: RightInfo?
        try await changeRights(of: uid, client: client) { (book) throws(LocalAuthError) in
            // The passcode may have gone (or be going) while this waited for the user's turn.
            guard !users.isRemovingPasscode(uid), userRecord(uid).profile.hasPasscode else { throw LocalAuthError(.passcodeNotSet) }
            try book.checkRoom(for: key, secretCount: secret?.count ?? 0)
            let generation = environment.cookies.randomNumbers(1)[0]
            let label = RightRecord.label(user: uid, application: key.application, identifier: key.identifier, generation: generation)
            let (sealedKey, publicKey, sealedSecret) = try Self.vaultCall { () throws(RightVaultError) in
                let (sealedKey, publicKey) = try vault.makeKey(label: label)
                return (sealedKey, publicKey, try secret.map { (secret) throws(RightVaultError) in try vault.seal(secret, label: label) })
            }
            let domainState = requirement.needsCurrentSet ? domainState(of: uid) : nil
            let record = RightRecord(identifier: key.identifier, application: key.application, requirement: requirement.description,
                                     generation: generation, created: UInt64(max(0, environment.clock.now().seconds)), publicKey: publicKey,
                                     sealedPrivateKey: sealedKey, sealedSecret: sealedSecret, domainState: domainState)
            let replaced = book.record(key) != nil
            book.insert(record)
            info = RightInfo(record, domainStateNow: domainState ?? [])
            return "Right \(Self.name(key)) \(replaced ? "replaced" : "saved") (requirement \(requirement), \(secret == nil ? "no secret" : "with a secret"))."
        }
        return info!
    }

    private func remove(_ key: RightKey, user uid: UInt32, client: ClientID) async throws(LocalAuthError) {
        guard try book(of: uid).record(key) != nil else {
            throw key == Self.loginKey ? LocalAuthError(.rightNotFound, "No login password is stored.") : Self.rightNotFound
        }
        try takeChange(of: uid)
        try await changeRights(of: uid, client: client) { (book) throws(LocalAuthError) in
            guard book.remove(key) != nil else {
                throw key == Self.loginKey ? LocalAuthError(.rightNotFound, "No login password is stored.") : Self.rightNotFound
            }
            return "Right \(Self.name(key)) removed."
        }
    }

    /// In the user's save turn: applies `change` to a copy of the user's rights (it returns the
    /// audit message, nil for no change), saves it durably, and only then takes it; ends every
    /// authorization of a right that went or got a new generation.
    private func changeRights(of uid: UInt32, client: ClientID, _ change: (inout UserRights) throws(LocalAuthError) -> String?) async throws(LocalAuthError) {
        guard let store = environment.rightStore else {
            throw LocalAuthError(.serviceFailure, "Rights are not available: the service was started without a place to save them.")
        }
        await beginSaveTurn(of: uid)
        defer { endSaveTurn(of: uid) }
        let before = try book(of: uid)
        var after = before
        guard let message = try change(&after) else { return }
        let records = after.all
        if case .failure(let error) = await saveElsewhere({ () throws(StateStoreError) in try store.saveRights(records, user: uid) }) {
            reportRightsError("Could not save the rights of uid \(uid): \(error.message)", user: uid)
            throw LocalAuthError(.serviceFailure, "Could not save the change (\(error.message)); nothing was changed.")
        }
        rightBooks[uid] = .success(after)
        endAuthorizations(of: uid) { key, generation in after.record(key)?.generation != generation }
        recordAudit(AuditEntry(.right, severity: .notice, user: uid, client: client.rawValue, result: "changed", message: message))
        if before.record(Self.loginKey) != after.record(Self.loginKey) { announceUserState(uid) }
    }

    /// Drops the authorizations of `uid`'s contexts that `ended` says are over.
    private func endAuthorizations(of uid: UInt32, where ended: (RightKey, UInt64) -> Bool) {
        for (id, record) in contexts where record.user == uid && !record.authorizedRights.isEmpty {
            contexts[id]?.authorizedRights = record.authorizedRights.filter { !ended($0.key, $0.value) }
        }
    }

    private func endAuthorizations(of uid: UInt32, _ ended: (RightKey) -> Bool) {
        endAuthorizations(of: uid) { key, _ in ended(key) }
    }

    private func announceUserState(_ uid: UInt32) {
        environment.observer?.userStateChanged(uid, userState(of: uid))
    }

    private func takeChange(of uid: UInt32) throws(LocalAuthError) {
        var limiter = rightChangeLimiters[uid] ?? RightChangeLimiter()
        try limiter.take(at: environment.clock.uptime())
        rightChangeLimiters[uid] = limiter
    }

    private func takeOperation(of uid: UInt32) throws(LocalAuthError) {
        var limiter = rightOperationLimiters[uid] ?? .operations
        try limiter.take(at: environment.clock.uptime(), what: "key and secret operations")
        rightOperationLimiters[uid] = limiter
    }

    private func unsealSecret(of right: RightRecord, user: UInt32, vault: any RightVault) throws(LocalAuthError) -> SecretBytes {
        guard let sealed = right.sealedSecret else { throw LocalAuthError(.invalidArgument, "This right was saved without a secret.") }
        return try Self.vaultCall { () throws(RightVaultError) in try vault.unseal(sealed, label: right.label(user: user)) }
    }

    private func auditOperation(_ what: String, right: RightRecord, user: UInt32, client: ClientID) {
        recordAudit(AuditEntry(.right, user: user, client: client.rawValue, result: "used",
                               message: "Right \(Self.name(RightKey(application: right.application, identifier: right.identifier))): \(what)."))
    }

    private func auditRight(_ error: LocalAuthError, identifier: String, context id: ContextID, caller: ClientID) {
        guard let record = contexts[id] else { return }
        recordAudit(AuditEntry(.right, severity: .notice, user: record.user, client: caller.rawValue, result: Self.resultName(error),
                               message: "Right \"\(DisplayText.escaped(identifier, limit: 64))\" not authorized: \(error.message)"))
    }

    private func reportRightsError(_ message: String, user: UInt32) {
        recordAudit(AuditEntry(.stateError, severity: .error, user: user, result: "rights-unavailable", message: message))
    }

    static func name(_ key: RightKey) -> String {
        "\"\(DisplayText.escaped(key.identifier, limit: 64))\" of \(DisplayText.escaped(key.application, limit: 128))"
    }

    static func resultName(_ error: LocalAuthError) -> String {
        switch error.kind {
        case .authentication(let code): code.name
        case .rightNotFound: "RightNotFound"
        case .rightNotAuthorized: "RightNotAuthorized"
        case .rightInvalidated: "RightInvalidated"
        default: "\(error.kind)"
        }
    }

    static func algorithm(_ name: String) throws(LocalAuthError) -> RightKeyAlgorithm {
        guard let algorithm = RightKeyAlgorithm(rawValue: name) else {
            throw LocalAuthError(.invalidArgument, "Unknown key algorithm \"\(DisplayText.escaped(name, limit: 64))\"; use one of: \(RightKeyAlgorithm.allCases.map(\.rawValue).joined(separator: ", ")).")
        }
        return algorithm
    }

    static func checkDataSize(_ count: Int, name: String) throws(LocalAuthError) {
        guard count <= UserRights.maximumDataLength else {
            throw LocalAuthError(.invalidArgument, "The \(name) may be at most \(UserRights.maximumDataLength) bytes (it has \(count)).")
        }
    }

    /// Runs a vault call: bad input is an invalid argument; anything else a service failure with the vault's sentence.
    static func vaultCall<Value>(_ body: () throws(RightVaultError) -> Value) throws(LocalAuthError) -> Value {
        do throws(RightVaultError) {
            return try body()
        } catch {
            throw LocalAuthError(error.kind == .invalidInput ? .invalidArgument : .serviceFailure, error.message)
        }
    }
}
