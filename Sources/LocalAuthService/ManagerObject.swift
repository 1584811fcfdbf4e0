// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI
import LocalAuthCore
import LocalAuthDBus

/// `/org/localauth/LocalAuthentication1`, interface `…Manager`: contexts and the caller's own
/// user state. Translates only; every rule is the engine's.
struct ManagerObject: Sendable {
    let engine: PolicyEngine
    let directory: CallerDirectory
    let observer: BusObserver
    /// Enrollments that take captures on a provider, per calling connection.
    let enrollments: EnrollmentRegistry
    /// The app identity of a process (``ProcessIdentity``), for per-app face consent.
    let identify: @Sendable (UInt32?) -> String?

    func handle(_ call: DBusMethodCall) throws(DBusError) -> DBusMethodReply {
        if let request = try DBusPropertyRequest(call) { return try properties(request, call) }
        _ = try CallCheck.method(of: call, in: BusContract.manager)
        var arguments = call.reader
        let engine = self.engine
        switch call.member {
        case "CreateContext":
            let decoded = try ContextOptionsDecoder.decode(try arguments.vardict())
            let identify = self.identify
            return directory.respond(to: call) { bus in
                var request = decoded
                request.options.appIdentity = identify(bus.credentials.pid) ?? "unidentified"
                // The engine asks about User and a true Unlock itself; `Unlock: false` is refused alike.
                if request.namesUnlock && !request.options.isUnlockContext {
                    try await engine.authorize(.actForOtherUsers, caller: bus.caller)
                }
                let id = try await engine.createContext(for: bus.caller, options: request.options)
                return [.objectPath(BusContract.contextPath(id.rawValue))]
            }
        case "GetUserState":
            let observer = self.observer
            return directory.respond(to: call) { bus in
                observer.watchUserState(bus.caller.client, uid: bus.caller.uid)
                return [Self.encode(await engine.userState(of: bus.caller.uid))]
            }
        case "SetPasscode":
            let current = Passcode(try arguments.secret()), new = Passcode(try arguments.secret())
            return directory.respond(to: call) { bus in
                try await engine.setPasscode(current: current, new: new, caller: bus.caller)
                return []
            }
        case "RemovePasscode":
            let current = Passcode(try arguments.secret())
            return directory.respond(to: call) { bus in
                try await engine.removePasscode(current: current, caller: bus.caller)
                return []
            }
        case "Enroll", "Unenroll":
            let modality = try Self.modality(try arguments.string())
            let label = try arguments.string()
            let passcode = Passcode(try arguments.secret())
            let enrolling = call.member == "Enroll"
            if enrolling && enrollments.capturing.contains(modality) {
                return enrollWithCaptures(call, modality: modality, label: label, passcode: passcode)
            }
            return directory.respond(to: call) { bus in
                if enrolling {
                    try await engine.enroll(modality, label: label, passcode: passcode, caller: bus.caller)
                } else {
                    try await engine.unenroll(modality, label: label, passcode: passcode, caller: bus.caller)
                }
                return []
            }
        case "SetRequireAttention":
            let enabled = try arguments.bool()
            let passcode = Passcode(try arguments.secret())
            return directory.respond(to: call) { bus in
                try await engine.setRequireAttention(enabled, passcode: passcode, caller: bus.caller)
                return []
            }
        case "ResetLockout":
            let uid = try arguments.uint32()
            return directory.respond(to: call) { bus in
                try await engine.resetLockout(user: uid, caller: bus.caller)
                return []
            }
        case "CancelEnrollment":
            // Not queued behind the caller's running Enroll: only that connection's own enrollment is cancelled.
            if let sender = call.sender { enrollments.cancel(ClientID(sender)) }
            return .empty
        case "RegisterAgent":
            let locale = try arguments.string()
            let scope = try Self.agentScope(try arguments.vardict())
            let identify = self.identify
            return directory.respond(to: call) { bus in
                try await engine.registerAgent(bus.caller, locale: locale, scope: scope, app: identify(bus.credentials.pid))
                return []
            }
        case "UnregisterAgent":
            return directory.respond(to: call) { bus in
                try await engine.unregisterAgent(bus.caller.client)
                return []
            }
        case "AgentResponse":
            let cookie = try arguments.string()
            let response = try arguments.string()
            let answer = try Self.agentAnswer(response, Passcode(try arguments.secret()))
            return directory.respond(to: call) { bus in
                try await engine.agentResponse(cookie: cookie, answer, caller: bus.caller)
                return []
            }
        case "GetFaceConsents":
            return directory.respond(to: call) { bus in
                let decisions = await engine.faceConsentDecisions(of: bus.caller.uid)
                return [.array(elementSignature: "(sb)", decisions.sorted { $0.key < $1.key }.map { .structure([.string($0.key), .bool($0.value)]) })]
            }
        case "SetFaceConsent":
            let app = try arguments.string()
            let allowed = try arguments.bool()
            let passcode = Passcode(try arguments.secret())
            return directory.respond(to: call) { bus in
                try await engine.setFaceConsent(app: app, allowed: allowed, passcode: passcode, caller: bus.caller)
                return []
            }
        default:
            throw .unknownMember(call.member, of: BusContract.manager)
        }
    }

    /// `Enroll` on a provider: replies when the captures end, sending `EnrollProgress` to the
    /// caller only. The caller's later requests are not held up (it may cancel meanwhile); one
    /// enrollment per connection runs at a time.
    private func enrollWithCaptures(_ call: DBusMethodCall, modality: BiometricModality, label: String, passcode: Passcode) -> DBusMethodReply {
        let (engine, enrollments, connection) = (self.engine, self.enrollments, observer.connection)
        let reply = call.reply
        return directory.respond(to: call) { bus in
            let client = bus.caller.client
            let started = enrollments.start(client) {
                do throws(LocalAuthError) {
                    try await engine.enroll(modality, label: label, passcode: passcode, caller: bus.caller) { progress in
                        try? connection.emitSignal(
                            path: BusContract.managerPath, interface: BusContract.manager.name, member: "EnrollProgress",
                            arguments: [.string(modality.rawValue), .string(progress.status.rawValue), .uint32(progress.completedStages),
                                        .uint32(progress.stages), .string(progress.detail)],
                            destination: client.rawValue)
                    }
                    reply.send([])
                } catch {
                    reply.fail(error.dbusError)
                }
            }
            guard started else {
                throw LocalAuthError(.busy, "This connection is already enrolling; wait for it to end or call CancelEnrollment.")
            }
            return nil
        }
    }

    private func properties(_ request: DBusPropertyRequest, _ call: DBusMethodCall) throws(DBusError) -> DBusMethodReply {
        let engine = self.engine
        switch request {
        case .get(let interface, let name):
            try CallCheck.interface(interface, is: BusContract.manager)
            guard BusContract.manager.property(name) != nil else { throw .unknownProperty(name, of: BusContract.manager) }
            return directory.respond(to: call) { _ in [.variant(try await Self.values(engine)[name]!)] }
        case .getAll(let interface):
            try CallCheck.interface(interface, is: BusContract.manager)
            return directory.respond(to: call) { _ in [.vardict(try await Self.values(engine))] }
        case .set(let interface, let name, _):
            try CallCheck.interface(interface, is: BusContract.manager)
            guard BusContract.manager.property(name) != nil else { throw .unknownProperty(name, of: BusContract.manager) }
            throw DBusError(.propertyReadOnly, "\(name) is read-only.")
        }
    }

    private static func values(_ engine: PolicyEngine) async throws -> [String: DBusValue] {
        ["Version": .string(BusContract.version), "Backends": await backends(engine)]
    }

    /// The `Backends` property now: each backend's id, modality and availability (the fields of
    /// API 1.0, in place for positional readers), then Kind, ProviderVersion, State and Description.
    static func backends(_ engine: PolicyEngine) async -> DBusValue {
        .array(elementSignature: "(ssba{sv})", await engine.backendStatus().map { status in
            let detail = status.detail ?? BackendDetail(kind: .builtIn, version: "", state: "available", description: "Passcode (Argon2id)")
            return .structure([.string(status.id), .string(status.modality), .bool(status.available), .vardict([
                "Kind": .string(detail.kind.rawValue), "ProviderVersion": .string(detail.version),
                "State": .string(detail.state), "Description": .string(detail.description),
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
            func wrongType(_ expected: String) -> DBusError {
                .invalidArgs("Option \(key) must be of type \(expected), not \(value.signature).")
            }
            switch key {
            case "LocalizedFallbackTitle":
                guard let title = value.string else { throw wrongType("s") }
                request.options.localizedFallbackTitle = title
            case "LocalizedCancelTitle":
                guard let title = value.string else { throw wrongType("s") }
                request.options.localizedCancelTitle = title
            case "InteractionNotAllowed":
                guard let flag = value.bool else { throw wrongType("b") }
                request.options.interactionNotAllowed = flag
            case "AllowableReuseDuration":
                guard let seconds = value.double else { throw wrongType("d") }
                do { try request.options.setAllowableReuseDuration(seconds) } catch { throw error.dbusError }
            case "User":
                guard let uid = value.uint32 else { throw wrongType("u") }
                request.options.user = uid
            case "Unlock":
                guard let flag = value.bool else { throw wrongType("b") }
                request.options.isUnlockContext = flag
                request.namesUnlock = true
            case "FaceUsageDescription":
                guard let text = value.string else { throw wrongType("s") }
                do { try ContextOptions.validateText(text, name: "face usage description", allowEmpty: true) } catch { throw error.dbusError }
                request.options.faceUsageDescription = text
            default:
                throw .invalidArgs("Unknown option \"\(key)\"; known: LocalizedFallbackTitle, LocalizedCancelTitle, InteractionNotAllowed, AllowableReuseDuration, User, Unlock, FaceUsageDescription.")
            }
        }
        return request
    }
}
