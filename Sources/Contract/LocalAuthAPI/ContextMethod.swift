// SPDX-License-Identifier: Apache-2.0
/// The methods of ``LocalAuthInterface/context``, served by localauthd at each ``LocalAuthBusNames/contextPath(_:)``.
/// A policy is an `LAPolicy` raw value.
public enum ContextMethod {
    private typealias A = DBusInterfaceDescription.Argument

    public static let canEvaluatePolicy = BusMethod<LAPolicy, BusWire.Nothing>("CanEvaluatePolicy", in: [A("policy", "u")])
    public static let evaluatePolicy = BusMethod<LAPolicy, String, BusWire.Nothing>(
        "EvaluatePolicy", in: [A("policy", "u"), A("localizedReason", "s")])
    public static let submitPasscode = BusMethod<BusWire.Secret, BusWire.Nothing>("SubmitPasscode", in: [A("passcode", "s", secret: true)])
    public static let fallback = BusMethod<BusWire.Nothing>("Fallback")
    public static let cancel = BusMethod<BusWire.Nothing>("Cancel")
    public static let invalidate = BusMethod<BusWire.Nothing>("Invalidate")
    public static let authorizeRight = BusMethod<String, String, BusWire.Nothing>(
        "AuthorizeRight", in: [A("identifier", "s"), A("localizedReason", "s")])
    public static let checkCanAuthorizeRight = BusMethod<String, BusWire.Nothing>("CheckCanAuthorizeRight", in: [A("identifier", "s")])
    public static let deauthorizeRight = BusMethod<String, BusWire.Nothing>("DeauthorizeRight", in: [A("identifier", "s")])
    public static let evaluateRequirement = BusMethod<String, String, BusWire.Vardict, BusWire.Nothing>(
        "EvaluateRequirement", in: [A("requirement", "s"), A("localizedReason", "s"), A("options", "a{sv}")])
    public static let canEvaluateRequirement = BusMethod<String, BusWire.Vardict, BusWire.Nothing>(
        "CanEvaluateRequirement", in: [A("requirement", "s"), A("options", "a{sv}")])
    public static let loadSecret = BusMethod<String, BusWire.SecretBytes>("LoadSecret", in: [A("identifier", "s")], out: [A("secret", "ay", secret: true)])
    public static let sign = BusMethod<String, String, [UInt8], [UInt8]>(
        "Sign", in: [A("identifier", "s"), A("algorithm", "s"), A("data", "ay")], out: [A("signature", "ay")])
    public static let decrypt = BusMethod<String, String, [UInt8], BusWire.SecretBytes>(
        "Decrypt", in: [A("identifier", "s"), A("algorithm", "s"), A("ciphertext", "ay")], out: [A("plaintext", "ay", secret: true)])
    public static let exchangeKeys = BusMethod<String, [UInt8], String, BusWire.Vardict, BusWire.SecretBytes>(
        "ExchangeKeys", in: [A("identifier", "s"), A("public_key", "ay"), A("algorithm", "s"), A("parameters", "a{sv}")],
        out: [A("shared", "ay", secret: true)])
    /// The password arrives as a secret: the reply's copy is wiped as it is read.
    public static let releaseLoginPassword = BusMethod<BusWire.Secret>("ReleaseLoginPassword", out: [A("password", "s", secret: true)])
    public static let discardLoginPassword = BusMethod<BusWire.Nothing>("DiscardLoginPassword")

    /// In the order of `dbus/org.localauth.LocalAuthentication1.Context.xml`.
    public static let all: [DBusInterfaceDescription.Method] = [
        canEvaluatePolicy.description, evaluatePolicy.description, submitPasscode.description, fallback.description,
        cancel.description, invalidate.description, authorizeRight.description, checkCanAuthorizeRight.description,
        deauthorizeRight.description, evaluateRequirement.description, canEvaluateRequirement.description,
        loadSecret.description, sign.description, decrypt.description, exchangeKeys.description,
        releaseLoginPassword.description, discardLoginPassword.description,
    ]
}
