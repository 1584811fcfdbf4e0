// The policy core with the real backends (simulators, Argon2id) and state on disk, driven step by step.
// `make demo` runs it until the daemon exists; it shows the rules a client will see over D-Bus.
import FoundationEssentials
import LocalAuthBackends
import LocalAuthCore
import LocalAuthSystem

#if canImport(Glibc)
import Glibc
#endif

struct PrintingObserver: EngineObserver {
    func prompt(_ prompt: Prompt, context: ContextID, owner: ClientID) {
        print("      prompt [\(prompt.kind.rawValue)] \(prompt.message)")
    }
    func contextChanged(_ snapshot: ContextSnapshot) {}
    func nextDeadlineChanged(_ deadline: UnixTime?) {}
}

struct PrintingAudit: AuditSink {
    func record(_ entry: AuditEntry) { print("      audit  \(entry)") }
}

func step(_ text: String) { print("\n▶ \(text)") }

func outcome(_ body: () async throws -> Void) async {
    do { try await body(); print("  ✓ success") } catch let error as LocalAuthError {
        print("  ✗ \(error.code.map { "\($0.name) (\($0.rawValue))" } ?? "\(error.kind)"): \(error.message)")
    } catch { print("  ✗ \(error)") }
}

var template = Array("/tmp/localauth-demo-XXXXXX".utf8CString)
guard let directory = mkdtemp(&template).map({ String(cString: $0) }) else { fatalError("mkdtemp failed") }

let clock = SystemWallClock()
let store = try FileStateStore(directory: directory)
let queue = SimulatorEventQueue(timeToLive: 10, clock: clock)
let fingerprint = FingerprintSimulator(queue: queue)
let face = FaceSimulator(queue: queue)
let engine = try PolicyEngine(
    configuration: Configuration(), backends: [fingerprint, face],
    environment: .init(clock: clock, store: store, passcodeHasher: try Argon2idPasscodeHasher(),
                       domainStateHasher: try KeyedDomainStateHasher(installationSecret: store.installationSecret()),
                       audit: PrintingAudit(), observer: PrintingObserver()))
let me = Caller(client: ClientID(":1.42"), uid: getuid())
let passcode = "correct horse"

func evaluate(_ policy: LAPolicy, _ context: ContextID, while drive: @Sendable () async throws -> Void) async {
    let evaluation = Task { try await engine.evaluatePolicy(policy, reason: "open the demo vault", context: context, caller: me.client) }
    // Simulator inputs that arrive before the evaluation arms its sensor are queued for it, so no wait is needed.
    do { try await drive() } catch { print("  ! \(error)") }
    await outcome { print("  → \(try await evaluation.value)") }
}

print("State directory: \(directory)")
step("Set a passcode, enroll right-index-finger and the primary face")
await outcome {
    try await engine.setPasscode(current: Passcode(""), new: Passcode(passcode), caller: me)
    try await engine.enroll(.fingerprint, label: "right-index-finger", passcode: Passcode(passcode), caller: me)
    try await engine.enroll(.face, label: "primary", passcode: Passcode(passcode), caller: me)
}

let context = try await engine.createContext(for: me, options: ContextOptions())
step("canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics)")
await outcome { try await engine.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, context: context, caller: me.client) }
print("  biometryType = \(try await engine.snapshot(of: context, caller: me.client).biometryType)")

step("Evaluate biometrics; the simulated finger touches the sensor")
await evaluate(.deviceOwnerAuthenticationWithBiometrics, context) { try await fingerprint.touch("right-index-finger") }

step("Evaluate biometrics; three wrong fingers (per-evaluation limit)")
await evaluate(.deviceOwnerAuthenticationWithBiometrics, context) {
    for _ in 1...3 { try await fingerprint.touch("left-thumb") }
}

step("Evaluate biometrics; two unknown faces reach 5 consecutive failures: lockout")
await evaluate(.deviceOwnerAuthenticationWithBiometrics, context) {
    for _ in 1...2 { try await face.present("unknown", attentive: true) }
}
await outcome { try await engine.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, context: context, caller: me.client) }

step("Evaluate device-owner authentication: biometry is locked, so the passcode is asked; a wrong one, then the right one")
await evaluate(.deviceOwnerAuthentication, context) {
    await outcome { try await engine.submitPasscode(Passcode("wrong guess"), context: context, caller: me.client) }
    await outcome { try await engine.submitPasscode(Passcode(passcode), context: context, caller: me.client) }
}
step("The passcode cleared the lockout")
await outcome { try await engine.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, context: context, caller: me.client) }

step("State on disk (no passcode in clear)")
for name in ["users/\(me.uid)/profile.json", "users/\(me.uid)/ledger.json"] {
    let path = "\(directory)/\(name)"
    var info = stat()
    stat(path, &info)
    let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
    print("  \(name) mode \(String(info.st_mode & 0o777, radix: 8)), contains the passcode: \(text.contains(passcode))")
    print("    \(text.prefix(160))…")
}

// The demo's state is throwaway: remove it (files first, then the directories).
for name in ["users/\(me.uid)/profile.json", "users/\(me.uid)/ledger.json", "installation-secret"] { unlink("\(directory)/\(name)") }
for name in ["users/\(me.uid)", "users", ""] { rmdir("\(directory)/\(name)") }
print("\nRemoved \(directory).")
