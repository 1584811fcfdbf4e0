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

    /// The Manager's table: one row per member of ``LocalAuthInterface/manager``.
    func table(_ rows: BusTable) -> DBusVTable {
        let (observer, enrollments) = (self.observer, self.enrollments)
        let stage = rows.stage
        return DBusVTable(LocalAuthInterface.manager, methods: [
            DBusVTable.Method(ManagerMethod.createContext) { call, rawOptions throws(DBusError) in
                let request = try ContextOptionsDecoder.decode(rawOptions)
                @Sendable func options(_ bus: BusCaller) -> ContextOptions {
                    var options = request.options
                    options.appIdentity = try? bus.app.get().id
                    return options
                }
                @Sendable func reply(_ id: ContextID) -> [DBusValue] { [.objectPath(LocalAuthBusNames.contextPath(id.rawValue))] }
                // The engine asks about User and a true Unlock itself; `Unlock: false` is refused alike.
                guard request.namesUnlock || PolicyEngine.needsAuthorization(request.options) else {
                    return rows.respond(call, needs: .anyone) { engine, bus in
                        reply(try engine.createContext(for: bus.caller, unprivilegedOptions: options(bus)))
                    }
                }
                return rows.respond(call, needs: .anyone) { engine, bus in
                    if request.namesUnlock && !request.options.isUnlockContext {
                        try await stage.check(.privileged(.actForOtherUsers), bus)
                    }
                    return reply(try await engine.createContext(for: bus.caller, options: options(bus)))
                }
            },
            rows.method(ManagerMethod.getUserState, needs: .anyone) { _ in
                { engine, bus in
                    observer.watchUserState(bus.caller.client, uid: bus.caller.uid)
                    return [Self.encode(engine.userState(of: bus.caller.uid))]
                }
            },
            rows.method(ManagerMethod.setPasscode, needs: .unconfinedApp) { _, currentSecret, newSecret throws(DBusError) in
                let current = Passcode(currentSecret), new = Passcode(newSecret)
                return { engine, bus in
                    try await engine.setPasscode(current: current, new: new, caller: bus.caller)
                    return []
                }
            },
            rows.method(ManagerMethod.removePasscode, needs: .unconfinedApp) { _, secret throws(DBusError) in
                let current = Passcode(secret)
                return { engine, bus in
                    try await engine.removePasscode(current: current, caller: bus.caller)
                    return []
                }
            },
            DBusVTable.Method(ManagerMethod.enroll) { call, name, label, secret throws(DBusError) in
                let modality = try Self.modality(name)
                let passcode = Passcode(secret)
                if enrollments.capturing.contains(modality) {
                    return enrollWithCaptures(call, rows, modality: modality, label: label, passcode: passcode)
                }
                return rows.respond(call, needs: .unconfinedApp) { engine, bus in
                    try await engine.enroll(modality, label: label, passcode: passcode, caller: bus.caller)
                    return []
                }
            },
            rows.method(ManagerMethod.unenroll, needs: .unconfinedApp) { _, name, label, secret throws(DBusError) in
                let modality = try Self.modality(name)
                let passcode = Passcode(secret)
                return { engine, bus in
                    try await engine.unenroll(modality, label: label, passcode: passcode, caller: bus.caller)
                    return []
                }
            },
            rows.method(ManagerMethod.setRequireAttention, needs: .unconfinedApp) { _, enabled, secret throws(DBusError) in
                let passcode = Passcode(secret)
                return { engine, bus in
                    try await engine.setRequireAttention(enabled, passcode: passcode, caller: bus.caller)
                    return []
                }
            },
            rows.method(ManagerMethod.resetLockout, needs: .privilegedByEngine(.resetLockout)) { _, uid throws(DBusError) in
                return { engine, bus in
                    try await engine.resetLockout(user: uid, caller: bus.caller)
                    return []
                }
            },
            // Not queued behind the caller's running Enroll: only that connection's own enrollment is cancelled.
            rows.immediate(ManagerMethod.cancelEnrollment) { call in
                if let sender = call.sender { enrollments.cancel(ClientID(sender)) }
                return .empty
            },
            rows.method(ManagerMethod.registerAgent, needs: .unconfinedApp) { _, locale, options throws(DBusError) in
                let scope = try Self.agentScope(options)
                return { engine, bus in
                    try engine.registerAgent(bus.caller, locale: locale, scope: scope, app: try? bus.app.get())
                    return []
                }
            },
            rows.method(ManagerMethod.unregisterAgent, needs: .anyone) { _ in
                { engine, bus in
                    try engine.unregisterAgent(bus.caller.client)
                    return []
                }
            },
            rows.method(ManagerMethod.agentResponse, needs: .unconfinedApp) { _, cookie, response, secret throws(DBusError) in
                let answer = try Self.agentAnswer(response, Passcode(secret))
                return { engine, bus in
                    try await engine.agentResponse(cookie: cookie, answer, caller: bus.caller)
                    return []
                }
            },
            rows.method(ManagerMethod.getFaceConsents, needs: .anyone) { _ in
                { engine, bus in
                    let decisions = engine.faceConsentDecisions(of: bus.caller.uid)
                    return [.array(elementSignature: "(sb)", decisions.sorted { $0.key < $1.key }.map { .structure([.string($0.key), .bool($0.value)]) })]
                }
            },
            rows.method(ManagerMethod.setFaceConsent, needs: .unconfinedApp) { _, app, allowed, secret throws(DBusError) in
                let passcode = Passcode(secret)
                return { engine, bus in
                    try await engine.setFaceConsent(app: app, allowed: allowed, passcode: passcode, caller: bus.caller)
                    return []
                }
            },
            rows.method(ManagerMethod.getBackends, needs: .anyone) { _ in { engine, _ in [Self.backends(engine)] } },
        ], properties: rows.properties(needs: .anyone) { engine, _, _ in
            ["Version": .string(LocalAuthInterface.version), "Backends": Self.backends(engine)]
        })
    }

    /// `Enroll` on a provider: replies when the captures end, sending `EnrollProgress` to the
    /// caller only. The caller's later requests are not held up (it may cancel meanwhile); one
    /// enrollment per connection runs at a time.
    private func enrollWithCaptures(_ call: DBusMethodCall, _ rows: BusTable, modality: BiometricModality, label: String, passcode: Passcode) -> DBusMethodReply {
        let (enrollments, connection) = (self.enrollments, observer.connection)
        let reply = call.reply
        return rows.respond(call, needs: .unconfinedApp) { engine, bus in
            let client = bus.caller.client
            let started = enrollments.start(client, { () -> Result<Void, LocalAuthError> in
                do throws(LocalAuthError) {
                    try await engine.enroll(modality, label: label, passcode: passcode, caller: bus.caller) { progress in
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
                case .success: reply.send([])
                case .failure(let error): reply.fail(error.dbusError)
                }
            })
            guard started else {
                throw LocalAuthError(.busy, "This connection is already enrolling; wait for it to end or call CancelEnrollment.")
            }
            return nil
        }
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
        var scope = AgentScope.Requested.session
        for (key, value) in options {
            guard let flag = value.bool else { throw .invalidArgs("Option \(key) must be of type b, not \(value.signature).") }
            switch key {
            case "Fallback": if flag { scope = .fallback }
            case "OwnContexts": if flag { scope = .ownContexts }
            default: throw .invalidArgs("Unknown option \"\(key)\"; known: Fallback, OwnContexts.")
            }
        }
        if options["Fallback"]?.bool == true, options["OwnContexts"]?.bool == true {
            throw .invalidArgs("Fallback and OwnContexts exclude each other; pass one.")
        }
        return scope
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

    static func encode(_ state: UserState) -> DBusValue {
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
        return .vardict(values)
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
