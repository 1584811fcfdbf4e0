// SPDX-License-Identifier: Apache-2.0
/// An interface as introspection describes it: what `Introspect` returns is generated from these
/// declarations, so the served contract and the handlers' tables come from one place.
public struct DBusInterfaceDescription: Sendable, Hashable {
    public struct Argument: Sendable, Hashable {
        public let name: String
        public let type: String
        /// A method's `s` or `ay` argument that holds a secret: an object registered with this
        /// interface receives it as a ``DBusValue/secret(_:)`` or ``DBusValue/secretBytes(_:)``,
        /// never as a `String` or an array (see ``DBusSecret``).
        /// Introspection does not show it.
        public let isSecret: Bool
        public init(_ name: String, _ type: String, secret: Bool = false) {
            self.name = name
            self.type = type
            self.isSecret = secret
        }
    }

    public struct Method: Sendable, Hashable {
        public let name: String
        public let inputs: [Argument]
        public let outputs: [Argument]
        public init(_ name: String, in inputs: [Argument] = [], out outputs: [Argument] = []) {
            self.name = name
            self.inputs = inputs
            self.outputs = outputs
        }
        /// The signature callers must send.
        public var inputSignature: String { inputs.map(\.type).joined() }
    }

    public struct Signal: Sendable, Hashable {
        public let name: String
        public let arguments: [Argument]
        public init(_ name: String, _ arguments: [Argument]) {
            self.name = name
            self.arguments = arguments
        }
    }

    public struct Property: Sendable, Hashable {
        public enum Access: String, Sendable { case read, readwrite }
        /// What `org.freedesktop.DBus.Property.EmitsChangedSignal` promises: the value's
        /// `PropertiesChanged` behaviour. Always written out, never left to the default.
        public enum ChangeSignal: String, Sendable {
            /// Every change is sent with its new value (`true`).
            case emits = "true"
            /// Every change is announced by name only; read the value again (`invalidates`).
            case invalidates
            /// Never changes while the object exists (`const`).
            case const
            /// Changes are not announced; read it when needed (`false`).
            case never = "false"
        }
        public let name: String
        public let type: String
        public let access: Access
        public let changeSignal: ChangeSignal
        public init(_ name: String, _ type: String, _ access: Access = .read, changes changeSignal: ChangeSignal) {
            self.name = name
            self.type = type
            self.access = access
            self.changeSignal = changeSignal
        }
    }

    /// The annotation that states a property's ``Property/ChangeSignal``.
    public static let emitsChangedSignal = "org.freedesktop.DBus.Property.EmitsChangedSignal"


    public let name: String
    public let methods: [Method]
    public let signals: [Signal]
    public let properties: [Property]

    public init(name: String, methods: [Method] = [], signals: [Signal] = [], properties: [Property] = []) {
        self.name = name
        self.methods = methods
        self.signals = signals
        self.properties = properties
    }

    public func method(_ name: String) -> Method? { methods.first { $0.name == name } }
    public func property(_ name: String) -> Property? { properties.first { $0.name == name } }

    /// The positions of `member`'s secret arguments, in any of `interfaces` named `interface` (or in
    /// any of them when a call names no interface).
    public static func secretArguments(of member: String, interface: String?, in interfaces: [DBusInterfaceDescription]) -> Set<Int> {
        var indexes: Set<Int> = []
        for description in interfaces where interface == nil || interface == description.name {
            guard let method = description.method(member) else { continue }
            for (index, argument) in method.inputs.enumerated() where argument.isSecret { indexes.insert(index) }
        }
        return indexes
    }

    /// The `<interface>` element.
    public var xml: String {
        var lines = ["  <interface name=\"\(name)\">"]
        for method in methods {
            lines.append("    <method name=\"\(method.name)\">")
            lines += method.inputs.map { "      <arg name=\"\($0.name)\" type=\"\($0.type)\" direction=\"in\"/>" }
            lines += method.outputs.map { "      <arg name=\"\($0.name)\" type=\"\($0.type)\" direction=\"out\"/>" }
            lines.append("    </method>")
        }
        for signal in signals {
            lines.append("    <signal name=\"\(signal.name)\">")
            lines += signal.arguments.map { "      <arg name=\"\($0.name)\" type=\"\($0.type)\"/>" }
            lines.append("    </signal>")
        }
        for property in properties {
            lines.append("    <property name=\"\(property.name)\" type=\"\(property.type)\" access=\"\(property.access.rawValue)\">")
            lines.append("      <annotation name=\"\(Self.emitsChangedSignal)\" value=\"\(property.changeSignal.rawValue)\"/>")
            lines.append("    </property>")
        }
        lines.append("  </interface>")
        return lines.joined(separator: "\n")
    }

    /// A whole introspection document: these interfaces, the standard ones, and child nodes.
    public static func document(_ interfaces: [DBusInterfaceDescription], children: [String] = []) -> String {
        let standard = """
          <interface name="org.freedesktop.DBus.Introspectable">
            <method name="Introspect"><arg name="xml_data" type="s" direction="out"/></method>
          </interface>
          <interface name="org.freedesktop.DBus.Peer">
            <method name="Ping"/>
            <method name="GetMachineId"><arg name="machine_uuid" type="s" direction="out"/></method>
          </interface>
          <interface name="org.freedesktop.DBus.Properties">
            <method name="Get"><arg name="interface_name" type="s" direction="in"/><arg name="property_name" type="s" direction="in"/><arg name="value" type="v" direction="out"/></method>
            <method name="GetAll"><arg name="interface_name" type="s" direction="in"/><arg name="props" type="a{sv}" direction="out"/></method>
            <method name="Set"><arg name="interface_name" type="s" direction="in"/><arg name="property_name" type="s" direction="in"/><arg name="value" type="v" direction="in"/></method>
            <signal name="PropertiesChanged"><arg name="interface_name" type="s"/><arg name="changed_properties" type="a{sv}"/><arg name="invalidated_properties" type="as"/></signal>
          </interface>
        """
        let body = ([standard] + interfaces.map(\.xml) + children.map { "  <node name=\"\($0)\"/>" }).joined(separator: "\n")
        return """
        <!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">
        <node>
        \(body)
        </node>
        """
    }
}
