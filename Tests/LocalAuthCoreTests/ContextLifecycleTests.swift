import LocalAuthCore
import LocalAuthTestSupport
import Testing

@Suite("Contexts: ownership, limits, invalidation, options", .timeLimit(.minutes(1)))
struct ContextLifecycleTests {
    typealias H = EngineHarness
    let bio = LAPolicy.deviceOwnerAuthenticationWithBiometrics

    @Test func idsCountUpFromOneAndAreNeverReused() async throws {
        let h = try EngineHarness()
        let first = try await h.context()
        try await h.engine.invalidate(context: first, caller: H.alice.client)
        await h.engine.clientDisconnected(H.alice.client)
        let second = try await h.context()
        #expect(first == ContextID(1))
        #expect(second == ContextID(2))
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

    @Test func anotherClientIsDeniedEverything() async throws {
        let h = try EngineHarness()
        let context = try await h.context(H.alice)
        let stranger = H.aliceSecondApp.client  // even the same user from another connection
        func denied(_ body: () async throws -> Void) async {
            do { try await body(); Issue.record("allowed") } catch { #expect((error as? LocalAuthError)?.kind == .accessDenied) }
        }
        await denied { try await h.engine.canEvaluatePolicy(bio, context: context, caller: stranger) }
        await denied { _ = try await h.engine.snapshot(of: context, caller: stranger) }
        await denied { try await h.engine.cancel(context: context, caller: stranger) }
        await denied { try await h.engine.fallback(context: context, caller: stranger) }
        await denied { try await h.engine.invalidate(context: context, caller: stranger) }
        await denied { try await h.engine.submitPasscode(Passcode("1234"), context: context, caller: stranger) }
        await denied { try await h.engine.updateOptions(of: context, caller: stranger, .localizedCancelTitle("x")) }
        await denied { _ = try await h.engine.evaluatePolicy(bio, reason: "x", context: context, caller: stranger) }
        #expect(try await h.state(of: context) == .idle)
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
        let h = try EngineHarness(configuration: configuration)
        _ = try await h.context(H.alice)
        _ = try await h.context(H.bob)
        await #expect(throws: LocalAuthError.self) { try await h.context(H.aliceSecondApp) }
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
