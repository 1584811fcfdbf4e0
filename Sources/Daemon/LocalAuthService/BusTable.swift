// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI
import LocalAuthCore
import LocalAuthDBus

/// Builds the rows of the daemon's ``DBusVTable``s: each queued row runs in its sender's queue
/// (``CallerDirectory``), passes the ``AccessStage`` for what it declares it needs, then its
/// handler. Every row is its method's ``BusMethod`` declaration (the one the client proxies call
/// through); its arguments arrive as the declared types, read straight from the message on the
/// connection's queue after the table checked the signature. A row's `decode` runs first, there:
/// it validates them (a refusal there changes nothing) and returns the work to queue.
/// An engine row (``engineMethod(_:needs:_:)``), and a row that uses ``answer(_:needs:_:)`` or
/// ``immediateCaller(_:needs:)``, is answered at once where it was read when its sender has
/// nothing queued, its identity is known and the stage would grant it without asking anyone.
struct BusTable: Sendable {
    /// What a row does once its caller is known and admitted; returns the reply values, or nil
    /// when it answers the call's reply itself later.
    typealias Body = @Sendable (BusCaller) async throws -> [DBusValue]?

    /// What an engine row does, in the engine's isolation: synchronous, so that it can run where
    /// the call was read. Returns the reply values, or nil when it answers the call's reply itself.
    typealias EngineBody = @Sendable (isolated PolicyEngine, BusCaller) throws -> [DBusValue]?

    let directory: CallerDirectory
    let stage: AccessStage

    /// A row queued behind the sender's earlier calls.
    func method<each Input: DBusArgument, Output>(
        _ method: BusMethod<repeat each Input, Output>, needs access: BusAccess,
        _ decode: @escaping @Sendable (DBusMethodCall, repeat (each Input).Value) throws(DBusError) -> Body
    ) -> DBusVTable.Method {
        let (directory, stage) = (self.directory, self.stage)
        return DBusVTable.Method(method) { (call, arguments: repeat (each Input).Value) throws(DBusError) in
            let body = try decode(call, repeat each arguments)
            return Self.respond(call, directory, stage, access, body)
        }
    }

    /// A row that is synchronous engine work, for a caller the stage admits without asking
    /// (``BusAccess/anyone``, ``BusAccess/contextOwner``, ``BusAccess/identifiedApp``): answered as
    /// ``answer(_:needs:_:)`` does.
    func engineMethod<each Input: DBusArgument, Output>(
        _ method: BusMethod<repeat each Input, Output>, needs access: BusAccess,
        _ decode: @escaping @Sendable (DBusMethodCall, repeat (each Input).Value) throws(DBusError) -> EngineBody
    ) -> DBusVTable.Method {
        precondition([.anyone, .contextOwner, .identifiedApp].contains(access), "\(method.member): an engine row cannot wait for an authorization")
        return DBusVTable.Method(method) { [self] (call, arguments: repeat (each Input).Value) throws(DBusError) in
            let body = try decode(call, repeat each arguments)
            return try answer(call, needs: access, body)
        }
    }

    /// Answers `call` with `body`: at once where it was read when ``inline(_:needs:_:)`` can, otherwise
    /// queued like a ``method(_:needs:_:)`` row's body and run in the engine from the sender's task.
    func answer(_ call: DBusMethodCall, needs access: BusAccess, _ body: @escaping EngineBody) throws(DBusError) -> DBusMethodReply {
        try inline(call, needs: access, body) ?? respond(call, needs: access, onEngine(body))
    }

    /// Runs `body` at once, in the engine's isolation, when the sender's queue is idle and its
    /// identity known and the stage grants `access` without asking: no task, no hop, and still in
    /// the sender's order. nil, and `body` not run, otherwise. Only for the connection whose loop is the engine's executor (the daemon's), from
    /// one of its method handlers: libdbus calls those between jobs, never inside the engine.
    private func inline(_ call: DBusMethodCall, needs access: BusAccess, _ body: EngineBody) throws(DBusError) -> DBusMethodReply? {
        guard let caller = immediateCaller(call, needs: access) else { return nil }
        do {
            guard let values = try stage.engine.assumeIsolated({ engine in try body(engine, caller) }) else { return .deferred }
            return .values(values)
        } catch let error as LocalAuthError {
            throw error.dbusError
        } catch let error as DBusError {
            throw error
        } catch {
            throw .failed("\(error)")
        }
    }

    /// The caller of `call` when it may be answered at once where it was read: nothing of the
    /// sender is queued or running, the bus has told who it is, and the stage grants `access`
    /// without asking anyone. nil otherwise: queue the call.
    func immediateCaller(_ call: DBusMethodCall, needs access: BusAccess) -> BusCaller? {
        guard let caller = directory.idleCaller(call.sender), stage.grantsAtOnce(access, caller) else { return nil }
        return caller
    }

    /// `body` as a queued row's, entering the engine from the sender's task.
    private func onEngine(_ body: @escaping EngineBody) -> Body {
        let engine = stage.engine
        return { bus in try await Self.run(body, on: engine, bus) }
    }

    private static func run(_ body: EngineBody, on engine: isolated PolicyEngine, _ bus: BusCaller) throws -> [DBusValue]? {
        try body(engine, bus)
    }

    /// Queues `body` for `call` behind the stage, for a row that decides itself how to answer.
    func respond(_ call: DBusMethodCall, needs access: BusAccess, _ body: @escaping Body) -> DBusMethodReply {
        Self.respond(call, directory, stage, access, body)
    }

    private static func respond(_ call: DBusMethodCall, _ directory: CallerDirectory, _ stage: AccessStage,
                                _ access: BusAccess, _ body: @escaping Body) -> DBusMethodReply {
        directory.respond(to: call) { bus in
            try await stage.check(access, bus)
            return try await body(bus)
        }
    }

    /// A row answered at once on the connection's queue, not queued behind the sender's calls;
    /// open to anyone (it can only concern the calling connection itself).
    func immediate<Output>(_ method: BusMethod<Output>, _ handler: @escaping DBusVTable.MethodHandler) -> DBusVTable.Method {
        DBusVTable.Method(method, handler)
    }

    /// `Get`/`GetAll` from every property's value, read in the sender's queue after the stage.
    func properties(needs access: BusAccess, _ values: @escaping @Sendable (DBusMethodCall, BusCaller) async throws -> [String: DBusValue]) -> DBusVTable.PropertyReader {
        let (directory, stage) = (self.directory, self.stage)
        return { call, read throws(DBusError) in
            directory.respond(to: call) { bus in
                try await stage.check(access, bus)
                return try read.reply(try await values(call, bus))
            }
        }
    }

    /// `Set` of one property, with a value of its declared type.
    func writer(needs access: BusAccess, _ decode: @escaping @Sendable (DBusMethodCall, DBusValue) throws(DBusError) -> Body) -> DBusVTable.PropertyWriter {
        let (directory, stage) = (self.directory, self.stage)
        return { call, value throws(DBusError) in
            let body = try decode(call, value)
            return Self.respond(call, directory, stage, access, body)
        }
    }
}
