// SPDX-License-Identifier: Apache-2.0
/// The methods of ``LocalAuthInterface/rights``, served by localauthd at ``LocalAuthBusNames/rightsPath``.
/// A right's `a{sv}` keys are ``LocalAuthRightKey``.
public enum RightsMethod {
    private typealias A = DBusInterfaceDescription.Argument

    public static let saveRight = BusMethod<String, String, BusWire.SecretBytes, BusWire.Vardict, BusWire.Vardict>(
        "SaveRight", in: [A("identifier", "s"), A("requirement", "s"), A("secret", "ay", secret: true), A("options", "a{sv}")],
        out: [A("right", "a{sv}")])
    public static let getRight = BusMethod<String, BusWire.Vardict>("GetRight", in: [A("identifier", "s")], out: [A("right", "a{sv}")])
    public static let listRights = BusMethod<Bool, BusWire.RightNames>("ListRights", in: [A("all_applications", "b")], out: [A("rights", "a(ss)")])
    public static let removeRight = BusMethod<String, BusWire.Nothing>("RemoveRight", in: [A("identifier", "s")])
    public static let removeAllRights = BusMethod<BusWire.Nothing>("RemoveAllRights")
    public static let removeApplicationRight = BusMethod<String, String, BusWire.Secret, BusWire.Nothing>(
        "RemoveApplicationRight", in: [A("application", "s"), A("identifier", "s"), A("passcode", "s", secret: true)])
    public static let encrypt = BusMethod<[UInt8], String, BusWire.SecretBytes, [UInt8]>(
        "Encrypt", in: [A("public_key", "ay"), A("algorithm", "s"), A("plaintext", "ay", secret: true)], out: [A("ciphertext", "ay")])
    public static let verify = BusMethod<[UInt8], String, [UInt8], [UInt8], Bool>(
        "Verify", in: [A("public_key", "ay"), A("algorithm", "s"), A("signed_data", "ay"), A("signature", "ay")], out: [A("valid", "b")])
    public static let storeLoginPassword = BusMethod<BusWire.Secret, BusWire.Nothing>("StoreLoginPassword", in: [A("password", "s", secret: true)])
    public static let removeLoginPassword = BusMethod<BusWire.Nothing>("RemoveLoginPassword")

    /// In the order of `dbus/org.localauth.LocalAuthentication1.Rights.xml`.
    public static let all: [DBusInterfaceDescription.Method] = [
        saveRight.description, getRight.description, listRights.description, removeRight.description,
        removeAllRights.description, removeApplicationRight.description, encrypt.description, verify.description,
        storeLoginPassword.description, removeLoginPassword.description,
    ]
}
