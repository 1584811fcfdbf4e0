// SPDX-License-Identifier: Apache-2.0
import Foundation
@_spi(Testing) import LocalAuthentication
import LocalAuthTestSupport
import Security
import Testing

/// SecAccessControlCreateWithFlags, and LAContext.evaluateAccessControl against the real
/// localauthd for each flag.
@Suite("Access controls against localauthd", .timeLimit(.minutes(2)))
struct AccessControlTests {
    static let finger = "right-index-finger"

    func accessControl(_ flags: SecAccessControlCreateFlags) throws -> SecAccessControl {
        var error: Unmanaged<CFError>?
        let access = SecAccessControlCreateWithFlags(kCFAllocatorDefault, kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly, flags, &error)
        #expect(error == nil)
        return try #require(access)
    }

    @Test func createWithFlagsRefusesWhatApplesRefuses() throws {
        let refused: [(CFString, SecAccessControlCreateFlags)] = [
            ("not-an-accessibility", .userPresence),
            (kSecAttrAccessibleWhenUnlocked, [.biometryAny, .or, .and, .devicePasscode]),
            (kSecAttrAccessibleWhenUnlocked, SecAccessControlCreateFlags(rawValue: 1 << 20)),
        ]
        for (protection, flags) in refused {
            var error: Unmanaged<CFError>?
            #expect(SecAccessControlCreateWithFlags(nil, protection, flags, &error) == nil)
            let failure = try #require(error).takeRetainedValue() as Error as NSError
            #expect(failure.domain == NSOSStatusErrorDomain && failure.code == Int(errSecParam))
        }
        let access = try accessControl([.biometryCurrentSet, .or, .devicePasscode, .privateKeyUsage])
        #expect(access.protection == "akpu" && access.flags.contains(.biometryCurrentSet))
        #expect(SecAccessControlCreateWithFlags(kCFAllocatorDefault, kSecAttrAccessibleAfterFirstUnlock, .userPresence, nil) != nil)
    }

    @Test func noConstraintSucceedsWithoutAskingAndCompanionsAreNeverAvailable() async throws {
        let context = LAContext(busAddress: "unix:path=/nonexistent/bus")
        #expect(try await context.evaluateAccessControl(try accessControl([]), operation: .createItem, localizedReason: "nothing"))
        #expect(try await context.evaluateAccessControl(try accessControl(.privateKeyUsage), operation: .createKey, localizedReason: "key"))
        for flags: SecAccessControlCreateFlags in [.companion, [.companion, .and, .biometryAny]] {
            #expect(try await code {
                _ = try await context.evaluateAccessControl(try accessControl(flags), operation: .useItem, localizedReason: "watch")
            } == .companionNotAvailable)
        }
    }

    @Test func eachFlagIsEvaluatedByTheDaemon() async throws {
        try await withDaemon { _, bus in
            let admin = try await Client(bus)
            try await admin.setUp()  // a passcode only
            func evaluate(_ flags: SecAccessControlCreateFlags, _ operation: LAAccessControlOperation = .useItem,
                          passcode: String? = nil, credential: String? = nil) async throws -> LAError.Code? {
                let context = LAContext(busAddress: bus.address)
                if let passcode { context.passcodeProvider = { _ in passcode } }
                if let credential { #expect(context.setCredential(Data(credential.utf8), type: .applicationPassword)) }
                let access = try accessControl(flags)
                return try await code { _ = try await context.evaluateAccessControl(access, operation: operation, localizedReason: "test") }
            }
            #expect(try await evaluate(.biometryAny) == .biometryNotEnrolled)
            #expect(try await evaluate(.biometryCurrentSet) == .biometryNotEnrolled)
            #expect(try await evaluate(.devicePasscode, passcode: "4711-secret") == nil)
            #expect(try await evaluate(.applicationPassword, passcode: "4711-secret") == nil)
            #expect(try await evaluate(.userPresence, passcode: "4711-secret") == nil, "no biometry: the passcode")

            _ = try await admin.manager("Enroll", [.string("fingerprint"), .string(Self.finger), .string("4711-secret")])
            for flags: SecAccessControlCreateFlags in [.userPresence, .biometryAny, .biometryCurrentSet, [.companion, .or, .biometryAny]] {
                try await admin.simulator("Touch", [.string(Self.finger)])
                #expect(try await evaluate(flags) == nil, "\(flags)")
            }
            for operation in LAAccessControlOperation.allCases {
                try await admin.simulator("Touch", [.string(Self.finger)])
                #expect(try await evaluate([.biometryAny, .privateKeyUsage], operation) == nil, "\(operation)")
            }
            // and: the touch, then the passcode, in one context.
            try await admin.simulator("Touch", [.string(Self.finger)])
            #expect(try await evaluate([.biometryAny, .and, .devicePasscode], passcode: "4711-secret") == nil)
            // or: either; the passcode alone is enough (offered while biometry listens).
            #expect(try await evaluate([.biometryAny, .or, .devicePasscode], credential: "4711-secret") == nil)
        }
    }

    @Test func theReplyFormRunsOffTheCallersQueue() async throws {
        try await withDaemon { _, bus in
            let admin = try await Client(bus)
            try await admin.setUp(fingers: [Self.finger])
            try await admin.simulator("Touch", [.string(Self.finger)])
            let replied = Inbox<Bool>()
            LAContext(busAddress: bus.address).evaluateAccessControl(try accessControl(.biometryAny), operation: .useKeySign,
                                                                    localizedReason: "sign") { success, error in
                replied.put(success && error == nil)
            }
            #expect(try await replied.next(within: .seconds(30)))
        }
    }
}
