// SPDX-License-Identifier: Apache-2.0
/// The start of every python3-dbus test script: a connection to the bus named by `sys.argv[1]`,
/// `N` (the bus name), `M` (the manager path), and `attempt(name, call)`, which prints
/// `name allowed` or `name <D-Bus error name>` so a test can check each line.
public enum PythonDBusClient {
    public static let prelude = """
    import sys, dbus
    bus = dbus.bus.BusConnection(sys.argv[1])
    N = 'org.localauth.LocalAuthentication1'
    M = '/org/localauth/LocalAuthentication1'
    def attempt(name, call):
        try:
            call()
            print(name, 'allowed')
        except dbus.DBusException as e:
            print(name, e.get_dbus_name())

    """
}
