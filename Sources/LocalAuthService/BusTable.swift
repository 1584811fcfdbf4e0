// SPDX-License-Identifier: Apache-2.0
import LocalAuthCore
import LocalAuthDBus

/// Builds the rows of the daemon's ``DBusVTable``s: each queued row runs in its sender's queue
/// (``CallerDirectory``), passes the ``AccessStage`` for what it declares it needs, then its
/// handler. A row's `decode` runs first, on the connection's queue, after the table checked the
/// signature: it reads the typed arguments and validates them (a refusal there changes nothing).
struct BusTable: Sendable {
    /// What a row does once its caller is known and admitted; returns the reply values, or nil
    /// when it answers the call's reply itself later.
    typealias Body = @Sendable (BusCaller) async throws -> [DBusValue]?
    typealias Decode = @Sendable (DBusMethodCall, inout DBusArgumentReader) throws(DBusError) -> Body

    let directory: CallerDirectory
    let stage: AccessStage

    /// A row queued behind the sender's earlier calls. `writesFiles` marks a row whose engine call
    /// may save state synchronously (a profile, face decisions, a reset ledger): its body runs on
    /// Swift's global executor instead of the connection's loop, so an fsync holds the engine's
    /// actor (everyone's engine calls wait, suspended) but never the thread that reads and
    /// answers the bus.
    func method(_ name: String, needs access: BusAccess, writesFiles: Bool = false, _ decode: @escaping Decode) -> DBusVTable.Method {
        let (directory, stage) = (self.directory, self.stage)
        return DBusVTable.Method(name) { call throws(DBusError) in
            var arguments = call.reader
            let body = try decode(call, &arguments)
            return Self.respond(call, directory, stage, access, writesFiles ? Self.offTheLoop(body) : body)
        }
    }

    /// Queues `body` for `call` behind the stage, for a row that decides itself how to answer.
    func respond(_ call: DBusMethodCall, needs access: BusAccess, writesFiles: Bool = false, _ body: @escaping Body) -> DBusMethodReply {
        Self.respond(call, directory, stage, access, writesFiles ? Self.offTheLoop(body) : body)
    }

    private static func respond(_ call: DBusMethodCall, _ directory: CallerDirectory, _ stage: AccessStage,
                                _ access: BusAccess, _ body: @escaping Body) -> DBusMethodReply {
        directory.respond(to: call) { bus in
            try await stage.check(access, bus)
            return try await body(bus)
        }
    }

    /// `body` run with the global concurrent executor preferred over the loop the sender's queue prefers.
    private static func offTheLoop(_ body: @escaping Body) -> Body {
        { bus in try await withTaskExecutorPreference(globalConcurrentExecutor) { try await body(bus) } }
    }

    /// A row answered at once on the connection's queue, not queued behind the sender's calls;
    /// open to anyone (it can only concern the calling connection itself).
    func immediate(_ name: String, _ handler: @escaping DBusVTable.MethodHandler) -> DBusVTable.Method {
        DBusVTable.Method(name, handler)
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
