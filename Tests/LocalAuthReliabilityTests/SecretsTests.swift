// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthAPI
import LocalAuthDBus
import LocalAuthTestSupport
import Testing

/// After a full run, the passcodes used appear in no log, no state file and no process's command line.
@Suite("Secrets", .timeLimit(.minutes(2)))
struct SecretsTests {
    typealias D = DaemonUnderTest

    @Test func passcodesAppearNowhereAfterAFullRun() async throws {
        let first = "first-\(UInt64.random(in: 1...UInt64.max))", second = "second-\(UInt64.random(in: 1...UInt64.max))"
        let wrong = "wrong-\(UInt64.random(in: 1...UInt64.max))"
        try await withDaemon { daemon, bus in
            let client = try await Client(bus)
            try await client.setUp(passcode: first, fingers: ["right-index-finger"], faces: ["primary"])
            _ = await errorName { _ = try await client.manager("SetPasscode", [.string(wrong), .string(second)]) }
            _ = try await client.manager("SetPasscode", [.string(first), .string(second)])
            _ = try await client.manager("SetRequireAttention", [.bool(false), .string(second)])
            _ = try await client.manager("Unenroll", [.string("face"), .string("primary"), .string(second)])
            let context = try await client.createContext()
            let running = try await client.begin(context, policy: 2)
            _ = await errorName { _ = try await client.context(context, "SubmitPasscode", [.string(wrong)]) }
            _ = try await client.context(context, "SubmitPasscode", [.string(second)])
            #expect(await running.value == nil)
            let pid = try #require(try await client.connection.credentials(of: LocalAuthBusNames.busName).pid)

            var places: [(String, Data)] = [("daemon log", Data(daemon.logText.utf8))]
            let files = FileManager.default.enumerator(atPath: daemon.stateDirectory)?.compactMap { $0 as? String } ?? []
            #expect(files.contains { $0.hasSuffix("ledger.json") })
            for file in files {
                places.append(("state file \(file)", FileManager.default.contents(atPath: "\(daemon.stateDirectory)/\(file)") ?? Data()))
            }
            for process in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] where Int(process) != nil {
                if let command = FileManager.default.contents(atPath: "/proc/\(process)/cmdline") {
                    places.append(("/proc/\(process)/cmdline", command))
                }
            }
            #expect(places.contains { $0.0 == "/proc/\(pid)/cmdline" }, "the daemon's command line was not read")
            for (place, data) in places {
                for secret in [first, second, wrong] {
                    #expect(data.range(of: Data(secret.utf8)) == nil, "\(place) holds a passcode used in this run")
                }
            }
        }
    }

    /// Issue 10, finding 8: once the calls that carried them have been answered, no copy of a
    /// passcode is left anywhere in the daemon's memory (libdbus's buffers, Swift strings, freed heap).
    @Test func passcodesAreGoneFromDaemonMemoryAfterTheCalls() async throws {
        let current = MaskedSecret(prefix: "cur-"), refused = MaskedSecret(prefix: "new-")
        let wrongCurrent = MaskedSecret(prefix: "bad-"), wrongSubmitted = MaskedSecret(prefix: "sub-")
        let secrets = [("current passcode", current), ("refused new passcode", refused),
                       ("wrong current passcode", wrongCurrent), ("wrong submitted passcode", wrongSubmitted)]
        func argument(_ secret: MaskedSecret) -> DBusValue { secret.withPlainBytes { .string(String(decoding: $0, as: UTF8.self)) } }
        try await withDaemon { _, bus in
            let client = try await Client(bus)
            _ = try await client.manager("SetPasscode", [.string(""), argument(current)])
            let refusal = await errorName { _ = try await client.manager("SetPasscode", [argument(wrongCurrent), argument(refused)]) }
            #expect(refusal == LocalAuthBusNames.errorPrefix + "AuthenticationFailed")
            let context = try await client.createContext()
            let running = try await client.begin(context, policy: 2)
            let wrong = await errorName { _ = try await client.context(context, "SubmitPasscode", [argument(wrongSubmitted)]) }
            #expect(wrong == LocalAuthBusNames.errorPrefix + "AuthenticationFailed")
            _ = try await client.context(context, "SubmitPasscode", [argument(current)])
            #expect(await running.value == nil)
            // The daemon runs each client's requests in order: once this is answered, the jobs that
            // held the passcodes above have finished and been released.
            _ = try await client.userState()
            let pid = try #require(try await client.connection.credentials(of: LocalAuthBusNames.busName).pid)

            let copies = try MemoryScan.copies(of: secrets.map(\.1), in: Int32(pid))
            for ((name, _), hits) in zip(secrets, copies) {
                #expect(hits.isEmpty, "the daemon's memory holds \(hits.count) copies of the \(name): \(hits)")
            }
        }
    }
}
