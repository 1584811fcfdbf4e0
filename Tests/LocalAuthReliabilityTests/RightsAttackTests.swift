// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthAPI
import LocalAuthDBus
import LocalAuthProxies
import LocalAuthTestSupport
import Testing

/// Attacks on rights, their keys and secrets and the stored login password, against the real
/// daemon: the login password's release and discard rules, and what an unprivileged user can
/// send to every Rights and Context member (malformed keys, sizes, requirements, random
/// arguments) without crashing the daemon, reaching root's right, or getting a secret logged.
@Suite("Rights attacks", .timeLimit(.minutes(3)))
struct RightsAttackTests {
    static let passcode = "4711-secret"
    static let configuration = "key_protection = wrapping-key\n"

    /// A requirement that took the passcode in any of its steps is no biometric match: the login
    /// password stays locked after "biometry and passcode" and "passcode and biometry", and is
    /// released after "biometry" (the same steps without the passcode).
    @Test(.enabled(if: getuid() == 0, "the login password is released to root only"))
    func theLoginPasswordIsNotReleasedAfterARequirementThatTookThePasscode() async throws {
        try await withDaemon(configuration: Self.configuration) { daemon, bus in
            let client = try await Client(bus)
            try await client.setUp(passcode: Self.passcode, fingers: ["left-thumb"])
            let password = "login-\(UInt64.random(in: 1...UInt64.max))"
            try await RightsProxy(client.connection).storeLoginPassword(.string(password))
            let touch: Step = .touch("left-thumb"), typed: Step = .passcode(Self.passcode)
            for (requirement, steps) in [("biometry and passcode", [touch, typed]), ("passcode and biometry", [typed, touch])] {
                let context = client.contextProxy(try await client.createContext(["User": .uint32(0)]))
                #expect(await Self.evaluate(client, context, requirement, steps) == nil, "\(requirement)")
                #expect(await errorName { _ = try await context.releaseLoginPassword() } == LocalAuthErrorName.rightNotAuthorized.dbusName,
                        "released after \(requirement)")
            }
            let touched = client.contextProxy(try await client.createContext(["User": .uint32(0)]))
            #expect(await Self.evaluate(client, touched, "biometry", [touch]) == nil)
            #expect(try await touched.releaseLoginPassword().string == password)
            #expect(!daemon.logText.contains(password), "the password is never logged")
        }
    }

    /// DiscardLoginPassword removes the password its context released, never one the user
    /// stored after it (the PAM module discards a password that failed; the user's new one stays).
    @Test(.enabled(if: getuid() == 0, "the login password is released to root only"))
    func discardRemovesOnlyThePasswordTheContextReleased() async throws {
        try await withDaemon(configuration: Self.configuration) { _, bus in
            let client = try await Client(bus)
            try await client.setUp(passcode: Self.passcode, fingers: ["left-thumb"])
            let rights = RightsProxy(client.connection)
            try await rights.storeLoginPassword(.string("old password"))
            let pam = client.contextProxy(try await client.createContext(["User": .uint32(0)]))
            #expect(await Self.evaluate(client, pam, nil, [.touch("left-thumb")]) == nil)
            #expect(try await pam.releaseLoginPassword().string == "old password")
            // Meanwhile the user enrolls the new password; then the old one fails and is discarded.
            try await rights.storeLoginPassword(.string("new password"))
            #expect(await errorName { try await pam.discardLoginPassword() } == LocalAuthErrorName.rightNotFound.dbusName)
            #expect(try await client.userState()["LoginPasswordStored"]?.bool == true, "the new password stays")
            let next = client.contextProxy(try await client.createContext(["User": .uint32(0)]))
            #expect(await Self.evaluate(client, next, nil, [.touch("left-thumb")]) == nil)
            #expect(try await next.releaseLoginPassword().string == "new password")
            // The context that released the stored password does discard it.
            try await next.discardLoginPassword()
            #expect(try await client.userState()["LoginPasswordStored"]?.bool == false)
        }
    }

    /// A user's rights are bounded in bytes, not only in number: 1 024 rights of the largest secret
    /// made a 37 MB file, read on the engine (every user waited 6 s) and rewritten at each save on
    /// the queue every user's state is saved on (each save 5 s). With 63 rights of 16 KiB stored,
    /// another 16 KiB secret is refused; a small one and a replacement that does not grow are not.
    @Test func aUsersRightsAreBoundedInBytes() async throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let daemon = try DaemonUnderTest(bus: bus, configuration: Self.configuration)
        let secretBytes = 16_384
        try Self.writeRights(count: 63, sealedSecretCount: secretBytes + 41, in: daemon.stateDirectory)
        let watcher = try await bus.connect()
        defer { watcher.close(); daemon.kill() }
        try await daemon.start(watcher: watcher)
        let client = try await Client(bus)
        try await client.setUp(passcode: Self.passcode)
        let rights = RightsProxy(client.connection)
        #expect(try await rights.rights().count == 63, "the stored rights were read: \(daemon.logText)")
        let big = [UInt8](repeating: 7, count: secretBytes)
        let refused = await #expect(throws: DBusError.self) { _ = try await rights.saveRight("one-more", requirement: "passcode", secret: big) }
        #expect(refused?.name == .limitsExceeded && refused?.message.contains("KiB") == true, "\(String(describing: refused))")
        _ = try await rights.saveRight("small", requirement: "passcode", secret: Array("a token".utf8))
        _ = try await rights.saveRight("r000", requirement: "passcode", secret: big)
        #expect(try await rights.rights().count == 64)
    }

    // MARK: Helpers

    /// One evaluation step of a test: a touch of the simulator's finger, or the passcode typed.
    enum Step: Sendable {
        case touch(String)
        case passcode(String)
    }

    /// EvaluateRequirement (or EvaluatePolicy 1 when `requirement` is nil) on `context`, each step
    /// answered once the daemon prompts for it; the D-Bus error name it ended with, nil on success.
    static func evaluate(_ client: Client, _ context: ContextProxy, _ requirement: String?, _ steps: [Step]) async -> String? {
        do {
            let prompts = Inbox<String>()
            let subscription = try await client.connection.subscribe(
                DBusMatchRule(path: context.path, interface: LocalAuthBusNames.contextInterface, member: "Prompt")) { signal in
                prompts.put(signal.arguments.first?.string ?? "")
            }
            defer { client.connection.unsubscribe(subscription) }
            let call = Task {
                await errorName {
                    if let requirement {
                        try await context.evaluateRequirement(requirement, reason: "attack", timeout: .seconds(60))
                    } else {
                        _ = try await client.context(context.path, "EvaluatePolicy", [.uint32(1), .string("attack")], timeout: .seconds(60))
                    }
                }
            }
            for step in steps {
                switch step {
                case .touch(let finger):
                    while try await prompts.next(within: .seconds(60)) == "passcode" {}
                    try await client.simulator("Touch", [.string(finger)])
                case .passcode(let passcode):
                    while try await prompts.next(within: .seconds(60)) != "passcode" {}
                    try await context.submitPasscode(.string(passcode))
                }
            }
            return await call.value
        } catch {
            return "\(error)"
        }
    }

    /// Writes `count` rights of this test's executable with sealed secrets of `sealedSecretCount`
    /// random bytes into uid 0's rights file under `stateDirectory` (the file's version 1 form);
    /// they list and count, and are never unsealed.
    static func writeRights(count: Int, sealedSecretCount: Int, in stateDirectory: String) throws {
        let application = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        func hex(_ count: Int) -> String { (0..<count).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined() }
        let rights: [[String: Any]] = (0..<count).map { index in
            ["identifier": String(format: "r%03d", index), "application": application, "requirement": "passcode",
             "generation": UInt64.random(in: 1...UInt64.max), "created": 0, "publicKey": hex(65), "sealedPrivateKey": hex(73),
             "sealedSecret": hex(sealedSecretCount)]
        }
        let directory = stateDirectory + "/rights"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: stateDirectory)
        let data = try JSONSerialization.data(withJSONObject: ["version": 1, "rights": rights])
        #expect(FileManager.default.createFile(atPath: directory + "/\(getuid())", contents: data, attributes: [.posixPermissions: 0o600]))
    }
}
