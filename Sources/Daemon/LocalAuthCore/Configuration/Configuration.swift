// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI

/// The daemon's settings, with the documented defaults. Read from `localauthd.conf` by
/// ``ConfigurationParser``.
public struct Configuration: Sendable, Hashable {
    /// Backend ids to load, in order: ids of the daemon's backend registry (`fingerprint`, `face`,
    /// `passcode`, …) or the id of a provider that a descriptor in ``providerDirectories`` describes.
    /// The registry checks them when the daemon loads the file.
    public var backends: [String] = ["fingerprint", "face", "passcode"]
    /// Which hardware a context reports as its biometry type when both are available.
    public var preferredBiometry: BiometricModality = .face
    /// Consecutive biometric no-matches of one user (all contexts, all modalities) that lock biometry.
    public var biometryMaxFailures = 5
    /// No-matches one evaluation accepts from the fingerprint sensor before it gives up on biometry.
    public var fingerprintAttemptsPerEvaluation = 3
    /// No-matches one evaluation accepts from the face sensor before it gives up on biometry.
    public var faceAttemptsPerEvaluation = 2
    /// Seconds of delay after the Nth consecutive wrong passcode (index N-1); the last entry repeats.
    public var passcodeDelays: [Double] = [0, 0, 0, 0, 60, 300, 900, 900, 3600]
    /// Consecutive wrong passcodes that lock the passcode until an administrator resets it.
    public var passcodeMaxFailures = 10
    /// Seconds before an evaluation ends with systemCancel; 0 means never.
    public var evaluationTimeout: Double = 60
    /// Seconds one user's evaluation may hold a sensor while another user's evaluation of the same
    /// session standing waits for it; 0 means until the evaluation ends (see ``SensorArbiter``).
    public var sensorTurnLength: Double = 10
    /// Seconds a simulator event waits in the queue for an evaluation to read it.
    public var simulatorEventTTL: Double = 10
    /// Unix group whose members may drive the simulators without asking polkit (besides root and
    /// the daemon's own user, who always may).
    public var simulatorGroup = ""
    /// Live contexts one client may hold.
    public var maxContextsPerClient = 32
    /// Live contexts of all of one user's connections together; root is not limited by it
    /// (its contexts serve logins and sudo for every user).
    public var maxContextsPerUser = 256
    /// Live contexts of all clients together.
    public var maxContexts = 4096
    /// How many of ``maxContexts`` only root may take, so that a login screen and sudo still get
    /// contexts when unprivileged users have taken all the others. Less than ``maxContexts``.
    public var rootReservedContexts = 64
    /// Unfinished requests one client connection may have queued, calls without reply included;
    /// more are refused with `LimitsExceeded` (or dropped, without reply). An application has a
    /// few calls in flight; 64 is far above that and keeps one connection's backlog small.
    public var maxQueuedRequestsPerClient = 64
    /// Bytes of arguments those requests may hold. Real calls take well under 1 KiB.
    public var maxQueuedBytesPerClient = 1 << 20
    /// Unfinished requests of all connections of one uid together (the bus lets a user open
    /// hundreds of connections).
    public var maxQueuedRequestsPerUser = 256
    /// Bytes of arguments those requests may hold.
    public var maxQueuedBytesPerUser = 4 << 20
    /// Argon2id hashes and verifications that may run at once (each takes ~64 MiB while it runs).
    public var passcodeHashWorkers = 2
    /// Passcode checks and changes one user may have in progress (waiting or running); more are
    /// refused at once with limitsExceeded.
    public var maxPasscodeOperationsPerUser = 4
    /// Whether an ordinary app may submit the passcode itself (`Context.SubmitPasscode`) and is
    /// sent passcode prompts. Off: only the session's agent takes the passcode, so no app sees
    /// it. On is weaker (any app that asks for policy 2 can collect the passcode), for headless
    /// test rigs. Contexts created with `User` or `Unlock` (logins, sudo) always may.
    public var appPasscodeEntry = false
    /// Whether an app needs a face usage description and the user's consent, asked once by the
    /// agent and kept per user and app, before its evaluations may use the face sensor (as Apple
    /// asks before an app first uses Face ID). Logins and sudo never need it. Off: every app may.
    public var faceConsent = true
    /// Where per-user state lives; nil means "not set in the file" so that `$STATE_DIRECTORY`
    /// or the built-in default (``defaultStateDirectory``) applies.
    public var stateDirectory: String?

    /// Where provider descriptors (`*.provider`) are read from, later directories overriding
    /// earlier ones file by file; nil means the built-in default
    /// (`$(PREFIX)/lib/localauthd/providers`, then `/etc/localauthd/providers`).
    public var providerDirectories: [String]?
    /// Seconds a provider has to answer each call (Hello, Arm, Disarm, EnrollStart, …); one that
    /// does not is treated as gone: its evaluation sees the sensor disconnect and it is restarted.
    public var providerTimeout: Double = 5

    /// Where the wrapping key of rights' secrets and keys comes from (`key_protection`); restart needed.
    public var keyProtection = KeyProtectionSetting.auto
    /// The TPM 2.0 the wrapping key is sealed with (`tpm_tcti`, a tpm2-tss TCTI string); restart needed.
    public var tpmTCTI = Configuration.defaultTPMTCTI

    /// `key_protection`'s values.
    public enum KeyProtectionSetting: String, Sendable, Hashable, CaseIterable {
        /// The TPM when one answers at `tpm_tcti`, else the root-only key file; once a key is
        /// sealed to a TPM, only that TPM.
        case auto = "auto"
        /// The TPM only: without one, rights are unavailable.
        case tpm2 = "tpm2"
        /// The root-only key file only, even when there is a TPM.
        case wrappingKey = "wrapping-key"
    }

    public static let defaultTPMTCTI = "device:/dev/tpmrm0"
    public static let defaultStateDirectory = "/var/lib/localauthd"
    /// Whether `id` could name a backend: lowercase letters, digits, `-`, `_` and `.`, starting
    /// with a letter or digit, at most 64 characters.
    public static func isBackendID(_ id: String) -> Bool {
        guard let first = id.unicodeScalars.first, id.unicodeScalars.count <= 64,
              ("a"..."z").contains(first) || ("0"..."9").contains(first) else { return false }
        return id.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || "-_.".unicodeScalars.contains($0) }
    }

    /// The ids among ``backends`` that are not in `builtIn` (the registry's ids): providers.
    public func providerIDs(builtIn: some Sequence<String>) -> [String] {
        let builtIn = Set(builtIn)
        return backends.filter { !builtIn.contains($0) }
    }

    public init() {}

    /// The state directory to use: the file's setting, else `$STATE_DIRECTORY` (systemd's), else the default.
    public func resolvedStateDirectory(environment: [String: String]) -> String {
        if let stateDirectory { return stateDirectory }
        // systemd passes a colon-separated list when several StateDirectory= are set; ours is the first.
        if let fromSystemd = environment["STATE_DIRECTORY"]?.split(separator: ":").first, !fromSystemd.isEmpty {
            return String(fromSystemd)
        }
        return Self.defaultStateDirectory
    }

    /// Live contexts all unprivileged clients together may hold: what root's reserve leaves.
    public var maxUnprivilegedContexts: Int { max(maxContexts - rootReservedContexts, 0) }

    /// The passcode lockout rules this configuration describes.
    public var passcodeSchedule: PasscodeDelaySchedule {
        PasscodeDelaySchedule(delays: passcodeDelays, maxFailures: passcodeMaxFailures)
    }

    /// The limits ``PasscodeWorkScheduler`` applies.
    public var passcodeWorkLimits: PasscodeWorkScheduler.Limits {
        PasscodeWorkScheduler.Limits(workers: passcodeHashWorkers, operationsPerUser: maxPasscodeOperationsPerUser)
    }

    /// How many no-matches of `modality` one evaluation accepts.
    public func attemptsPerEvaluation(_ modality: BiometricModality) -> Int {
        switch modality {
        case .fingerprint: fingerprintAttemptsPerEvaluation
        case .face: faceAttemptsPerEvaluation
        }
    }
}
