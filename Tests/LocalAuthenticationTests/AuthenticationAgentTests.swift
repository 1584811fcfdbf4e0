// SPDX-License-Identifier: Apache-2.0
import Foundation
@_spi(Testing) import LocalAuthentication
import LocalAuthTestSupport
import Testing

/// A Swift program as the agent: `LAContext` needs no passcode provider, the app never sees the passcode.
@Suite("LAAuthenticationAgent", .timeLimit(.minutes(2)))
struct AuthenticationAgentTests {
    @Test func aSwiftAgentAnswersForAnLAContextWithoutAPasscodeProvider() async throws {
        try await withDaemon(configuration: "app_passcode_entry = false\n") { _, bus in
            let admin = try await Client(bus)
            try await admin.setUp()
            let agent = try await LAAuthenticationAgent.register(scope: .fallback, locale: "de_DE.UTF-8", busAddress: bus.address)
            defer { agent.unregister() }
            let context = LAContext(busAddress: bus.address)
            let outcome = evaluate(context, .deviceOwnerAuthentication, reason: "Notizen öffnen")
            var request: LAAuthenticationAgent.Request?
            for await event in agent.events {
                switch event {
                case .began(let began):
                    request = began
                case .updated(let handle, "passcode", _, let message):
                    #expect(message == "Geben Sie Ihren Code ein.")
                    await #expect(throws: LAError.self) { try await agent.answer(.passcode("wrong-guess"), for: handle) }
                case .updated(let handle, "passcode-wrong", _, _):
                    try await agent.answer(.passcode("4711-secret"), for: handle)
                case .ended(_, let result):
                    #expect(result == "success")
                default:
                    continue
                }
                if case .ended = event { break }
            }
            #expect(try await outcome.next(within: .seconds(10)) == nil)
            #expect(request?.localizedReason == "Notizen öffnen" && request?.title == "Authentifizierung erforderlich" && request?.passcodeAllowed == true)
        }
    }
}
