// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI
import LocalAuthCore
import LocalAuthDBus

/// Every object under `/org/localauth/LocalAuthentication1/context/<n>`, interface `…Context`.
/// Only the client that created a context may call it or read its properties (the engine checks).
struct ContextObject: Sendable {
    /// The Context's table: one row per member of ``LocalAuthInterface/context``, each its
    /// declaration and its handler below; every row and property needs ``BusAccess/contextOwner``,
    /// which the engine checks.
    func table(_ rows: BusTable) -> DBusVTable {
        func writer(_ change: @escaping @Sendable (DBusValue) -> ContextOptionChange?) -> DBusVTable.PropertyWriter {
            rows.writer(needs: .contextOwner) { call, value throws(DBusError) in
                let id = try Self.id(call)
                guard let change = change(value) else { throw .invalidArgs("\(value.signature) is not this property's type.") }
                return { engine, bus in
                    try engine.updateOptions(of: id, caller: bus.caller.client, change)
                    return []
                }
            }
        }
        return DBusVTable(LocalAuthInterface.context, methods: [
            rows.method(ContextMethod.canEvaluatePolicy, needs: .contextOwner, Self.canEvaluatePolicy),
            rows.method(ContextMethod.evaluatePolicy, needs: .contextOwner, Self.evaluatePolicy),
            rows.method(ContextMethod.submitPasscode, needs: .contextOwner, Self.submitPasscode),
            rows.method(ContextMethod.fallback, needs: .contextOwner, Self.fallback),
            rows.method(ContextMethod.cancel, needs: .contextOwner, Self.cancel),
            rows.method(ContextMethod.invalidate, needs: .contextOwner, Self.invalidate),
            rows.method(ContextMethod.authorizeRight, needs: .contextOwner, Self.authorizeRight),
            rows.method(ContextMethod.checkCanAuthorizeRight, needs: .contextOwner, Self.checkCanAuthorizeRight),
            rows.method(ContextMethod.deauthorizeRight, needs: .contextOwner, Self.deauthorizeRight),
            rows.method(ContextMethod.evaluateRequirement, needs: .contextOwner, Self.evaluateRequirement),
            rows.method(ContextMethod.canEvaluateRequirement, needs: .contextOwner, Self.canEvaluateRequirement),
            rows.method(ContextMethod.loadSecret, needs: .contextOwner, Self.loadSecret),
            rows.method(ContextMethod.sign, needs: .contextOwner, Self.sign),
            rows.method(ContextMethod.decrypt, needs: .contextOwner, Self.decrypt),
            rows.method(ContextMethod.exchangeKeys, needs: .contextOwner, Self.exchangeKeys),
            rows.method(ContextMethod.releaseLoginPassword, needs: .contextOwner, Self.releaseLoginPassword),
            rows.method(ContextMethod.discardLoginPassword, needs: .contextOwner, Self.discardLoginPassword),
        ], properties: rows.properties(needs: .contextOwner) { engine, call, bus in
            Self.properties(of: try engine.snapshot(of: try Self.id(call), caller: bus.caller.client))
        }, writers: [
            "LocalizedFallbackTitle": writer { $0.string.map(ContextOptionChange.localizedFallbackTitle) },
            "LocalizedCancelTitle": writer { $0.string.map(ContextOptionChange.localizedCancelTitle) },
            "InteractionNotAllowed": writer { $0.bool.map(ContextOptionChange.interactionNotAllowed) },
            "AllowableReuseDuration": writer { $0.double.map(ContextOptionChange.allowableReuseDuration) },
        ])
    }

    // MARK: Handlers, one per method

    static func canEvaluatePolicy(_ engine: isolated PolicyEngine, _ request: BusRequest, _ policy: LAPolicy) throws -> Void? {
        try engine.canEvaluatePolicy(policy, context: try id(request.call), caller: request.client)
        return ()
    }

    /// Answers when the evaluation ends.
    static func evaluatePolicy(_ engine: isolated PolicyEngine, _ request: BusRequest, _ policy: LAPolicy, _ reason: String) throws -> Void? {
        let reply = request.call.reply
        engine.beginEvaluation(policy, reason: reason, context: try id(request.call), caller: request.client) { answer(reply, $0.map { _ in }) }
        return nil
    }

    static func submitPasscode(_ engine: isolated PolicyEngine, _ request: BusRequest, _ secret: DBusSecret) async throws -> Void? {
        try await engine.submitPasscode(Passcode(secret), context: try id(request.call), caller: request.client)
        return ()
    }

    static func fallback(_ engine: isolated PolicyEngine, _ request: BusRequest) throws -> Void? {
        try engine.fallback(context: try id(request.call), caller: request.client)
        return ()
    }

    static func cancel(_ engine: isolated PolicyEngine, _ request: BusRequest) throws -> Void? {
        try engine.cancel(context: try id(request.call), caller: request.client)
        return ()
    }

    static func invalidate(_ engine: isolated PolicyEngine, _ request: BusRequest) throws -> Void? {
        try engine.invalidate(context: try id(request.call), caller: request.client)
        return ()
    }

    /// Answers when the authorization ends.
    static func authorizeRight(_ engine: isolated PolicyEngine, _ request: BusRequest, _ identifier: String, _ reason: String) throws -> Void? {
        let reply = request.call.reply
        engine.beginRightAuthorization(identifier, reason: reason, context: try id(request.call), caller: request.client) { answer(reply, $0) }
        return nil
    }

    static func checkCanAuthorizeRight(_ engine: isolated PolicyEngine, _ request: BusRequest, _ identifier: String) throws -> Void? {
        try engine.checkCanAuthorizeRight(identifier, context: try id(request.call), caller: request.client)
        return ()
    }

    static func deauthorizeRight(_ engine: isolated PolicyEngine, _ request: BusRequest, _ identifier: String) throws -> Void? {
        try engine.deauthorizeRight(identifier, context: try id(request.call), caller: request.client)
        return ()
    }

    /// Answers when the evaluation ends.
    static func evaluateRequirement(_ engine: isolated PolicyEngine, _ request: BusRequest, _ requirement: String, _ reason: String,
                                    _ options: [String: DBusValue]) throws -> Void? {
        let domainState = try domainState(options)
        let reply = request.call.reply
        engine.beginRequirementEvaluation(requirement, domainState: domainState, reason: reason, context: try id(request.call),
                                          caller: request.client) { answer(reply, $0) }
        return nil
    }

    static func canEvaluateRequirement(_ engine: isolated PolicyEngine, _ request: BusRequest, _ requirement: String,
                                       _ options: [String: DBusValue]) throws -> Void? {
        try engine.canEvaluateRequirement(requirement, domainState: try domainState(options), context: try id(request.call), caller: request.client)
        return ()
    }

    static func loadSecret(_ engine: isolated PolicyEngine, _ request: BusRequest, _ identifier: String) throws -> DBusSecret? {
        bytes(try engine.loadSecret(identifier, context: try id(request.call), caller: request.client))
    }

    static func sign(_ engine: isolated PolicyEngine, _ request: BusRequest, _ identifier: String, _ algorithm: String, _ data: [UInt8]) throws -> [UInt8]? {
        try engine.sign(identifier, algorithm: algorithm, data: data, context: try id(request.call), caller: request.client)
    }

    static func decrypt(_ engine: isolated PolicyEngine, _ request: BusRequest, _ identifier: String, _ algorithm: String,
                        _ ciphertext: [UInt8]) throws -> DBusSecret? {
        bytes(try engine.decrypt(identifier, algorithm: algorithm, ciphertext: ciphertext, context: try id(request.call), caller: request.client))
    }

    static func exchangeKeys(_ engine: isolated PolicyEngine, _ request: BusRequest, _ identifier: String, _ peer: [UInt8], _ algorithm: String,
                             _ rawParameters: [String: DBusValue]) throws -> DBusSecret? {
        let parameters = try exchangeParameters(rawParameters)
        return bytes(try engine.exchangeKeys(identifier, peerPublicKey: peer, algorithm: algorithm, requestedSize: parameters.requestedSize,
                                             sharedInfo: parameters.sharedInfo, context: try id(request.call), caller: request.client))
    }

    static func releaseLoginPassword(_ engine: isolated PolicyEngine, _ request: BusRequest) throws -> DBusSecret? {
        let password = try engine.releaseLoginPassword(context: try id(request.call), caller: request.client)
        return password.withBytes { DBusSecret(copying: $0) }
    }

    static func discardLoginPassword(_ engine: isolated PolicyEngine, _ request: BusRequest) async throws -> Void? {
        try await engine.discardLoginPassword(context: try id(request.call), caller: request.client)
        return ()
    }

    /// The context a call's path names; `UnknownObject` for any other path below the root.
    static func id(_ call: DBusMethodCall) throws(DBusError) -> ContextID {
        guard let number = LocalAuthBusNames.contextNumber(in: call.path) else {
            throw DBusError(.unknownObject, "No object at \(call.path); contexts are \(LocalAuthBusNames.contextRoot)/<n>, created by CreateContext.")
        }
        return ContextID(number)
    }

    /// The properties of `snapshot` whose values differ from those of `before`; all seven without it.
    /// Compares the snapshot's fields, so that an announcement that changed nothing builds nothing.
    static func properties(of snapshot: ContextSnapshot, changedFrom before: ContextSnapshot? = nil) -> [String: DBusValue] {
        let options = snapshot.options, old = before?.options
        var values = [String: DBusValue]()
        if before?.biometryType != snapshot.biometryType { values["BiometryType"] = .uint32(UInt32(snapshot.biometryType.rawValue)) }
        if old?.localizedFallbackTitle != options.localizedFallbackTitle {
            values["LocalizedFallbackTitle"] = .string(options.localizedFallbackTitle)
        }
        if old?.localizedCancelTitle != options.localizedCancelTitle { values["LocalizedCancelTitle"] = .string(options.localizedCancelTitle) }
        if old?.interactionNotAllowed != options.interactionNotAllowed { values["InteractionNotAllowed"] = .bool(options.interactionNotAllowed) }
        if old?.allowableReuseDuration != options.allowableReuseDuration {
            values["AllowableReuseDuration"] = .double(options.allowableReuseDuration)
        }
        if before?.evaluatedPolicyDomainState != snapshot.evaluatedPolicyDomainState {
            values["EvaluatedPolicyDomainState"] = .bytes(snapshot.evaluatedPolicyDomainState)
        }
        if before?.state != snapshot.state { values["State"] = .string(snapshot.state.rawValue) }
        return values
    }

    /// Replies to a call answered when an authorization or requirement evaluation ends.
    static func answer(_ reply: DBusPendingReply, _ result: Result<Void, LocalAuthError>) {
        switch result {
        case .success: reply.send((), as: BusWire.Nothing.self)
        case .failure(let error): reply.fail(error.dbusError)
        }
    }

    /// Secret bytes (a right's secret, a plaintext, a shared secret) as an `ay` reply value that
    /// no Swift array holds and whose copy in the reply is zeroed when it is freed.
    static func bytes(_ secret: SecretBytes) -> DBusSecret {
        secret.withBytes { DBusSecret(copying: $0) }
    }

    /// The `DomainState` of EvaluateRequirement's and CanEvaluateRequirement's options (``LocalAuthRequirementOption``).
    static func domainState(_ options: [String: DBusValue]) throws(DBusError) -> [UInt8]? {
        var domainState: [UInt8]?
        for (key, value) in options {
            guard let option = LocalAuthRequirementOption(rawValue: key) else {
                throw .invalidArgs("Unknown option \"\(key)\"; known: \(LocalAuthRequirementOption.allCases.map(\.rawValue).joined(separator: ", ")).")
            }
            guard value.signature == option.signature, let bytes = value.bytes else {
                throw .invalidArgs("Option \(key) must be of type \(option.signature), not \(value.signature).")
            }
            switch option {
            case .domainState: domainState = bytes
            }
        }
        return domainState
    }

    /// ExchangeKeys's parameters (``LocalAuthExchangeKeysParameter``): RequestedSize 0 when absent
    /// (the raw algorithms take none; the engine refuses a KDF algorithm without it).
    static func exchangeParameters(_ parameters: [String: DBusValue]) throws(DBusError) -> (requestedSize: Int, sharedInfo: [UInt8]) {
        var result = (requestedSize: 0, sharedInfo: [UInt8]())
        for (key, value) in parameters {
            guard let parameter = LocalAuthExchangeKeysParameter(rawValue: key) else {
                throw .invalidArgs("Unknown parameter \"\(key)\"; known: \(LocalAuthExchangeKeysParameter.allCases.map(\.rawValue).joined(separator: ", ")).")
            }
            guard value.signature == parameter.signature else {
                throw .invalidArgs("Parameter \(key) must be of type \(parameter.signature), not \(value.signature).")
            }
            switch (parameter, value) {
            case (.requestedSize, .uint32(let size)): result.requestedSize = Int(size)
            case (.sharedInfo, let value): result.sharedInfo = value.bytes ?? []
            default: throw .invalidArgs("Parameter \(key) must be of type \(parameter.signature).")
            }
        }
        return result
    }
}
