// SPDX-License-Identifier: Apache-2.0
import LocalAuthCore
import LocalAuthTestSupport
import Testing

/// What the rights tests share: the app identities, a harness set up for rights, and right
/// authorizations started and waited on as ``EngineHarness/begin(_:on:by:reason:)`` does for policies.
enum Rights {
    typealias H = EngineHarness
    static let app = "/usr/bin/notes"
    static let otherApp = "flatpak:org.example.Other"

    /// A harness whose user alice has the passcode and, when asked, a finger.
    static func harness(fingers: [String] = ["right-index-finger"]) async throws -> EngineHarness {
        let h = try EngineHarness()
        try await h.setUp(fingers: fingers)
        return h
    }

    /// A context of `caller` whose app identity is `app`.
    static func context(_ h: EngineHarness, _ caller: Caller = H.alice, app: String? = Rights.app) async throws -> ContextID {
        try await h.context(caller) { $0.appIdentity = app }
    }

    static func secret(_ text: String) -> SecretBytes { SecretBytes(bytes: Array(text.utf8)) }

    static func text(_ secret: SecretBytes) -> String { secret.withBytes { String(decoding: $0, as: UTF8.self) } }

    @discardableResult
    static func save(_ h: EngineHarness, _ identifier: String = "notes-key", requirement: String = "default", secret: String? = "s3cret",
                     app: String? = Rights.app, caller: Caller = H.alice) async throws(LocalAuthError) -> RightInfo {
        try await h.engine.saveRight(identifier, requirement: requirement, secret: secret.map(Self.secret), app: app, caller: caller)
    }

    /// Starts authorizing `identifier` and returns once its first evaluation runs (or it already ended).
    static func authorize(_ h: EngineHarness, _ identifier: String = "notes-key", on context: ContextID, by caller: Caller = H.alice) async -> Run {
        await start(h, on: context) { engine, reply in
            await engine.beginRightAuthorization(identifier, reason: "open the notes", context: context, caller: caller.client, completion: reply)
        }
    }

    /// Authorizes `identifier` in Alice's `context` with her passcode (a requirement the passcode meets).
    static func authorizeWithPasscode(_ h: EngineHarness, _ identifier: String = "notes-key", on context: ContextID) async throws {
        let run = await authorize(h, identifier, on: context)
        try await h.engine.submitPasscode(Passcode(H.passcode), context: context, caller: H.alice.client)
        try await run.result.get()
    }

    /// Starts evaluating a requirement without a stored right.
    static func evaluate(_ h: EngineHarness, _ requirement: String, domainState: [UInt8]? = nil, on context: ContextID, by caller: Caller = H.alice) async -> Run {
        await start(h, on: context) { engine, reply in
            await engine.beginRequirementEvaluation(requirement, domainState: domainState, reason: "check it is you", context: context,
                                                    caller: caller.client, completion: reply)
        }
    }

    private static func start(_ h: EngineHarness, on context: ContextID,
                              _ begin: @escaping @Sendable (PolicyEngine, @escaping @Sendable (Result<Void, LocalAuthError>) -> Void) async -> Void) async -> Run {
        let (engine, observer) = (h.engine, h.observer)
        let running = observer.expectActivity(of: context)
        let task = Task { () -> Result<Void, LocalAuthError> in
            defer { observer.meet(running) }
            return await withCheckedContinuation { continuation in
                Task { await begin(engine) { continuation.resume(returning: $0) } }
            }
        }
        await observer.wait(for: running)
        _ = await engine.userState(of: H.alice.uid)
        return Run(task: task)
    }

    /// Runs `step` (which ends the current evaluation successfully) and returns once the next
    /// evaluation of an `and` requirement runs (or the authorization ended).
    static func nextStep(_ h: EngineHarness, on context: ContextID, run: Run, after step: () async throws -> Void) async rethrows {
        let running = h.observer.expectActivity(of: context)
        let observer = h.observer
        let watcher = Task { _ = await run.task.value; observer.meet(running) }
        try await step()
        await observer.wait(for: running)
        _ = watcher
        _ = await h.engine.userState(of: H.alice.uid)
    }

    /// Expects `body` to throw a LocalAuthError of `kind` (the sentences are not compared).
    static func expect<Value>(_ kind: LocalAuthError.Kind, sourceLocation: SourceLocation = #_sourceLocation,
                              _ body: () async throws -> Value) async {
        do {
            _ = try await body()
            Issue.record("expected \(kind), got success", sourceLocation: sourceLocation)
        } catch let error as LocalAuthError {
            #expect(error.kind == kind, "\(error.message)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("expected \(kind), got \(error)", sourceLocation: sourceLocation)
        }
    }

    /// A right authorization in progress.
    struct Run: Sendable {
        let task: Task<Result<Void, LocalAuthError>, Never>
        var result: Result<Void, LocalAuthError> { get async { await task.value } }
        /// The error's kind, nil on success.
        var errorKind: LocalAuthError.Kind? {
            get async {
                if case .failure(let error) = await task.value { return error.kind }
                return nil
            }
        }
    }
}
