// SPDX-License-Identifier: Apache-2.0
import LocalAuthCore
import LocalAuthDBus

/// Every object under `/org/localauth/LocalAuthentication1/context/<n>`, interface `…Context`.
/// Only the client that created a context may call it or read its properties (the engine checks).
struct ContextObject: Sendable {
    let engine: PolicyEngine
    let directory: CallerDirectory

    func handle(_ call: DBusMethodCall) throws(DBusError) -> DBusMethodReply {
        guard let number = BusContract.contextNumber(in: call.path) else {
            throw DBusError(.unknownObject, "No object at \(call.path); contexts are \(BusContract.contextRoot)/<n>, created by CreateContext.")
        }
        let id = ContextID(number)
        if let request = try DBusPropertyRequest(call) { return try properties(request, call, id) }
        _ = try CallCheck.method(of: call, in: BusContract.context)
        var arguments = call.reader
        let engine = self.engine
        switch call.member {
        case "CanEvaluatePolicy":
            let policy = try Self.policy(try arguments.uint32())
            return directory.respond(to: call) { bus in
                try await engine.canEvaluatePolicy(policy, context: id, caller: bus.caller.client)
                return []
            }
        case "EvaluatePolicy":
            let policy = try Self.policy(try arguments.uint32())
            let reason = try arguments.string()
            let reply = call.reply
            return directory.respond(to: call) { bus in
                await engine.beginEvaluation(policy, reason: reason, context: id, caller: bus.caller.client) { result in
                    switch result {
                    case .success: reply.send([])
                    case .failure(let error): reply.fail(error.dbusError)
                    }
                }
                return nil
            }
        case "SubmitPasscode":
            let passcode = Passcode(try arguments.secret())
            return directory.respond(to: call) { bus in
                try await engine.submitPasscode(passcode, context: id, caller: bus.caller.client)
                return []
            }
        case "Fallback":
            return directory.respond(to: call) { bus in
                try await engine.fallback(context: id, caller: bus.caller.client)
                return []
            }
        case "Cancel":
            return directory.respond(to: call) { bus in
                try await engine.cancel(context: id, caller: bus.caller.client)
                return []
            }
        case "Invalidate":
            return directory.respond(to: call) { bus in
                try await engine.invalidate(context: id, caller: bus.caller.client)
                return []
            }
        default:
            throw .unknownMember(call.member, of: BusContract.context)
        }
    }

    private func properties(_ request: DBusPropertyRequest, _ call: DBusMethodCall, _ id: ContextID) throws(DBusError) -> DBusMethodReply {
        let engine = self.engine
        switch request {
        case .get(let interface, let name):
            try CallCheck.interface(interface, is: BusContract.context)
            guard BusContract.context.property(name) != nil else { throw .unknownProperty(name, of: BusContract.context) }
            return directory.respond(to: call) { bus in
                let snapshot = try await engine.snapshot(of: id, caller: bus.caller.client)
                return [.variant(Self.properties(of: snapshot)[name]!)]
            }
        case .getAll(let interface):
            try CallCheck.interface(interface, is: BusContract.context)
            return directory.respond(to: call) { bus in
                [.vardict(Self.properties(of: try await engine.snapshot(of: id, caller: bus.caller.client)))]
            }
        case .set(let interface, let name, let value):
            try CallCheck.interface(interface, is: BusContract.context)
            guard let property = BusContract.context.property(name) else { throw .unknownProperty(name, of: BusContract.context) }
            guard property.access == .readwrite else { throw DBusError(.propertyReadOnly, "\(name) is read-only.") }
            guard value.signature == property.type else {
                throw .invalidArgs("\(name) is of type \(property.type), not \(value.signature).")
            }
            let change: ContextOptionChange
            switch value {
            case .string(let text) where name == "LocalizedFallbackTitle": change = .localizedFallbackTitle(text)
            case .string(let text): change = .localizedCancelTitle(text)
            case .bool(let flag): change = .interactionNotAllowed(flag)
            case .double(let seconds): change = .allowableReuseDuration(seconds)
            default: throw .invalidArgs("\(name) cannot be set to \(value.signature).")
            }
            return directory.respond(to: call) { bus in
                try await engine.updateOptions(of: id, caller: bus.caller.client, change)
                return []
            }
        }
    }

    static func properties(of snapshot: ContextSnapshot) -> [String: DBusValue] {
        [
            "BiometryType": .uint32(UInt32(snapshot.biometryType.rawValue)),
            "LocalizedFallbackTitle": .string(snapshot.options.localizedFallbackTitle),
            "LocalizedCancelTitle": .string(snapshot.options.localizedCancelTitle),
            "InteractionNotAllowed": .bool(snapshot.options.interactionNotAllowed),
            "AllowableReuseDuration": .double(snapshot.options.allowableReuseDuration),
            "EvaluatedPolicyDomainState": .bytes(snapshot.evaluatedPolicyDomainState),
            "State": .string(snapshot.state.rawValue),
        ]
    }

    static func policy(_ raw: UInt32) throws(DBusError) -> LAPolicy {
        do { return try LAPolicy(validating: Int(raw)) } catch { throw error.dbusError }
    }
}
