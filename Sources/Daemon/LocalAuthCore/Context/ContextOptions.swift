// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI
/// The settable properties of a context, with Apple's defaults.
public struct ContextOptions: Sendable, Hashable {
    public static let defaultFallbackTitle = "Enter Password"
    public static let defaultCancelTitle = "Cancel"
    /// Apple's `LATouchIDAuthenticationMaximumAllowableReuseDuration`.
    public static let maximumAllowableReuseDuration: Double = 300
    /// Titles and reasons longer than this (in UTF-8 bytes) are refused.
    public static let maximumTextLength = 512

    /// Empty hides the fallback button.
    public var localizedFallbackTitle = ContextOptions.defaultFallbackTitle
    public var localizedCancelTitle = ContextOptions.defaultCancelTitle
    public var interactionNotAllowed = false
    /// Seconds; always within 0…300 (set through ``setAllowableReuseDuration(_:)``).
    public private(set) var allowableReuseDuration: Double = 0
    /// Privileged: act for this user instead of the caller.
    public var user: UInt32?
    /// Who is asking to act as ``user``, when that may be someone else: root names them (the PAM
    /// module: the real uid of `su` or `sudo`, or `PAM_RUSER`); for any other caller acting for
    /// another user it is the caller itself. An applicant other than the user counts its failures
    /// apart and locks only itself out (``UserLedger/applicants``). nil: the user themself.
    public var applicant: UInt32?
    /// Privileged: biometric matches of this context open the reuse window.
    public var isUnlockContext = false
    /// Why the app wants the face sensor, shown when the user is asked to allow it (Apple's
    /// `NSFaceIDUsageDescription`); empty: face is not offered to this context.
    public var faceUsageDescription = ""
    /// Who the app is, as the transport determined it from the caller (never from the app's
    /// words); face consent is kept per user and app identity. nil when it could not be told.
    public var appIdentity: String?

    /// Created with `User` or `Unlock`, which only root and holders of act-for-other-users may
    /// pass (logins, sudo through the PAM module): their own conversation is the sheet, so
    /// they take the passcode themselves and are never routed to an agent.
    public var isPrivilegedConversation: Bool { user != nil || isUnlockContext }

    public init() {}

    /// ``applicant`` when it is not `user`, the user the context authenticates.
    public func foreignApplicant(of user: UInt32) -> UInt32? {
        applicant == user ? nil : applicant
    }

    /// Clamps to 0…300 as Apple does; NaN is refused.
    public mutating func setAllowableReuseDuration(_ seconds: Double) throws(LocalAuthError) {
        guard !seconds.isNaN else {
            throw LocalAuthError(.invalidArgument, "The allowable reuse duration must be a number of seconds (0 to 300).")
        }
        allowableReuseDuration = min(max(seconds, 0), Self.maximumAllowableReuseDuration)
    }

    /// Checks a title or reason from a client.
    public static func validateText(_ text: String, name: String, allowEmpty: Bool) throws(LocalAuthError) {
        guard allowEmpty || !text.isEmpty else {
            throw LocalAuthError(.invalidArgument, "The \(name) must not be empty.")
        }
        guard text.utf8.count <= maximumTextLength else {
            throw LocalAuthError(.invalidArgument, "The \(name) is \(text.utf8.count) bytes long; at most \(maximumTextLength) are allowed.")
        }
        guard !text.containsNUL else {
            throw LocalAuthError(.invalidArgument, "The \(name) must not contain NUL characters.")
        }
    }
}
