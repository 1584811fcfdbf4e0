// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI
import LocalAuthCore
import LocalAuthTestSupport
import Testing

@Suite("Contexts: ownership, limits, invalidation, options", .timeLimit(.minutes(1)))
struct ContextLifecycleTests {
    typealias H = EngineHarness
    let bio = LAPolicy.deviceOwnerAuthenticationWithBiometrics

    /// Ids are random (ContextNumbersAreUnguessableTests); an invalidated one is not handed out again.
    @Test func anInvalidatedIDIsNotReused() async throws {
        let h = try EngineHarness()
        let first = try await h.context()
        try await h.engine.invalidate(context: first, caller: H.alice.client)
        await h.engine.clientDisconnected(H.alice.client)
        let second = try await h.context()
        #expect(first != second)
    }

    /// A client that leaves takes all of its contexts with it (a running evaluation ends with
    /// systemCancel) and none of anyone else's, whatever order the clients leave in, also when it
    /// invalidated some of them before.
    @Test func aLeavingClientTakesAllAndOnlyItsContexts() async throws {
        let h = try EngineHarness()
        try await h.setUp(fingers: ["right-index-finger"])
        let clients = (0..<4).map { Caller(client: ClientID(":5.\($0)"), uid: H.alice.uid) }
        var owned: [ClientID: [ContextID]] = [:]
        for _ in 0..<20 {
            for caller in clients { owned[caller.client, default: []].append(try await h.context(caller)) }
        }
        for context in owned[clients[3].client]!.suffix(5) {
            try await h.engine.invalidate(context: context, caller: clients[3].client)
        }
        let evaluation = await h.begin(bio, on: owned[clients[1].client]![3], by: clients[1])
        for (index, leaving) in [clients[1], clients[3], clients[0]].enumerated() {
            await h.engine.clientDisconnected(leaving.client)
            #expect(await h.engine.counts().contexts == 20 * (3 - index) - (index == 0 ? 5 : 0))
            for context in owned[leaving.client]! {
                await #expect(throws: LocalAuthError.self) { try await h.engine.snapshot(of: context, caller: leaving.client) }
            }
        }
        #expect(await evaluation.errorCode == .systemCancel)
        for context in owned[clients[2].client]! {
            #expect(try await h.engine.snapshot(of: context, caller: clients[2].client).state == .idle)
        }
    }

    @Test func invalidateEndsTheEvaluationWithAppCancelAndThenEveryCallFails() async throws {
        let h = try EngineHarness()
        try await h.setUp(fingers: ["right-index-finger"])
        let context = try await h.context()
        let evaluation = await h.begin(bio, on: context)
        try await h.engine.invalidate(context: context, caller: H.alice.client)
        #expect(await evaluation.errorCode == .appCancel)
        try await h.engine.invalidate(context: context, caller: H.alice.client)  // twice: a no-op
        let invalid = LocalAuthError(.invalidContext)
        await #expect(throws: invalid) { try await h.engine.canEvaluatePolicy(bio, context: context, caller: H.alice.client) }
        await #expect(throws: invalid) { try await h.engine.cancel(context: context, caller: H.alice.client) }
        await #expect(throws: invalid) { try await h.engine.snapshot(of: context, caller: H.alice.client) }
        await #expect(throws: invalid) { try await h.engine.updateOptions(of: context, caller: H.alice.client, .interactionNotAllowed(true)) }
        #expect(await h.begin(bio, on: context).errorCode == .invalidContext)
        #expect(h.observer.changes.last?.state == .invalidated)
    }

    /// Probing ids tells a client nothing about others' contexts: another client's live context,
    /// its invalidated one and one that never existed answer every call with the same error and
    /// message, whether the prober is another user or the same user's other connection.
    @Test func anotherClientCannotTellWhetherAContextExists() async throws {
        let h = try EngineHarness()
        try await h.setUp(fingers: ["right-index-finger"])
        let live = try await h.context(H.alice)
        let invalidated = try await h.context(H.alice)
        try await h.engine.invalidate(context: invalidated, caller: H.alice.client)
        let never = ContextID(999)
        let engine = h.engine, policy = bio
        let probes: [(String, @Sendable (ContextID, ClientID) async throws -> Void)] = [
            ("canEvaluatePolicy", { try await engine.canEvaluatePolicy(policy, context: $0, caller: $1) }),
            ("evaluatePolicy", { _ = try await engine.evaluatePolicy(policy, reason: "x", context: $0, caller: $1) }),
            ("snapshot", { _ = try await engine.snapshot(of: $0, caller: $1) }),
            ("updateOptions", { try await engine.updateOptions(of: $0, caller: $1, .localizedCancelTitle("x")) }),
            ("submitPasscode", { try await engine.submitPasscode(Passcode(H.passcode), context: $0, caller: $1) }),
            ("cancel", { try await engine.cancel(context: $0, caller: $1) }),
            ("fallback", { try await engine.fallback(context: $0, caller: $1) }),
            ("invalidate", { try await engine.invalidate(context: $0, caller: $1) }),
        ]
        for stranger in [H.bob.client, H.aliceSecondApp.client] {
            for (name, probe) in probes {
                var answers: [String] = []
                for id in [live, invalidated, never] {
                    do {
                        try await probe(id, stranger)
                        answers.append("allowed")
                    } catch let error as LocalAuthError {
                        answers.append("\(error.kind): \(error.message)")
                    }
                }
                #expect(Set(answers).count == 1 && answers[0].hasPrefix("unknownContext"), "\(name) by \(stranger): \(answers)")
            }
        }
        #expect(try await h.state(of: live) == .idle)
        await #expect(throws: LocalAuthError(.invalidContext)) { try await h.engine.snapshot(of: invalidated, caller: H.alice.client) }
    }

    @Test func unknownContextsAreUnknown() async throws {
        let h = try EngineHarness()
        do { _ = try await h.engine.snapshot(of: ContextID(99), caller: H.alice.client); Issue.record("found") } catch {
            #expect(error.kind == .unknownContext)
        }
    }

    @Test func perClientLimitAndCreateInvalidateLoopsNeverHitIt() async throws {
        var configuration = Configuration()
        configuration.maxContextsPerClient = 4
        let h = try EngineHarness(configuration: configuration)
        var contexts: [ContextID] = []
        for _ in 1...4 { contexts.append(try await h.context()) }
        do { _ = try await h.context(); Issue.record("fifth accepted") } catch let error as LocalAuthError {
            #expect(error.kind == .limitsExceeded)
        }
        _ = try await h.context(H.bob)  // other clients are unaffected
        try await h.engine.invalidate(context: contexts[0], caller: H.alice.client)
        for _ in 1...200 {
            let context = try await h.context()
            try await h.engine.invalidate(context: context, caller: H.alice.client)
        }
        #expect(await h.engine.counts().contexts == 4)
    }

    @Test func globalLimit() async throws {
        var configuration = Configuration()
        configuration.maxContexts = 2
        configuration.rootReservedContexts = 0
        let h = try EngineHarness(configuration: configuration)
        _ = try await h.context(H.alice)
        _ = try await h.context(H.bob)
        await #expect(throws: LocalAuthError.self) { try await h.context(H.aliceSecondApp) }
        await #expect(throws: LocalAuthError.self) { try await h.context(H.root) }
    }

    /// One user's connections together stop at maxContextsPerUser; users together stop where
    /// root's reserve begins; root (logins, sudo, unlock contexts) still gets the reserve.
    @Test func perUserLimitAndRootsReserve() async throws {
        var configuration = Configuration()
        configuration.maxContextsPerClient = 4
        configuration.maxContextsPerUser = 10
        configuration.maxContexts = 24
        configuration.rootReservedContexts = 4
        let h = try EngineHarness(configuration: configuration)
        /// Opens connections of `uid` and fills each until a fresh one's first context is refused.
        func fill(uid: UInt32, from first: Int = 0) async -> (created: Int, refusal: String) {
            var created = 0
            for connection in first..<(first + 100) {
                let caller = Caller(client: ClientID(":9.\(uid).\(connection)"), uid: uid)
                var made = 0
                while true {
                    do {
                        _ = try await h.context(caller)
                        created += 1
                        made += 1
                    } catch {
                        if made == 0 { return (created, (error as? LocalAuthError)?.message ?? "\(error)") }
                        break
                    }
                }
            }
            return (created, "never refused")
        }
        let attacker = await fill(uid: 2000)
        #expect(attacker.created == 10 && attacker.refusal.contains("together already have 10 contexts"), "\(attacker)")
        _ = try await h.context(H.bob)  // another user is unaffected
        let second = await fill(uid: 3000)
        #expect(second.created == 9 && second.refusal.contains("unprivileged"), "20 of 24 for users: \(second)")
        // A connection that leaves gives its contexts back to its user's share.
        await h.engine.clientDisconnected(ClientID(":9.2000.0"))
        #expect(await fill(uid: 2000, from: 100).created == 4)
        await #expect(throws: LocalAuthError.self) { try await h.context(H.alice) }

        _ = try await h.context(H.root) { $0.user = H.alice.uid; $0.isUnlockContext = true }
        for _ in 1...3 { _ = try await h.context(H.root) { $0.user = 2000 } }
        do { _ = try await h.context(Caller(client: ClientID(":1.2"), uid: 0)); Issue.record("beyond maxContexts") } catch let error as LocalAuthError {
            #expect(error.message.contains("maximum of 24"))
        }
    }

    @Test func invalidatedContextsAreRememberedBoundedlyPerClient() async throws {
        let h = try EngineHarness()
        let oldest = try await h.context()
        try await h.engine.invalidate(context: oldest, caller: H.alice.client)
        for _ in 1..<PolicyEngine.invalidatedContextsKeptPerClient {
            try await h.engine.invalidate(context: try await h.context(), caller: H.alice.client)
        }
        await #expect(throws: LocalAuthError(.invalidContext)) { try await h.engine.snapshot(of: oldest, caller: H.alice.client) }
        try await h.engine.invalidate(context: try await h.context(), caller: H.alice.client)
        do { _ = try await h.engine.snapshot(of: oldest, caller: H.alice.client); Issue.record("still remembered") } catch {
            #expect(error.kind == .unknownContext)
        }
    }

    @Test func onlyRootMayActForAnotherUserOrCreateUnlockContexts() async throws {
        let h = try EngineHarness()
        for configure in [{ (o: inout ContextOptions) in o.user = 1001 }, { (o: inout ContextOptions) in o.isUnlockContext = true }] {
            do { _ = try await h.context(H.alice, configure); Issue.record("allowed") } catch let error as LocalAuthError {
                #expect(error.kind == .accessDenied)
            }
            _ = try await h.context(H.root, configure)
        }
        let forAlice = try await h.context(H.root) { $0.user = H.alice.uid }
        #expect(try await h.engine.snapshot(of: forAlice, caller: H.root.client).user == H.alice.uid)
    }

    @Test func optionsAreValidatedAndTheReuseDurationClamped() async throws {
        let h = try EngineHarness()
        let context = try await h.context()
        let engine = h.engine, client = H.alice.client
        try await engine.updateOptions(of: context, caller: client, .allowableReuseDuration(1000))
        #expect(try await engine.snapshot(of: context, caller: client).options.allowableReuseDuration == 300)
        try await engine.updateOptions(of: context, caller: client, .allowableReuseDuration(-5))
        #expect(try await engine.snapshot(of: context, caller: client).options.allowableReuseDuration == 0)
        for bad in [ContextOptionChange.allowableReuseDuration(.nan), .localizedCancelTitle(""),
                    .localizedFallbackTitle(String(repeating: "x", count: 513))] {
            do { try await engine.updateOptions(of: context, caller: client, bad); Issue.record("accepted \(bad)") } catch {
                #expect(error.kind == .invalidArgument)
            }
        }
        let options = try await engine.snapshot(of: context, caller: client).options
        #expect(options.localizedFallbackTitle == "Enter Password" && options.localizedCancelTitle == "Cancel")
        try await engine.updateOptions(of: context, caller: client, .localizedFallbackTitle(""))
        #expect(try await engine.snapshot(of: context, caller: client).options.localizedFallbackTitle == "")
    }

    @Test func promptsUseTheContextsTitles() async throws {
        let h = try EngineHarness()
        try await h.setUp(fingers: ["right-index-finger"])
        let context = try await h.context { $0.localizedFallbackTitle = "Use PIN"; $0.localizedCancelTitle = "Not now" }
        _ = await h.begin(.deviceOwnerAuthentication, on: context, reason: "open the diary")
        let message = try #require(h.observer.prompts.last).prompt.message
        #expect(message.contains("open the diary") && message.contains("“Use PIN”") && message.contains("“Not now”"))
        #expect(h.observer.prompts.allSatisfy { $0.owner == H.alice.client })
    }
}
