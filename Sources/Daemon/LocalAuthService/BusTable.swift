// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI
import LocalAuthCore
import LocalAuthDBus

/// Builds the rows of the daemon's ``DBusVTable``s, as logind's vtables are built: a row is its
/// method's ``BusMethod`` declaration (the one the client proxies call through), the
/// ``BusAccess`` its caller needs, and a named handler (`ContextObject.evaluatePolicy`, …).
///
/// Every call takes one path: its arguments are read as the declared types on the connection's
/// loop (the table checked the signature); the call joins its sender's queue (``CallerDirectory``:
/// order, quotas, identity), passes the ``AccessStage``, and its handler runs in the engine's
/// isolation, validates the arguments' values (a refusal changes nothing) and returns the reply.
/// The loop is the engine's executor, so a call whose sender has nothing queued, whose identity
/// is known, that the stage admits without asking anyone and whose handler does not wait runs to
/// its reply right where it was read: no task, no hop, no thread. A handler is synchronous unless
/// it has to wait (an `async` handler, or one that returns a ``Step``), and only a call that waits
/// costs a task.
struct BusTable: Sendable {
    /// What runs once the caller is known and admitted, in the engine's isolation: returns the
    /// reply values, or nil when it answers the call's reply itself later.
    typealias Handler = @Sendable (isolated PolicyEngine, BusCaller) async throws -> [DBusValue]?

    /// What a handler that waits only sometimes returns: its reply now (nil when it answers the
    /// call itself later), or the rest of its work, which waits.
    enum Step<Value: Sendable> {
        case reply(Value?)
        case wait(@Sendable (isolated PolicyEngine) async throws -> Value?)
    }

    let directory: CallerDirectory<PolicyEngine>
    let stage: AccessStage
    /// The connection's loop: the engine's executor, where libdbus runs the rows.
    let loop: DBusEventLoop

    /// A row: `method`'s declaration, what its caller needs and its handler, which gets the engine,
    /// the request and the arguments as the declared types, and returns the reply as the declared
    /// type (written straight into the reply), or nil when it answers later itself.
    func method<each Input: DBusArgument, Output: DBusArgument>(
        _ method: BusMethod<repeat each Input, Output>, needs access: BusAccess,
        _ handler: @escaping @Sendable (isolated PolicyEngine, BusRequest, repeat (each Input).Value) throws -> Output.Value?
    ) -> DBusVTable.Method {
        self.method(method, needs: { (_: repeat (each Input).Value) in access }, handler)
    }

    /// A row whose handler waits (for polkit, an agent, a provider, the disk).
    func method<each Input: DBusArgument, Output: DBusArgument>(
        _ method: BusMethod<repeat each Input, Output>, needs access: BusAccess,
        _ handler: @escaping @Sendable (isolated PolicyEngine, BusRequest, repeat (each Input).Value) async throws -> Output.Value?
    ) -> DBusVTable.Method {
        row(method, needs: { (_: repeat (each Input).Value) in access }) { (_, request, arguments: repeat (each Input).Value) in
            let values = (repeat each arguments)
            return .wait { engine in try await handler(engine, request, repeat each values) }
        }
    }

    /// A row whose caller's needs depend on its arguments (`ListRights` of every application).
    func method<each Input: DBusArgument, Output: DBusArgument>(
        _ method: BusMethod<repeat each Input, Output>, needs access: @escaping @Sendable (repeat (each Input).Value) -> BusAccess,
        _ handler: @escaping @Sendable (isolated PolicyEngine, BusRequest, repeat (each Input).Value) throws -> Output.Value?
    ) -> DBusVTable.Method {
        row(method, needs: access) { (engine, request, arguments: repeat (each Input).Value) in
            .reply(try handler(engine, request, repeat each arguments))
        }
    }

    /// A row whose handler waits only sometimes (`CreateContext` for another user, a simulated
    /// touch while an evaluation listens): it returns a ``Step``.
    func method<each Input: DBusArgument, Output: DBusArgument>(
        _ method: BusMethod<repeat each Input, Output>, needs access: BusAccess,
        steps handler: @escaping @Sendable (isolated PolicyEngine, BusRequest, repeat (each Input).Value) throws -> Step<Output.Value>
    ) -> DBusVTable.Method {
        row(method, needs: { (_: repeat (each Input).Value) in access }, handler)
    }

    /// Every row is built here.
    private func row<each Input: DBusArgument, Output: DBusArgument>(
        _ method: BusMethod<repeat each Input, Output>, needs access: @escaping @Sendable (repeat (each Input).Value) -> BusAccess,
        _ handler: @escaping @Sendable (isolated PolicyEngine, BusRequest, repeat (each Input).Value) throws -> Step<Output.Value>
    ) -> DBusVTable.Method {
        DBusVTable.Method(method) { [self] (call, arguments: repeat (each Input).Value) throws(DBusError) in
            let (reply, values, access) = (call.reply, (repeat each arguments), access(repeat each arguments))
            return submit(call, needs: access) { engine, bus in
                let step = try handler(engine, BusRequest(call: call, bus: bus), repeat each values)
                switch step {
                case .reply(let value):
                    if let value { reply.send(value, as: Output.self) }
                    return nil
                case .wait(let rest):
                    return { engine in
                        do {
                            if let value = try await rest(engine) { reply.send(value, as: Output.self) }
                        } catch {
                            reply.fail(Self.dbusError(error))
                        }
                    }
                }
            }
        }
    }

    /// Queues `handler` for `call` in its sender's queue, behind the stage's check of `access`,
    /// and answers `call` with what it returns or throws.
    private func respond(_ call: DBusMethodCall, needs access: BusAccess, _ handler: @escaping Handler) -> DBusMethodReply {
        let reply = call.reply
        return submit(call, needs: access) { _, bus in
            { engine in
                do {
                    if let values = try await handler(engine, bus) { reply.send(values) }
                } catch {
                    reply.fail(Self.dbusError(error))
                }
            }
        }
    }

    /// Queues `call` in its sender's queue, the path of every call: once its sender is known and
    /// the stage has admitted it to `access`, `run` runs, and returns the rest of its work if it has
    /// to wait. A refusal, or an error `run` throws, answers `call`. Answers `LimitsExceeded`
    /// instead if the sender or its user already has as much queued as allowed.
    private func submit(_ call: DBusMethodCall, needs access: BusAccess,
                        _ run: @escaping @Sendable (isolated PolicyEngine, BusCaller) throws -> CallerDirectory<PolicyEngine>.Wait?) -> DBusMethodReply {
        let (directory, stage, reply) = (self.directory, self.stage, call.reply)
        let refusal = onEngine { engine in
            directory.submit(from: call.sender, byteCount: call.byteCount, replyExpected: reply.isReplyExpected, on: engine) { engine, identity in
                do {
                    let bus = try identity.get()
                    guard stage.grantsAtOnce(access, bus) else {
                        return { engine in
                            do {
                                try await stage.check(access, bus)
                                await (try run(engine, bus))?(engine)
                            } catch {
                                reply.fail(Self.dbusError(error))
                            }
                        }
                    }
                    return try run(engine, bus)
                } catch {
                    reply.fail(Self.dbusError(error))
                    return nil
                }
            }
        }
        if let refusal { reply.fail(refusal) }
        return .deferred
    }

    /// What a handler threw, as the error to answer with.
    private static func dbusError(_ error: any Error) -> DBusError {
        switch error {
        case let error as LocalAuthError: error.dbusError
        case let error as DBusError: error
        default: .failed("\(error)")
        }
    }

    /// The sender left the bus: after its queued calls, `farewell` runs in the engine's isolation.
    /// From a signal handler on the connection's loop (libdbus calls those between jobs as well).
    func senderLeft(_ sender: String, farewell: @escaping @Sendable (isolated PolicyEngine) async -> Void) {
        let directory = self.directory
        onEngine { engine in directory.senderLeft(sender, on: engine, farewell: farewell) }
    }

    /// `body` in the engine's isolation, from code libdbus runs on the connection's loop (a row, a
    /// signal handler): this is where a call read there enters the engine. The loop is the
    /// engine's executor, and libdbus calls those between the engine's jobs, so being on the
    /// loop's thread is being isolated to the engine. It is what `assumeIsolated` asks the runtime,
    /// which on a custom executor costs ~1 000 instructions and two allocations a call; this asks
    /// the loop instead, then calls `body` as `assumeIsolated` does.
    @inline(__always)
    private func onEngine<R>(_ body: (isolated PolicyEngine) -> R) -> R {
        precondition(loop.isCurrent, "a bus row entered the engine off the connection's loop")
        return withoutActuallyEscaping(body) { body in
            unsafeBitCast(body, to: ((PolicyEngine) -> R).self)(stage.engine)
        }
    }

    /// A row answered at once on the connection's loop, not queued behind the sender's calls and
    /// not entering the engine; open to anyone (it can only concern the calling connection itself).
    func immediate<Output>(_ method: BusMethod<Output>, _ handler: @escaping DBusVTable.MethodHandler) -> DBusVTable.Method {
        DBusVTable.Method(method, handler)
    }

    /// `Get`/`GetAll` from every property's value, read in the sender's queue after the stage.
    func properties(needs access: BusAccess,
                    _ values: @escaping @Sendable (isolated PolicyEngine, DBusMethodCall, BusCaller) async throws -> [String: DBusValue]
    ) -> DBusVTable.PropertyReader {
        { [self] call, read throws(DBusError) in
            respond(call, needs: access) { engine, bus in try read.reply(try await values(engine, call, bus)) }
        }
    }

    /// `Set` of one property, with a value of its declared type.
    func writer(needs access: BusAccess, _ decode: @escaping @Sendable (DBusMethodCall, DBusValue) throws(DBusError) -> Handler) -> DBusVTable.PropertyWriter {
        { [self] call, value throws(DBusError) in
            let handler = try decode(call, value)
            return respond(call, needs: access, handler)
        }
    }
}
