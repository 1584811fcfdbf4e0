// SPDX-License-Identifier: Apache-2.0
import LocalAuthCore
import LocalAuthDBus

/// Every object under `/org/localauth/LocalAuthentication1/context/<n>`, interface `…Context`.
/// Only the client that created a context may call it or read its properties (the engine checks).
struct ContextObject: Sendable {
    let engine: PolicyEngine

    /// The Context's table: one row per member of ``LocalAuthInterface/context``; every row and
    /// property needs ``BusAccess/contextOwner``, which the engine checks.
    func table(_ rows: BusTable) -> DBusVTable {
        let engine = self.engine
        func writer(_ change: @escaping @Sendable (DBusValue) -> ContextOptionChange?) -> DBusVTable.PropertyWriter {
            rows.writer(needs: .contextOwner) { call, value throws(DBusError) in
                let id = try Self.id(call)
                guard let change = change(value) else { throw .invalidArgs("\(value.signature) is not this property's type.") }
                return { bus in
                    try await engine.updateOptions(of: id, caller: bus.caller.client, change)
                    return []
                }
            }
        }
        func plain(_ name: String, _ action: @escaping @Sendable (isolated PolicyEngine, ContextID, ClientID) throws -> Void) -> DBusVTable.Method {
            rows.engineMethod(name, needs: .contextOwner) { call, _ throws(DBusError) in
                let id = try Self.id(call)
                return { engine, bus in
                    try action(engine, id, bus.caller.client)
                    return []
                }
            }
        }
        return DBusVTable(LocalAuthInterface.context, methods: [
            rows.engineMethod("CanEvaluatePolicy", needs: .contextOwner) { call, arguments throws(DBusError) in
                let id = try Self.id(call)
                let policy = try Self.policy(try arguments.uint32())
                return { engine, bus in
                    try engine.canEvaluatePolicy(policy, context: id, caller: bus.caller.client)
                    return []
                }
            },
            rows.engineMethod("EvaluatePolicy", needs: .contextOwner) { call, arguments throws(DBusError) in
                let id = try Self.id(call)
                let policy = try Self.policy(try arguments.uint32())
                let reason = try arguments.string()
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
            rows.method("SubmitPasscode", needs: .contextOwner) { call, arguments throws(DBusError) in
                let id = try Self.id(call)
                let passcode = Passcode(try arguments.secret())
                return { bus in
                    try await engine.submitPasscode(passcode, context: id, caller: bus.caller.client)
                    return []
                }
            },
            plain("Fallback") { try $0.fallback(context: $1, caller: $2) },
            plain("Cancel") { try $0.cancel(context: $1, caller: $2) },
            plain("Invalidate") { try $0.invalidate(context: $1, caller: $2) },
        ], properties: rows.properties(needs: .contextOwner) { call, bus in
            Self.properties(of: try await engine.snapshot(of: try Self.id(call), caller: bus.caller.client))
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

    static func policy(_ raw: UInt32) throws(DBusError) -> LAPolicy {
        do { return try LAPolicy(validating: Int(raw)) } catch { throw error.dbusError }
    }
}
