// SPDX-License-Identifier: Apache-2.0
import Dispatch
import Foundation
import LocalAuthAPI
import LocalAuthDBus
import Synchronization

/// Apple's `NSErrorPointer`, which swift-corelibs-foundation does not declare: pass `&error` for a
/// `var error: NSError?`, or `nil`.
public typealias NSErrorPointer = UnsafeMutablePointer<NSError?>?

/// Apple's `LATouchIDAuthenticationMaximumAllowableReuseDuration`: the longest reuse window, in seconds.
public let LATouchIDAuthenticationMaximumAllowableReuseDuration: TimeInterval = 300

/// An authentication context, as Apple's: checks and evaluates policies, here through localauthd.
///
/// Each `LAContext` has one daemon context, created on first use with the properties set so far;
/// later property changes are sent to it. `invalidate()` and deinit invalidate it. The daemon is
/// reached on the system bus unless `LOCALAUTH_BUS=session` or `LOCALAUTH_BUS_ADDRESS` says
/// otherwise (read when the `LAContext` is created); all contexts of a process share one connection
/// per bus, made on first use and made again after it is lost.
///
/// Thread-safe: every member may be used from any thread. Replies run on a private queue.
/// If localauthd cannot be reached, checks and evaluations fail with `biometryNotAvailable`
/// (biometric policies), `passcodeNotSet` (`deviceOwnerAuthentication`) or `companionNotAvailable`.
///
/// As Apple's, an open `NSObject` subclass: tests may subclass it and override Apple's members to
/// mock them. The async `evaluatePolicy(_:localizedReason:)` calls the `reply` form, so overriding
/// that one mocks both. (`@unchecked Sendable`: all state is in `session`, behind its mutex;
/// a subclass that adds mutable state must guard it.)
open class LAContext: NSObject, @unchecked Sendable {
    let session: ContextSession

    /// Stored as Apple's deprecated property is; it has no effect (lockout follows the daemon's rules).
    private let maxFailures = Mutex<NSNumber?>(nil)

    /// Where `evaluatePolicy` replies run: never the caller's queue.
    static let replyQueue = DispatchQueue(label: "org.localauth.LocalAuthentication.reply", attributes: .concurrent)

    public override init() {
        session = ContextSession(bus: DaemonBus.fromEnvironment())
    }

    /// A context that reaches localauthd at `busAddress`, whatever the environment says (tests run
    /// many private daemons at once).
    @_spi(Testing) public init(busAddress: String) {
        session = ContextSession(bus: .success(.address(busAddress)))
    }

    /// Fire and forget: the worker invalidates the daemon context after this object is gone.
    deinit {
        session.invalidate()
    }

    /// Whether `policy` could be evaluated now. Blocks until localauthd answers. Sets `biometryType`
    /// and, for the biometric policies, `evaluatedPolicyDomainState`.
    /// - Parameter error: receives the `LAError` (domain `com.apple.LocalAuthentication`) when it returns false.
    open func canEvaluatePolicy(_ policy: LAPolicy, error: NSErrorPointer) -> Bool {
        let answered = DispatchSemaphore(value: 0)
        let outcome = Outcome()
        session.send(.canEvaluate(policy) { failure in
            outcome.set(failure)
            answered.signal()
        })
        answered.wait()
        guard let failure = outcome.value else { return true }
        error?.pointee = failure as NSError
        return false
    }

    /// Evaluates `policy`, showing `localizedReason` to the user (in localauthd's prompts). `reply`
    /// runs on a private queue once the evaluation ends: `(true, nil)` or `(false, LAError)`.
    ///
    /// A context whose evaluation succeeded succeeds again at once, without asking the user, for
    /// the policies that success satisfied, until `invalidate()`: create a new `LAContext` to ask again.
    ///
    /// `reply` is `@Sendable` as in Apple's SDK; `@preconcurrency` keeps Swift 5 code that captures
    /// non-Sendable state (a completion handler, a method reference, a local set before a semaphore
    /// signals) building without diagnostics, as Apple's imported declaration does.
    @preconcurrency
    open func evaluatePolicy(
        _ policy: LAPolicy, localizedReason: String, reply: @escaping @Sendable (Bool, (any Error)?) -> Void
    ) {
        let reason = reason(localizedReason)
        let call = ContextSession.EvaluationCall(
            perform: { try await $0.evaluatePolicy(policy, reason: reason, timeout: $1) },
            acceptsPasscode: policy == .deviceOwnerAuthentication)
        session.send(.evaluate(call) { failure in
            let error = failure.map { LAError($0, policy: policy) }
            Self.replyQueue.async { reply(error == nil, error) }
        })
    }

    /// Evaluates `policy`: returns true, or throws the `LAError` that ended it. Cancelling the task
    /// does not end the evaluation; `invalidate()` does. Runs the `reply` form, so a subclass that
    /// overrides that one changes this too.
    open func evaluatePolicy(_ policy: LAPolicy, localizedReason: String) async throws -> Bool {
        try await withCheckedThrowingContinuation { continuation in
            evaluatePolicy(policy, localizedReason: localizedReason) { success, error in
                if success {
                    continuation.resume(returning: true)
                } else {
                    continuation.resume(throwing: error ?? LAError(.systemCancel, message: "The evaluation failed without an error."))
                }
            }
        }
    }

    /// Ends a running evaluation with `appCancel`; afterwards every call fails with `invalidContext`.
    open func invalidate() {
        session.invalidate()
    }

    /// `none` until `canEvaluatePolicy` is called; then the sensor localauthd would use (Face first by default).
    open var biometryType: LABiometryType {
        session.state.withLock { $0.biometryType }
    }

    /// The fallback button's title; nil is the default ("Enter Password"), "" hides the button.
    open var localizedFallbackTitle: String? {
        get { session.state.withLock { $0.options.localizedFallbackTitle } }
        set { session.update(.localizedFallbackTitle) { $0.localizedFallbackTitle = newValue } }
    }

    /// The cancel button's title; nil (or "") is the default ("Cancel").
    open var localizedCancelTitle: String? {
        get { session.state.withLock { $0.options.localizedCancelTitle } }
        set { session.update(.localizedCancelTitle) { $0.localizedCancelTitle = newValue } }
    }

    /// The reason used when `evaluatePolicy` is given an empty one.
    open var localizedReason: String {
        get { session.state.withLock { $0.options.localizedReason } }
        set { session.state.withLock { $0.options.localizedReason = newValue } }
    }

    /// When true, an evaluation that would need the user fails with `notInteractive` at once
    /// (unless the reuse window satisfies it).
    open var interactionNotAllowed: Bool {
        get { session.state.withLock { $0.options.interactionNotAllowed } }
        set { session.update(.interactionNotAllowed) { $0.interactionNotAllowed = newValue } }
    }

    /// Seconds within which the user's last device unlock satisfies policies 1, 2 and 4 without a new
    /// match; 0 (the default) turns reuse off, values above 300 are 300.
    open var touchIDAuthenticationAllowableReuseDuration: TimeInterval {
        get { session.state.withLock { $0.options.allowableReuseDuration } }
        set {
            let seconds = newValue.isNaN ? 0 : min(max(newValue, 0), LATouchIDAuthenticationMaximumAllowableReuseDuration)
            session.update(.allowableReuseDuration) { $0.allowableReuseDuration = seconds }
        }
    }

    /// nil until `canEvaluatePolicy` succeeds for a biometric policy or an evaluation succeeds by a
    /// biometric match; then 32 bytes that change whenever the user's enrollments change.
    open var evaluatedPolicyDomainState: Data? {
        session.state.withLock { $0.domainState }
    }

    /// Apple's iOS 18 view of the same state: `biometry.biometryType` is `biometryType`,
    /// `biometry.stateHash` and `stateHash` are `evaluatedPolicyDomainState`; no companions.
    open var domainState: LADomainState {
        let (type, hash) = session.state.withLock { ($0.biometryType, $0.domainState) }
        return LADomainState(biometry: LADomainStateBiometry(biometryType: type, stateHash: hash),
                             companion: LADomainStateCompanion())
    }

    /// Deprecated by Apple since iOS 9 and without effect there ("biometry lockout happens after too
    /// many wrong attempts, regardless of how you set this property"); here too. nil until set.
    @available(*, deprecated, message: "No effect: biometry locks after the daemon's number of failed attempts.")
    open var maxBiometryFailures: NSNumber? {
        get { maxFailures.withLock { $0 } }
        set { maxFailures.withLock { $0 = newValue } }
    }

    /// Apple's credential setter. `.applicationPassword` here is the user's localauthd passcode: it is
    /// offered to the next `deviceOwnerAuthentication` evaluation as soon as it starts, or at once to
    /// one already running (also while biometrics listen). A wrong one is dropped, not offered again.
    /// nil clears it. Returns false for `.smartCardPIN` (not supported), a passcode that is not UTF-8
    /// or contains NUL, or an invalidated context. The passcode is kept in memory only, never logged:
    /// its bytes are copied into a buffer that is wiped when the context drops it (and its copy in
    /// the outgoing D-Bus message is wiped once sent). `credential` itself stays yours to wipe, e.g.
    /// with `credential.resetBytes(in: 0..<credential.count)` on your `var`.
    open func setCredential(_ credential: Data?, type: LACredentialType) -> Bool {
        switch type {
        case .smartCardPIN:
            return false
        case .applicationPassword:
            guard !session.state.withLock({ $0.isInvalidated }) else { return false }
            guard let credential else {
                session.setCredential(nil)
                return true
            }
            let passcode = DBusSecret(copying: credential)
            guard passcode.isValidString else { return false }
            session.setCredential(passcode)
            return true
        }
    }

    /// Whether a credential of `type` is set (and not yet found wrong).
    open func isCredentialSet(_ type: LACredentialType) -> Bool {
        switch type {
        case .smartCardPIN: false
        case .applicationPassword: session.state.withLock { $0.credential != nil }
        }
    }

    /// The daemon context's object path, once it exists.
    @_spi(Testing) public var daemonContextPath: String? {
        session.state.withLock { $0.daemon?.path }
    }

    /// The connection all contexts of this process share for `busAddress`.
    @_spi(Testing) public static func sharedConnection(busAddress: String) async throws -> DBusConnection {
        try await DaemonBus.connection(to: .address(busAddress))
    }

    private func reason(_ given: String) -> String {
        LocalAuthDaemon.acceptableText(given.isEmpty ? localizedReason : given)
    }
}

/// A check's answer handed from the worker to the blocked caller.
private final class Outcome: Sendable {
    private let error = Mutex<LAError?>(nil)
    func set(_ value: LAError?) { error.withLock { $0 = value } }
    var value: LAError? { error.withLock { $0 } }
}
