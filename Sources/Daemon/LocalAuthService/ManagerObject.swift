// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI
import LocalAuthCore
import LocalAuthDBus

/// `/org/localauth/LocalAuthentication1`, interface `…Manager`: contexts and the caller's own
/// user state. Translates only: access is the table's ``AccessStage``, every other rule the engine's.
struct ManagerObject: Sendable {
    let observer: BusObserver
    /// Enrollments that take captures on a provider, per calling connection.
    let enrollments: EnrollmentRegistry

    /// The Manager's table: one row per member of ``LocalAuthInterface/manager``, each its
    /// declaration and its handler below.
    func table(_ rows: BusTable) -> DBusVTable {
        let (observer, enrollments, stage) = (self.observer, self.enrollments, rows.stage)
        return DBusVTable(LocalAuthInterface.manager, methods: [
            rows.method(ManagerMethod.createContext, needs: .anyone, steps: { (engine: isolated PolicyEngine, request: BusRequest, options: [String: DBusValue]) in
                try Self.createContext(engine, request, options, stage: stage)
            }),
            rows.method(ManagerMethod.getUserState, needs: .anyone) { (engine: isolated PolicyEngine, request: BusRequest) in
                Self.getUserState(engine, request, observer: observer)
            },
            rows.method(ManagerMethod.setPasscode, needs: .unconfinedApp, Self.setPasscode),
            rows.method(ManagerMethod.removePasscode, needs: .unconfinedApp, Self.removePasscode),
            rows.method(ManagerMethod.enroll, needs: .unconfinedApp) { (engine: isolated PolicyEngine, request: BusRequest, name: String, label: String, secret: DBusSecret) in
                try await Self.enroll(engine, request, name, label, secret, enrollments: enrollments, connection: observer.connection)
            },
            rows.method(ManagerMethod.unenroll, needs: .unconfinedApp, Self.unenroll),
            rows.method(ManagerMethod.setRequireAttention, needs: .unconfinedApp, Self.setRequireAttention),
            rows.method(ManagerMethod.resetLockout, needs: .privilegedByEngine(.resetLockout), Self.resetLockout),
            // Not queued behind the caller's other calls, and not in the engine: only that
            // connection's own enrollment is cancelled.
            rows.immediate(ManagerMethod.cancelEnrollment) { call in
                if let sender = call.sender { enrollments.cancel(ClientID(sender)) }
                return .empty
            },
            rows.method(ManagerMethod.registerAgent, needs: .unconfinedApp, Self.registerAgent),
            rows.method(ManagerMethod.unregisterAgent, needs: .anyone, Self.unregisterAgent),
            rows.method(ManagerMethod.agentResponse, needs: .unconfinedApp, Self.agentResponse),
            rows.method(ManagerMethod.getFaceConsents, needs: .anyone, Self.getFaceConsents),
            rows.method(ManagerMethod.setFaceConsent, needs: .unconfinedApp, Self.setFaceConsent),
            rows.method(ManagerMethod.getBackends, needs: .anyone) { (engine: isolated PolicyEngine, _: BusRequest) in Self.backends(engine) },
        ], properties: rows.properties(needs: .anyone) { engine, _, _ in
            ["Version": .string(LocalAuthInterface.version), "Backends": Self.backends(engine)]
        })
    }

    // MARK: Handlers, one per method

    /// `User` and a true `Unlock` are the engine's to authorize (it asks polkit itself, and that
    /// waits); `Unlock: false` is refused alike, here.
    static func createContext(_ engine: isolated PolicyEngine, _ request: BusRequest, _ rawOptions: [String: DBusValue],
                              stage: AccessStage) throws -> BusTable.Step<String> {
        let decoded = try ContextOptionsDecoder.decode(rawOptions)
        var options = decoded.options
        options.appIdentity = try? request.bus.app.get().id
        guard decoded.namesUnlock || PolicyEngine.needsAuthorization(decoded.options) else {
            let id = try engine.createContext(for: request.caller, unprivilegedOptions: options)
            return .reply(LocalAuthBusNames.contextPath(id.rawValue))
        }
        return .wait { [options] engine in
            if decoded.namesUnlock && !decoded.options.isUnlockContext {
                try await stage.check(.privileged(.actForOtherUsers), request.bus)
            }
            let id = try await engine.createContext(for: request.caller, options: options)
            return LocalAuthBusNames.contextPath(id.rawValue)
        }
    }

    /// Also sends the caller `PropertiesChanged` of its user state from now on.
    static func getUserState(_ engine: isolated PolicyEngine, _ request: BusRequest, observer: BusObserver) -> [String: DBusValue]? {
        observer.watchUserState(request.client, uid: request.caller.uid)
        return encode(engine.userState(of: request.caller.uid))
    }

    static func setPasscode(_ engine: isolated PolicyEngine, _ request: BusRequest, _ current: DBusSecret, _ new: DBusSecret) async throws -> Void? {
        try await engine.setPasscode(current: Passcode(current), new: Passcode(new), caller: request.caller)
        return ()
    }

    static func removePasscode(_ engine: isolated PolicyEngine, _ request: BusRequest, _ current: DBusSecret) async throws -> Void? {
        try await engine.removePasscode(current: Passcode(current), caller: request.caller)
        return ()
    }

    /// On a provider, replies when the captures end, sending `EnrollProgress` to the caller only;
    /// the caller's later calls are not held up meanwhile (it may cancel), and one enrollment per
    /// connection runs at a time.
    static func enroll(_ engine: isolated PolicyEngine, _ request: BusRequest, _ name: String, _ label: String, _ secret: DBusSecret,
                       enrollments: EnrollmentRegistry, connection: DBusConnection) async throws -> Void? {
        let modality = try modality(name)
        let passcode = Passcode(secret)
        guard enrollments.capturing.contains(modality) else {
            try await engine.enroll(modality, label: label, passcode: passcode, caller: request.caller)
            return ()
        }
        let (client, caller, reply) = (request.client, request.caller, request.call.reply)
        let started = enrollments.start(client, { () -> Result<Void, LocalAuthError> in
            do throws(LocalAuthError) {
                try await engine.enroll(modality, label: label, passcode: passcode, caller: caller) { progress in
                    try? connection.emitSignal(
                        path: LocalAuthBusNames.managerPath, interface: LocalAuthBusNames.managerInterface, member: "EnrollProgress",
                        arguments: [.string(modality.rawValue), .string(progress.status.rawValue), .uint32(progress.completedStages),
                                    .uint32(progress.stages), .string(progress.detail)],
                        destination: client.rawValue)
                }
                return .success(())
            } catch {
                return .failure(error)
            }
        }, then: { outcome in
            switch outcome {
            case .success: reply.send((), as: BusWire.Nothing.self)
            case .failure(let error): reply.fail(error.dbusError)
            }
        })
        guard started else {
            throw LocalAuthError(.busy, "This connection is already enrolling; wait for it to end or call CancelEnrollment.")
        }
        return nil
    }

    static func unenroll(_ engine: isolated PolicyEngine, _ request: BusRequest, _ name: String, _ label: String, _ secret: DBusSecret) async throws -> Void? {
        try await engine.unenroll(try modality(name), label: label, passcode: Passcode(secret), caller: request.caller)
        return ()
    }

    static func setRequireAttention(_ engine: isolated PolicyEngine, _ request: BusRequest, _ enabled: Bool, _ secret: DBusSecret) async throws -> Void? {
        try await engine.setRequireAttention(enabled, passcode: Passcode(secret), caller: request.caller)
        return ()
    }

    static func resetLockout(_ engine: isolated PolicyEngine, _ request: BusRequest, _ uid: UInt32) async throws -> Void? {
        try await engine.resetLockout(user: uid, caller: request.caller)
        return ()
    }

    static func registerAgent(_ engine: isolated PolicyEngine, _ request: BusRequest, _ locale: String, _ options: [String: DBusValue]) throws -> Void? {
        try engine.registerAgent(request.caller, locale: locale, scope: try agentScope(options), app: try? request.bus.app.get())
        return ()
    }

    static func unregisterAgent(_ engine: isolated PolicyEngine, _ request: BusRequest) throws -> Void? {
        try engine.unregisterAgent(request.client)
        return ()
    }

    static func agentResponse(_ engine: isolated PolicyEngine, _ request: BusRequest, _ cookie: String, _ response: String,
                              _ secret: DBusSecret) async throws -> Void? {
        try await engine.agentResponse(cookie: cookie, try agentAnswer(response, Passcode(secret)), caller: request.caller)
        return ()
    }

    static func getFaceConsents(_ engine: isolated PolicyEngine, _ request: BusRequest) -> [(app: String, allowed: Bool)]? {
        engine.faceConsentDecisions(of: request.caller.uid).sorted { $0.key < $1.key }.map { (app: $0.key, allowed: $0.value) }
    }

    static func setFaceConsent(_ engine: isolated PolicyEngine, _ request: BusRequest, _ app: String, _ allowed: Bool,
                               _ secret: DBusSecret) async throws -> Void? {
        try await engine.setFaceConsent(app: app, allowed: allowed, passcode: Passcode(secret), caller: request.caller)
        return ()
    }

    /// The `Backends` property now: each backend's id, modality and availability (the fields of
    /// API 1.0, in place for positional readers), then Kind, ProviderVersion, State and Description.
    static func backends(_ engine: isolated PolicyEngine) -> DBusValue {
        .array(elementSignature: "(ssba{sv})", engine.backendStatus().map { status in
            let detail = status.detail ?? BackendDetail(kind: .builtIn, version: "", state: "available", description: "Passcode (Argon2id)")
            return .structure([.string(status.id), .string(status.modality), .bool(status.available), .vardict([
                LocalAuthBackendDetailKey.kind.rawValue: .string(detail.kind.rawValue),
                LocalAuthBackendDetailKey.providerVersion.rawValue: .string(detail.version),
                LocalAuthBackendDetailKey.state.rawValue: .string(detail.state),
                LocalAuthBackendDetailKey.description.rawValue: .string(detail.description),
            ])])
        })
    }

    static func agentScope(_ options: [String: DBusValue]) throws(DBusError) -> AgentScope.Requested {
        var chosen: [LocalAuthAgentOption] = []
        for (key, value) in options {
            guard let option = LocalAuthAgentOption(rawValue: key) else {
                throw .invalidArgs("Unknown option \"\(key)\"; known: \(LocalAuthAgentOption.allCases.map(\.rawValue).joined(separator: ", ")).")
            }
            guard let flag = value.bool else { throw .invalidArgs("Option \(key) must be of type b, not \(value.signature).") }
            if flag { chosen.append(option) }
        }
        switch chosen.first {
        case _ where chosen.count > 1:
            throw .invalidArgs("\(LocalAuthAgentOption.allCases.map(\.rawValue).joined(separator: " and ")) exclude each other; pass one.")
        case .fallback: return .fallback
        case .ownContexts: return .ownContexts
        case nil: return .session
        }
    }

    static func agentAnswer(_ response: String, _ passcode: Passcode) throws(DBusError) -> AgentAnswer {
        do { return try AgentAnswer(response: response, passcode: passcode) } catch { throw error.dbusError }
    }

    static func modality(_ name: String) throws(DBusError) -> BiometricModality {
        guard let modality = BiometricModality(rawValue: name) else {
            throw .invalidArgs("Unknown modality \"\(name)\"; use `fingerprint` or `face`.")
        }
        return modality
    }

    static func encode(_ state: UserState) -> [String: DBusValue] {
        var values: [String: DBusValue] = [:]
        for key in LocalAuthUserStateKey.allCases {
            values[key.rawValue] = switch key {
            case .passcodeSet: .bool(state.passcodeSet)
            case .enrollments:
                .array(elementSignature: "(ss)", state.enrollments.map { .structure([.string($0.modality.rawValue), .string($0.label)]) })
            case .biometryFailures: .uint32(UInt32(clamping: state.biometryFailures))
            case .biometryLockedOut: .bool(state.biometryLockedOut)
            case .passcodeFailures: .uint32(UInt32(clamping: state.passcodeFailures))
            case .passcodeRetryAfter: .uint64(state.passcodeRetryAfter.map { UInt64($0.seconds.rounded(.up)) } ?? 0)
            case .passcodeLockedOut: .bool(state.passcodeLockedOut)
            case .requireAttention: .bool(state.requireAttention)
            case .loginPasswordStored: .bool(state.loginPasswordStored)
            }
        }
        return values
    }
}

/// Reads `CreateContext`'s `a{sv}` options; unknown keys and wrong types are InvalidArgs.
enum ContextOptionsDecoder {
    struct Request: Sendable {
        var options = ContextOptions()
        /// `Unlock` was given, whatever its value: like `User`, it needs
        /// ``PrivilegedAction/actForOtherUsers``.
        var namesUnlock = false
    }

    static func decode(_ entries: [String: DBusValue]) throws(DBusError) -> Request {
        var request = Request()
        for (key, value) in entries {
            guard let option = LocalAuthContextOption(rawValue: key) else {
                throw .invalidArgs("Unknown option \"\(key)\"; known: \(LocalAuthContextOption.allCases.map(\.rawValue).joined(separator: ", ")).")
            }
            guard value.signature == option.signature else {
                throw .invalidArgs("Option \(key) must be of type \(option.signature), not \(value.signature).")
            }
            switch (option, value) {
            case (.localizedFallbackTitle, .string(let title)):
                request.options.localizedFallbackTitle = title
            case (.localizedCancelTitle, .string(let title)):
                request.options.localizedCancelTitle = title
            case (.interactionNotAllowed, .bool(let flag)):
                request.options.interactionNotAllowed = flag
            case (.allowableReuseDuration, .double(let seconds)):
                do { try request.options.setAllowableReuseDuration(seconds) } catch { throw error.dbusError }
            case (.user, .uint32(let uid)):
                request.options.user = uid
            case (.applicant, .uint32(let uid)):
                request.options.applicant = uid
            case (.unlock, .bool(let flag)):
                request.options.isUnlockContext = flag
                request.namesUnlock = true
            case (.faceUsageDescription, .string(let text)):
                do { try ContextOptions.validateText(text, name: "face usage description", allowEmpty: true) } catch { throw error.dbusError }
                request.options.faceUsageDescription = text
            default:
                throw .invalidArgs("Option \(key) must be of type \(option.signature), not \(value.signature).")
            }
        }
        return request
    }
}
