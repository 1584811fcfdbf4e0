// SPDX-License-Identifier: Apache-2.0
/// The names of localauthd's D-Bus API v1 (`dbus/*.xml`), shared by the daemon and every client
/// in this repository so that none of them spells them out on its own.
public enum LocalAuthBusNames {
    public static let busName = "org.localauth.LocalAuthentication1"
    public static let managerPath = "/org/localauth/LocalAuthentication1"
    /// Contexts are `<contextRoot>/<n>`.
    public static let contextRoot = "/org/localauth/LocalAuthentication1/context"
    public static let simulatorPath = "/org/localauth/LocalAuthentication1/simulator"
    public static let managerInterface = "org.localauth.LocalAuthentication1.Manager"
    public static let contextInterface = "org.localauth.LocalAuthentication1.Context"
    public static let simulatorInterface = "org.localauth.LocalAuthentication1.Simulator"
    /// Served by each agent at ``agentPath`` on its own connection; the daemon calls it.
    public static let agentInterface = "org.localauth.LocalAuthentication1.Agent"
    public static let agentPath = "/org/localauth/LocalAuthentication1/Agent"
    /// Error names are `<errorPrefix><Name>` (`…Error.BiometryLockout`).
    public static let errorPrefix = "org.localauth.LocalAuthentication1.Error."
}
