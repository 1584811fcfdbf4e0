// SPDX-License-Identifier: Apache-2.0
import LocalAuthDBus
import LocalAuthTestSupport
import Testing

/// Clients we did not write (gdbus, dbus-send, python3-dbus) calling an object served by this
/// layer, shaped like the daemon's Manager.
@Suite struct InteropTests {
    static let name = "org.localauth.LocalAuthentication1"
    static let path = "/org/localauth/LocalAuthentication1"
    static let manager = "org.localauth.LocalAuthentication1.Manager"
    static let xml = """
        <node>
          <interface name="org.localauth.LocalAuthentication1.Manager">
            <method name="CreateContext">
              <arg name="options" type="a{sv}" direction="in"/>
              <arg name="context" type="o" direction="out"/>
              <arg name="info" type="a{sv}" direction="out"/>
            </method>
            <method name="Lockout"/>
            <property name="Version" type="s" access="read"/>
            <property name="Backends" type="a(ssb)" access="read"/>
          </interface>
        </node>
        """

    static let properties: [String: DBusValue] = [
        "Version": .string("1.0"),
        "Backends": .array(elementSignature: "(ssb)", [.structure([.string("fingerprint"), .string("Fingerprint simulator"), .bool(true)])]),
    ]

    /// Serves the Manager-like object under the well-known name.
    static func serve(on bus: PrivateBus) async throws -> DBusConnection {
        let server = try await bus.connect()
        try server.register(path: path, introspectionXML: xml) { call in
            var reader = call.reader
            switch (call.interface, call.member) {
            case (manager, "CreateContext"):
                let options = try reader.vardict()
                try reader.finish()
                return .values([.objectPath(path + "/context/1"), .vardict(["reason": options["reason"] ?? .string("")])])
            case (manager, "Lockout"):
                throw DBusError("org.localauth.LocalAuthentication1.Error.BiometryLockout", "Biometry is locked out.")
            case ("org.freedesktop.DBus.Properties", "Get"):
                _ = try reader.string()
                let property = try reader.string()
                guard let value = properties[property] else { throw DBusError(.unknownProperty, "no property \(property)") }
                return .values([.variant(value)])
            default:
                throw DBusError(.unknownMethod, "no method \(call.member)")
            }
        }
        try await server.requestName(name)
        return server
    }

    @Test func gdbusCallsAMethodWithAnOptionsDictionary() async throws {
        try await withPrivateBus { bus in
            let server = try await Self.serve(on: bus)
            defer { server.close() }
            let result = try await runTool("/usr/bin/gdbus", [
                "call", "--address", bus.address, "--dest", Self.name, "--object-path", Self.path, "--timeout", "5",
                "--method", "\(Self.manager).CreateContext", "{'reason': <'unlock the vault'>, 'count': <uint32 3>}",
            ])
            #expect(result.status == 0)
            #expect(result.output.trimmingCharacters(in: .whitespacesAndNewlines)
                == "(objectpath '/org/localauth/LocalAuthentication1/context/1', {'reason': <'unlock the vault'>})")
        }
    }

    @Test func gdbusIntrospectsTheGivenXML() async throws {
        try await withPrivateBus { bus in
            let server = try await Self.serve(on: bus)
            defer { server.close() }
            let result = try await runTool("/usr/bin/gdbus", [
                "introspect", "--address", bus.address, "--dest", Self.name, "--object-path", Self.path,
            ])
            #expect(result.status == 0)
            #expect(result.output.contains("CreateContext(in  a{sv} options,"))
            #expect(result.output.contains("readonly a(ssb) Backends"))
        }
    }

    @Test func dbusSendGetsAPropertyAndAnError() async throws {
        try await withPrivateBus { bus in
            let server = try await Self.serve(on: bus)
            defer { server.close() }
            let property = try await runTool("/usr/bin/dbus-send", [
                "--bus=\(bus.address)", "--print-reply", "--reply-timeout=5000", "--dest=\(Self.name)", Self.path,
                "org.freedesktop.DBus.Properties.Get", "string:\(Self.manager)", "string:Version",
            ])
            #expect(property.status == 0)
            #expect(property.output.contains(#"variant       string "1.0""#))
            let error = try await runTool("/usr/bin/dbus-send", [
                "--bus=\(bus.address)", "--print-reply", "--reply-timeout=5000", "--dest=\(Self.name)", Self.path,
                "\(Self.manager).Lockout",
            ])
            #expect(error.status != 0)
            #expect(error.output.contains("Error org.localauth.LocalAuthentication1.Error.BiometryLockout: Biometry is locked out."))
            let wrongArgs = try await runTool("/usr/bin/dbus-send", [
                "--bus=\(bus.address)", "--print-reply", "--reply-timeout=5000", "--dest=\(Self.name)", Self.path,
                "\(Self.manager).CreateContext", "uint32:7",
            ])
            #expect(wrongArgs.status != 0)
            #expect(wrongArgs.output.contains("Error org.freedesktop.DBus.Error.InvalidArgs"))
        }
    }

    @Test func pythonDBusCallsMethodsAndReadsProperties() async throws {
        try await withPrivateBus { bus in
            let server = try await Self.serve(on: bus)
            defer { server.close() }
            let script = """
                import sys, dbus
                bus = dbus.bus.BusConnection(sys.argv[1])
                obj = bus.get_object('\(Self.name)', '\(Self.path)', introspect=False)
                manager = dbus.Interface(obj, '\(Self.manager)')
                path, info = manager.CreateContext({'reason': 'sudo', 'n': dbus.UInt32(1)}, signature='a{sv}')
                print(path, info['reason'])
                backends = obj.Get('\(Self.manager)', 'Backends', dbus_interface='org.freedesktop.DBus.Properties')
                print([(str(i), str(n), bool(e)) for i, n, e in backends])
                try:
                    manager.Lockout()
                except dbus.DBusException as e:
                    print(e.get_dbus_name(), e.get_dbus_message())
                """
            let result = try await runTool("/usr/bin/python3", ["-c", script, bus.address])
            #expect(result.status == 0, "\(result.output)")
            #expect(result.output == """
                /org/localauth/LocalAuthentication1/context/1 sudo
                [('fingerprint', 'Fingerprint simulator', True)]
                org.localauth.LocalAuthentication1.Error.BiometryLockout Biometry is locked out.

                """)
        }
    }
}
