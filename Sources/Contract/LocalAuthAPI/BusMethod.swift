// SPDX-License-Identifier: Apache-2.0
/// One method of the contract, declared once and typed both ways: the daemon's table row and the
/// client's proxy take the same value, and the interface's ``DBusInterfaceDescription`` (its
/// introspection, the contract test against `dbus/*.xml`) is built from it.
///
/// `Input` are the argument types in order and `Output` the reply's type; they exist only in the
/// type (there is no value of them here). Types that this module cannot name without libdbus are
/// ``BusWire`` markers. How each type is read from and written to a message is its `DBusArgument`
/// conformance in LocalAuthDBus; a test checks that ``inputs`` and ``outputs`` spell exactly the
/// signatures of those types, secret flags included.
public struct BusMethod<each Input, Output>: Sendable {
    public let member: String
    public let inputs: [DBusInterfaceDescription.Argument]
    public let outputs: [DBusInterfaceDescription.Argument]

    public init(_ member: String, in inputs: [DBusInterfaceDescription.Argument] = [],
                out outputs: [DBusInterfaceDescription.Argument] = []) {
        self.member = member
        self.inputs = inputs
        self.outputs = outputs
    }

    /// The method as introspection describes it.
    public var description: DBusInterfaceDescription.Method {
        DBusInterfaceDescription.Method(member, in: inputs, out: outputs)
    }
}

/// Wire types that a ``BusMethod`` names but this module has no Swift value type for; LocalAuthDBus
/// gives each its value type and codec.
public enum BusWire {
    /// No reply values.
    public enum Nothing {}
    /// An `s` argument holding a secret (a passcode): read into a wiped buffer, never a `String`.
    public enum Secret {}
    /// An `ay` argument holding a secret.
    public enum SecretBytes {}
    /// An `o`.
    public enum ObjectPath {}
    /// An `a{sv}`.
    public enum Vardict {}
    /// `GetFaceConsents`' `a(sb)`: application and whether it may use face recognition.
    public enum FaceConsents {}
    /// `ListRights`' `a(ss)`: application and identifier.
    public enum RightNames {}
    /// `GetBackends`' `a(ssba{sv})`, the `Backends` property's value.
    public enum Backends {}
    /// A provider's `Hello` reply, `(usa{sv})`: version, modality, capabilities.
    public enum HelloReply {}
}
