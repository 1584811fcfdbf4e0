// `make demo`: a private bus, the real localauthd with a temporary state directory, and a client
// walking through real evaluations over D-Bus, printing each step. Cleans up everything it started.
import Foundation
import LocalAuthDBus
import LocalAuthTestSupport

let name = "org.localauth.LocalAuthentication1"
let managerPath = "/org/localauth/LocalAuthentication1"
let simulatorPath = "/org/localauth/LocalAuthentication1/simulator"
let managerInterface = name + ".Manager", contextInterface = name + ".Context", simulatorInterface = name + ".Simulator"
let passcode = "correct horse"

func step(_ text: String) { print("\n▶ \(text)") }

/// A value the way a person writes it: `true`, `5`, `fingerprint/right-index-finger`.
func plain(_ value: DBusValue) -> String {
    switch value {
    case .bool(let flag): "\(flag)"
    case .uint32(let number): "\(number)"
    case .uint64(let number): "\(number)"
    case .string(let text): text
    case .structure(let fields): fields.map(plain).joined(separator: "/")
    case .array(_, let elements): "[" + elements.map(plain).joined(separator: ", ") + "]"
    default: "\(value)"
    }
}

func show(_ body: () async throws -> Void) async {
    do { try await body(); print("  ✓ ok") } catch let error as DBusError {
        print("  ✗ \(error.name.rawValue.split(separator: ".").last ?? ""): \(error.message)")
    } catch { print("  ✗ \(error)") }
}

let bus = try PrivateBus()
let state = FileManager.default.temporaryDirectory.appendingPathComponent("localauth-demo-\(UUID().uuidString)")
let daemon = Process()
daemon.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("localauthd")
daemon.arguments = ["--address", bus.address, "--state-dir", state.path, "--config", "/dev/null"]
daemon.standardError = FileHandle.nullDevice

let client = try await bus.connect()
let owned = Inbox<String>()
_ = try await client.watchNameOwners(name) { if let owner = $0.newOwner { owned.put(owner) } }
print("Private bus: \(bus.address)\nState: \(state.path)")
try daemon.run()
_ = try await owned.next(within: .seconds(20))
print("localauthd is serving \(name) (pid \(daemon.processIdentifier))")
_ = try await client.subscribe(DBusMatchRule(interface: contextInterface, member: "Prompt")) { signal in
    print("    prompt [\(signal.arguments.first?.string ?? "")] \(signal.arguments.last?.string ?? "")")
}

func manager(_ member: String, _ arguments: [DBusValue] = []) async throws -> [DBusValue] {
    try await client.call(destination: name, path: managerPath, interface: managerInterface, member: member, arguments: arguments)
}
func context(_ path: String, _ member: String, _ arguments: [DBusValue] = []) async throws {
    _ = try await client.call(destination: name, path: path, interface: contextInterface, member: member, arguments: arguments, timeout: .seconds(30))
}
func simulate(_ member: String, _ arguments: [DBusValue]) async throws {
    print("    simulator: \(member)(\(arguments.map(plain).joined(separator: ", ")))")
    _ = try await client.call(destination: name, path: simulatorPath, interface: simulatorInterface, member: member, arguments: arguments)
}
/// Runs EvaluatePolicy while `drive` feeds the sensors; simulator input that arrives before the
/// evaluation arms a sensor is queued for it, so the order needs no care.
func evaluate(_ policy: UInt32, on path: String, drive: @Sendable () async throws -> Void) async {
    let evaluation = Task { try await context(path, "EvaluatePolicy", [.uint32(policy), .string("open the demo vault")]) }
    do { try await drive() } catch { print("  ! \(error)") }
    await show { try await evaluation.value }
}

step("SetPasscode, Enroll fingerprint right-index-finger, Enroll face primary")
await show {
    _ = try await manager("SetPasscode", [.string(""), .string(passcode)])
    _ = try await manager("Enroll", [.string("fingerprint"), .string("right-index-finger"), .string(passcode)])
    _ = try await manager("Enroll", [.string("face"), .string("primary"), .string(passcode)])
}
let path = try await manager("CreateContext", [.vardict([:])]).first?.objectPath ?? ""
print("  context \(path)")

step("CanEvaluatePolicy(1) — biometrics")
await show { try await context(path, "CanEvaluatePolicy", [.uint32(1)]) }

step("EvaluatePolicy(1), satisfied by a simulated touch of the enrolled finger")
await evaluate(1, on: path) { try await simulate("Touch", [.string("right-index-finger")]) }

step("EvaluatePolicy(1) with three wrong fingers: the per-evaluation limit")
await evaluate(1, on: path) { for _ in 1...3 { try await simulate("Touch", [.string("left-thumb")]) } }

step("EvaluatePolicy(1) with two unknown faces: 5 consecutive failures lock biometry")
await evaluate(1, on: path) { for _ in 1...2 { try await simulate("PresentFace", [.string("unknown"), .bool(true)]) } }
await show { try await context(path, "CanEvaluatePolicy", [.uint32(1)]) }

step("EvaluatePolicy(2): biometry is locked, so the passcode is asked; a wrong one, then the right one")
await evaluate(2, on: path) {
    try await Task.sleep(for: .milliseconds(300))  // demo pacing only: let the prompt print first
    await show { try await context(path, "SubmitPasscode", [.string("wrong guess")]) }
    await show { try await context(path, "SubmitPasscode", [.string(passcode)]) }
}

step("The passcode cleared the lockout")
await show { try await context(path, "CanEvaluatePolicy", [.uint32(1)]) }
if let state = try await manager("GetUserState").first?.vardict {
    print("  GetUserState: " + state.keys.sorted().map { "\($0)=\(plain(state[$0]!))" }.joined(separator: " "))
}

step("Cleaning up")
kill(daemon.processIdentifier, SIGTERM)
daemon.waitUntilExit()
print("  localauthd exited with status \(daemon.terminationStatus)")
client.close()
bus.stop()
try? FileManager.default.removeItem(at: state)
print("  private bus stopped, \(state.path) removed")
exit(daemon.terminationStatus)
