// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI
import LocalAuthCore
import LocalAuthDBus

/// Every object under `/org/localauth/LocalAuthentication1/context/<n>`, interface `…Context`.
/// Only the client that created a context may call it or read its properties (the engine checks).
struct ContextObject: Sendable {
    /// The Context's table: one row per member of ``LocalAuthInterface/context``; every row and
    /// property needs ``BusAccess/contextOwner``, which the engine checks.
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
        func plain(_ method: BusMethod<BusWire.Nothing>, _ action: @escaping @Sendable (isolated PolicyEngine, ContextID, ClientID) throws -> Void) -> DBusVTable.Method {
            rows.method(method, needs: .contextOwner) { call throws(DBusError) in
                let id = try Self.id(call)
                return { engine, bus in
                    try action(engine, id, bus.caller.client)
                    return []
                }
            }
        }
        return DBusVTable(LocalAuthInterface.context, methods: [
            rows.method(ContextMethod.canEvaluatePolicy, needs: .contextOwner) { call, rawPolicy throws(DBusError) in
                let id = try Self.id(call)
                let policy = try Self.policy(rawPolicy)
                return { engine, bus in
                    try engine.canEvaluatePolicy(policy, context: id, caller: bus.caller.client)
                    return []
                }
            },
            rows.method(ContextMethod.evaluatePolicy, needs: .contextOwner) { call, rawPolicy, reason throws(DBusError) in
                let id = try Self.id(call)
                let policy = try Self.policy(rawPolicy)
                let reply = call.reply
                return { engine, bus in
                    engine.beginEvaluation(policy, reason: reason, context: id, caller: bus.caller.client) { result in
                        switch result {
                        case .success: reply.send([])
                        case .failure(let error): reply.fail(error.dbusError)
                        }
                    }
                    return nil
                }
            },
            rows.method(ContextMethod.submitPasscode, needs: .contextOwner) { call, secret throws(DBusError) in
                let id = try Self.id(call)
                let passcode = Passcode(secret)
                return { engine, bus in
                    try await engine.submitPasscode(passcode, context: id, caller: bus.caller.client)
                    return []
                }
            },
            plain(ContextMethod.fallback) { try $0.fallback(context: $1, caller: $2) },
            plain(ContextMethod.cancel) { try $0.cancel(context: $1, caller: $2) },
            plain(ContextMethod.invalidate) { try $0.invalidate(context: $1, caller: $2) },
            rows.method(ContextMethod.authorizeRight, needs: .contextOwner) { call, identifier, reason throws(DBusError) in
                let id = try Self.id(call)
                let reply = call.reply
                return { engine, bus in
                    engine.beginRightAuthorization(identifier, reason: reason, context: id, caller: bus.caller.client) { Self.answer(reply, $0) }
                    return nil
                }
            },
            rows.method(ContextMethod.checkCanAuthorizeRight, needs: .contextOwner) { call, identifier throws(DBusError) in
                let id = try Self.id(call)
                return { engine, bus in
                    try engine.checkCanAuthorizeRight(identifier, context: id, caller: bus.caller.client)
                    return []
                }
            },
            rows.method(ContextMethod.deauthorizeRight, needs: .contextOwner) { call, identifier throws(DBusError) in
                let id = try Self.id(call)
                return { engine, bus in
                    try engine.deauthorizeRight(identifier, context: id, caller: bus.caller.client)
                    return []
                }
            },
            rows.method(ContextMethod.evaluateRequirement, needs: .contextOwner) { call, requirement, reason, options throws(DBusError) in
                let id = try Self.id(call)
                let domainState = try Self.domainState(options)
                let reply = call.reply
                return { engine, bus in
                    engine.beginRequirementEvaluation(requirement, domainState: domainState, reason: reason, context: id,
                                                      caller: bus.caller.client) { Self.answer(reply, $0) }
                    return nil
                }
            },
            rows.method(ContextMethod.canEvaluateRequirement, needs: .contextOwner) { call, requirement, options throws(DBusError) in
                let id = try Self.id(call)
                let domainState = try Self.domainState(options)
                return { engine, bus in
                    try engine.canEvaluateRequirement(requirement, domainState: domainState, context: id, caller: bus.caller.client)
                    return []
                }
            },
            rows.method(ContextMethod.loadSecret, needs: .contextOwner) { call, identifier throws(DBusError) in
                let id = try Self.id(call)
                return { engine, bus in [Self.bytes(try engine.loadSecret(identifier, context: id, caller: bus.caller.client))] }
            },
            rows.method(ContextMethod.sign, needs: .contextOwner) { call, identifier, algorithm, data throws(DBusError) in
                let id = try Self.id(call)
                return { engine, bus in [.bytes(try engine.sign(identifier, algorithm: algorithm, data: data, context: id, caller: bus.caller.client))] }
            },
            rows.method(ContextMethod.decrypt, needs: .contextOwner) { call, identifier, algorithm, ciphertext throws(DBusError) in
                let id = try Self.id(call)
                return { engine, bus in
                    [Self.bytes(try engine.decrypt(identifier, algorithm: algorithm, ciphertext: ciphertext, context: id, caller: bus.caller.client))]
                }
            },
            rows.method(ContextMethod.exchangeKeys, needs: .contextOwner) { call, identifier, peer, algorithm, rawParameters throws(DBusError) in
                let id = try Self.id(call)
                let parameters = try Self.exchangeParameters(rawParameters)
                return { engine, bus in
                    [Self.bytes(try engine.exchangeKeys(identifier, peerPublicKey: peer, algorithm: algorithm, requestedSize: parameters.requestedSize,
                                                        sharedInfo: parameters.sharedInfo, context: id, caller: bus.caller.client))]
                }
            },
            rows.method(ContextMethod.releaseLoginPassword, needs: .contextOwner) { call throws(DBusError) in
                let id = try Self.id(call)
                return { engine, bus in
                    let password = try engine.releaseLoginPassword(context: id, caller: bus.caller.client)
                    return [.secret(password.withBytes { DBusSecret(copying: $0) })]
                }
            },
            rows.method(ContextMethod.discardLoginPassword, needs: .contextOwner) { call throws(DBusError) in
                let id = try Self.id(call)
                return { engine, bus in
                    try await engine.discardLoginPassword(context: id, caller: bus.caller.client)
                    return []
                }
            },
        ], properties: rows.properties(needs: .contextOwner) { engine, call, bus in
            Self.properties(of: try engine.snapshot(of: try Self.id(call), caller: bus.caller.client))
        }, writers: [
            "LocalizedFallbackTitle": writer { $0.string.map(ContextOptionChange.localizedFallbackTitle) },
            "LocalizedCancelTitle": writer { $0.string.map(ContextOptionChange.localizedCancelTitle) },
            "InteractionNotAllowed": writer { $0.bool.map(ContextOptionChange.interactionNotAllowed) },
            "AllowableReuseDuration": writer { $0.double.map(ContextOptionChange.allowableReuseDuration) },
        ])
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
        case .success: reply.send([])
        case .failure(let error): reply.fail(error.dbusError)
        }
    }

    /// Secret bytes (a right's secret, a plaintext, a shared secret) as an `ay` reply value that
    /// no Swift array holds and whose copy in the reply is zeroed when it is freed.
    static func bytes(_ secret: SecretBytes) -> DBusValue {
        .secretBytes(secret.withBytes { DBusSecret(copying: $0) })
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

    static func policy(_ raw: UInt32) throws(DBusError) -> LAPolicy {
        do { return try LAPolicy(validating: Int(raw)) } catch { throw error.dbusError }
    }
}
