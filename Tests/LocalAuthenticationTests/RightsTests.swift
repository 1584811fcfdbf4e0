// SPDX-License-Identifier: Apache-2.0
import Foundation
@_spi(Testing) import LocalAuthentication
import LocalAuthDBus
import LocalAuthTestSupport
import Security
import Testing

/// LARight, LARightStore, LAPersistedRight, LASecret and the right's keys against the real
/// localauthd on a private bus, authorized by simulated touches.
@Suite("Rights against localauthd", .timeLimit(.minutes(2)))
struct RightsTests {
    static let configuration = "key_protection = wrapping-key\n"
    static let finger = "right-index-finger"

    @Test func aPersistedRightGoesThroughEveryStateAndItsSecretOpensOnlyWhileAuthorized() async throws {
        try await withDaemon(configuration: Self.configuration + "fingerprint_attempts_per_evaluation = 1\n") { _, bus in
            let admin = try await Client(bus)
            try await admin.setUp(fingers: [Self.finger])
            let store = LARightStore(busAddress: bus.address)
            let right = try await store.saveRight(LARight(requirement: .biometry, busAddress: bus.address), identifier: "notes",
                                                  secret: Data("s3cret".utf8))
            #expect(right.state == .unknown)
            #expect(try await loadError(right.secret) == .notInteractive, "a secret before authorize")

            try await admin.simulator("Touch", [.string("left-thumb")])  // not enrolled: the one attempt fails
            #expect(try await code { try await right.authorize(localizedReason: "open your notes") } == .authenticationFailed)
            #expect(right.state == .notAuthorized)

            let authorized = Inbox<Bool>()
            right.authorize(localizedReason: "open your notes") { error in authorized.put(error == nil) }
            #expect(right.state == .authorizing)
            try await admin.simulator("Touch", [.string(Self.finger)])
            #expect(try await authorized.next(within: .seconds(30)))
            #expect(right.state == .authorized)
            #expect(try await right.secret.loadData() == Data("s3cret".utf8))
            try await right.checkCanAuthorize()

            await right.deauthorize()
            #expect(right.state == .notAuthorized)
            #expect(try await loadError(right.secret) == .notInteractive, "deauthorized")

            let found = try await store.right(forIdentifier: "notes")
            #expect(found.state == .unknown, "found again: a new object, not authorized")
            try await store.removeRight(found)
            #expect(try await status { _ = try await store.right(forIdentifier: "notes") } == errSecItemNotFound)
        }
    }

    @Test func eachRequirementAsksForWhatItSays() async throws {
        try await withDaemon(configuration: Self.configuration) { _, bus in
            let admin = try await Client(bus)
            try await admin.setUp()  // a passcode, no biometry yet
            func check(_ requirement: LAAuthenticationRequirement) async -> LAError.Code? {
                do {
                    try await LARight(requirement: requirement, busAddress: bus.address).checkCanAuthorize()
                    return nil
                } catch {
                    return (error as? LAError)?.code ?? .systemCancel
                }
            }
            #expect(await check(.default) == nil, "the passcode is enough")
            #expect(await check(.biometry(fallback: .devicePasscode)) == nil)
            #expect(await check(.biometry(fallback: .default)) == nil)
            #expect(await check(.biometry) == .biometryNotEnrolled)
            #expect(await check(.biometryCurrentSet) == .biometryNotEnrolled)
            let store = LARightStore(busAddress: bus.address)
            #expect(try await code { _ = try await store.saveRight(LARight(requirement: .biometry, busAddress: bus.address), identifier: "b") }
                == .biometryNotEnrolled)

            // Without biometry, the passcode fallback and the default requirement ask for the passcode.
            for requirement in [LAAuthenticationRequirement.default, .biometry(fallback: .devicePasscode)] {
                let right = LARight(requirement: requirement, busAddress: bus.address)
                let asked = Inbox<Bool>()
                right.passcodeProvider = { request in
                    asked.put(request.isRetry)
                    return "4711-secret"
                }
                try await right.authorize(localizedReason: "with the passcode")
                #expect(right.state == .authorized && asked.received == [false], "\(requirement)")
                await right.deauthorize()
                #expect(right.passcodeProvider != nil, "kept across deauthorize")
            }

            _ = try await admin.manager("Enroll", [.string("fingerprint"), .string(Self.finger), .string("4711-secret")])
            for requirement in [LAAuthenticationRequirement.default, .biometry, .biometryCurrentSet, .biometry(fallback: .devicePasscode)] {
                try await admin.simulator("Touch", [.string(Self.finger)])
                let right = LARight(requirement: requirement, busAddress: bus.address)
                try await right.authorize(localizedReason: "test \(requirement)")
                #expect(right.state == .authorized, "\(requirement)")
            }
        }
    }

    @Test func biometryCurrentSetRightsFailOnceTheEnrollmentsChange() async throws {
        try await withDaemon(configuration: Self.configuration) { _, bus in
            let admin = try await Client(bus)
            try await admin.setUp(fingers: [Self.finger])
            let store = LARightStore(busAddress: bus.address)
            let saved = try await store.saveRight(LARight(requirement: .biometryCurrentSet, busAddress: bus.address), identifier: "bank")
            let plain = LARight(requirement: .biometryCurrentSet, busAddress: bus.address)
            for right in [saved, plain] {
                try await admin.simulator("Touch", [.string(Self.finger)])
                try await right.authorize(localizedReason: "before")
                await right.deauthorize()
            }

            _ = try await admin.manager("Enroll", [.string("fingerprint"), .string("left-thumb"), .string("4711-secret")])
            for right in [saved, plain] {
                #expect(try await status { try await right.checkCanAuthorize() } == errSecItemNotFound)
                #expect(try await status { try await right.authorize(localizedReason: "after") } == errSecItemNotFound)
                #expect(right.state == .notAuthorized)
            }
            let again = try await store.right(forIdentifier: "bank")
            #expect(try await status { try await again.authorize(localizedReason: "found again") } == errSecItemNotFound,
                    "the record stays, unusable, until removed")
            // A right without the current-set term is not affected.
            try await admin.simulator("Touch", [.string("left-thumb")])
            try await LARight(requirement: .biometry, busAddress: bus.address).authorize(localizedReason: "any finger")
        }
    }

    @Test func removingThePasscodeRemovesEveryRight() async throws {
        try await withDaemon(configuration: Self.configuration) { _, bus in
            let admin = try await Client(bus)
            try await admin.setUp()
            let store = LARightStore(busAddress: bus.address)
            for identifier in ["a", "b"] {
                _ = try await store.saveRight(LARight(busAddress: bus.address), identifier: identifier, secret: Data(identifier.utf8))
            }
            _ = try await admin.manager("RemovePasscode", [.string("4711-secret")])
            for identifier in ["a", "b"] {
                #expect(try await status { _ = try await store.right(forIdentifier: identifier) } == errSecItemNotFound)
            }
            #expect(try await code { _ = try await store.saveRight(LARight(busAddress: bus.address), identifier: "c") } == .passcodeNotSet)
        }
    }

    @Test(.enabled(if: getuid() == 0, "only root can run the example as another user"))
    func anotherUsersRightIsNotFound() async throws {
        try await withDaemon(configuration: Self.configuration, allowingEveryUser: true) { _, bus in
            let admin = try await Client(bus)
            try await admin.setUp()
            let store = LARightStore(busAddress: bus.address)
            _ = try await store.saveRight(LARight(busAddress: bus.address), identifier: "mine")
            let (status, output) = try await runTool("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", RightsExampleTool.path, "load", "mine"],
                                                     environment: ["LOCALAUTH_BUS_ADDRESS": bus.address], timeout: .seconds(20))
            #expect(status == 3 && output.contains("not found"), "\(output)")
        }
    }

    @Test func ciphertextFromThePublicKeyDecryptsOnlyAfterAuthorize() async throws {
        try await withDaemon(configuration: Self.configuration) { _, bus in
            let admin = try await Client(bus)
            try await admin.setUp(fingers: [Self.finger])
            let right = try await LARightStore(busAddress: bus.address).saveRight(LARight(busAddress: bus.address), identifier: "mail")
            let publicKey = right.key.publicKey
            #expect(try await publicKey.exportBytes().count == 65)
            for algorithm in [SecKeyAlgorithm.eciesEncryptionStandardVariableIVX963SHA256AESGCM, .eciesEncryptionCofactorVariableIVX963SHA256AESGCM] {
                #expect(publicKey.canEncrypt(using: algorithm) && right.key.canDecrypt(using: algorithm))
            }
            #expect(!publicKey.canEncrypt(using: .ecdsaSignatureMessageX962SHA256))
            let message = Data("meet at noon".utf8)
            let ciphertext = try await publicKey.encrypt(message, algorithm: .eciesEncryptionStandardVariableIVX963SHA256AESGCM)
            #expect(ciphertext.count == 65 + message.count + 16)

            #expect(try await code { _ = try await right.key.decrypt(ciphertext, algorithm: .eciesEncryptionStandardVariableIVX963SHA256AESGCM) }
                == .notInteractive)
            try await admin.simulator("Touch", [.string(Self.finger)])
            try await right.authorize(localizedReason: "read your mail")
            #expect(try await right.key.decrypt(ciphertext, algorithm: .eciesEncryptionStandardVariableIVX963SHA256AESGCM) == message)
            #expect(try await status { _ = try await right.key.decrypt(ciphertext, algorithm: .ecdsaSignatureMessageX962SHA256) } == errSecParam)

            // ECDH: the raw shared secret and a KDF's output, from both sides' view of the same exchange.
            let peer = try await LARightStore(busAddress: bus.address).saveRight(LARight(busAddress: bus.address), identifier: "peer")
            try await admin.simulator("Touch", [.string(Self.finger)])
            try await peer.authorize(localizedReason: "exchange")
            let mine = try await right.key.exchangeKeys(publicKey: try await peer.key.publicKey.exportBytes(), algorithm: .ecdhKeyExchangeStandard, parameters: [:])
            let theirs = try await peer.key.exchangeKeys(publicKey: try await publicKey.exportBytes(), algorithm: .ecdhKeyExchangeStandard, parameters: [:])
            #expect(mine.count == 32 && mine == theirs)
            let parameters: [AnyHashable: Any] = [SecKeyKeyExchangeParameter.requestedSize.rawValue: 48,
                                                  SecKeyKeyExchangeParameter.sharedInfo.rawValue: Data("info".utf8)]
            let derived = try await right.key.exchangeKeys(publicKey: try await peer.key.publicKey.exportBytes(),
                                                           algorithm: .ecdhKeyExchangeStandardX963SHA256, parameters: parameters)
            #expect(derived.count == 48 && derived != mine.prefix(48))
        }
    }

    @Test func aSignatureVerifiesWithOpenSSLAndWithThePublicKey() async throws {
        try await withDaemon(configuration: Self.configuration) { _, bus in
            let admin = try await Client(bus)
            try await admin.setUp(fingers: [Self.finger])
            let right = try await LARightStore(busAddress: bus.address).saveRight(LARight(busAddress: bus.address), identifier: "signer")
            let data = Data("pay 10 EUR to Alice".utf8)
            #expect(try await code { _ = try await right.key.sign(data, algorithm: .ecdsaSignatureMessageX962SHA256) } == .notInteractive)
            try await admin.simulator("Touch", [.string(Self.finger)])
            try await right.authorize(localizedReason: "sign the payment")
            #expect(right.key.canSign(using: .ecdsaSignatureMessageX962SHA256) && !right.key.canSign(using: .ecdhKeyExchangeStandard))
            let signature = try await right.key.sign(data, algorithm: .ecdsaSignatureMessageX962SHA256)

            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rights-openssl-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            // SubjectPublicKeyInfo of a P-256 key: the fixed DER prefix, then the X9.63 point.
            let spkiPrefix: [UInt8] = [0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01, 0x06, 0x08,
                                       0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00]
            let files = (key: directory.appendingPathComponent("key.der"), data: directory.appendingPathComponent("data"),
                         signature: directory.appendingPathComponent("sig"))
            try (Data(spkiPrefix) + (try await right.key.publicKey.exportBytes())).write(to: files.key)
            try data.write(to: files.data)
            try signature.write(to: files.signature)
            let verified = try await runTool("/usr/bin/openssl", ["dgst", "-sha256", "-verify", files.key.path, "-keyform", "DER",
                                                                  "-signature", files.signature.path, files.data.path])
            #expect(verified.status == 0 && verified.output.contains("Verified OK"), "\(verified.output)")

            try await right.key.publicKey.verify(data, signature: signature, algorithm: .ecdsaSignatureMessageX962SHA256)
            #expect(try await status {
                try await right.key.publicKey.verify(Data("pay 99 EUR to Mallory".utf8), signature: signature, algorithm: .ecdsaSignatureMessageX962SHA256)
            } == errSecVerifyFailed)
        }
    }

    @Test func everyAlgorithmTheKeySaysItCanUseWorksWithTheDaemon() async throws {
        try await withDaemon(configuration: Self.configuration) { _, bus in
            let admin = try await Client(bus)
            try await admin.setUp(fingers: [Self.finger])
            let store = LARightStore(busAddress: bus.address)
            let right = try await store.saveRight(LARight(busAddress: bus.address), identifier: "all")
            let peer = try await store.saveRight(LARight(busAddress: bus.address), identifier: "peer")
            for saved in [right, peer] {
                try await admin.simulator("Touch", [.string(Self.finger)])
                try await saved.authorize(localizedReason: "every algorithm")
            }
            let key = right.key
            let digest = Data(repeating: 7, count: 32)
            for algorithm in [SecKeyAlgorithm.ecdsaSignatureMessageX962SHA256, .ecdsaSignatureDigestX962SHA256] {
                #expect(key.canSign(using: algorithm) && key.publicKey.canVerify(using: algorithm))
                let signature = try await key.sign(digest, algorithm: algorithm)
                try await key.publicKey.verify(digest, signature: signature, algorithm: algorithm)
            }
            for algorithm in [SecKeyAlgorithm.eciesEncryptionStandardVariableIVX963SHA256AESGCM, .eciesEncryptionCofactorVariableIVX963SHA256AESGCM] {
                let ciphertext = try await key.publicKey.encrypt(Data("x".utf8), algorithm: algorithm)
                #expect(try await key.decrypt(ciphertext, algorithm: algorithm) == Data("x".utf8))
            }
            let peerKey = try await peer.key.publicKey.exportBytes()
            let parameters: [AnyHashable: Any] = [SecKeyKeyExchangeParameter.requestedSize.rawValue: 16]
            for algorithm in [SecKeyAlgorithm.ecdhKeyExchangeStandard, .ecdhKeyExchangeCofactor,
                              .ecdhKeyExchangeStandardX963SHA256, .ecdhKeyExchangeCofactorX963SHA256] {
                #expect(key.canExchangeKeys(using: algorithm) && !key.canSign(using: algorithm))
                let shared = try await key.exchangeKeys(publicKey: peerKey, algorithm: algorithm, parameters: parameters)
                #expect(shared.count == ((algorithm.rawValue as String).contains("KDF") ? 16 : 32), "\(algorithm)")
            }
            #expect(try await status { _ = try await key.exchangeKeys(publicKey: peerKey, algorithm: .ecdhKeyExchangeStandard, parameters: ["size": 1]) }
                == errSecParam, "unknown parameters are refused")
        }
    }

    @Test func completionFormsReplyOffTheCallersThread() async throws {
        try await withDaemon(configuration: Self.configuration) { _, bus in
            let admin = try await Client(bus)
            try await admin.setUp(fingers: [Self.finger])
            let store = LARightStore(busAddress: bus.address)
            let saved = Inbox<LAPersistedRight?>()
            store.saveRight(LARight(busAddress: bus.address), identifier: "cb", secret: Data([1, 2, 3])) { right, _ in saved.put(right) }
            let right = try #require(try await saved.next(within: .seconds(30)))
            try await admin.simulator("Touch", [.string(Self.finger)])
            let authorized = Inbox<Bool>()
            right.authorize(localizedReason: "callback") { error in authorized.put(error == nil) }
            #expect(try await authorized.next(within: .seconds(30)))
            let secret = Inbox<Data?>()
            right.secret.loadData { data, _ in secret.put(data) }
            #expect(try await secret.next(within: .seconds(30)) == Data([1, 2, 3]))
            let removed = Inbox<Bool>()
            store.removeAllRights { error in removed.put(error == nil) }
            #expect(try await removed.next(within: .seconds(30)))
            let missing = Inbox<Int?>()
            store.right(forIdentifier: "cb") { right, error in missing.put(right == nil ? (error as NSError?)?.code : 0) }
            #expect(try await missing.next(within: .seconds(30)) == Int(errSecItemNotFound))
        }
    }
}

/// The LAError code `body` throws, nil when it returns.
func code(_ body: () async throws -> Void) async throws -> LAError.Code? {
    do {
        try await body()
        return nil
    } catch let error as LAError {
        return error.code
    }
}

/// The `NSOSStatusErrorDomain` code `body` throws, nil when it returns.
func status(_ body: () async throws -> Void) async throws -> OSStatus? {
    do {
        try await body()
        return nil
    } catch let error as NSError where error.domain == NSOSStatusErrorDomain {
        return OSStatus(error.code)
    }
}

/// The LAError code loading `secret` throws.
func loadError(_ secret: LASecret) async throws -> LAError.Code? {
    try await code { _ = try await secret.loadData() }
}
