// SPDX-License-Identifier: Apache-2.0
/// The methods of ``LocalAuthInterface/simulator``, served by localauthd at ``LocalAuthBusNames/simulatorPath``.
public enum SimulatorMethod {
    private typealias A = DBusInterfaceDescription.Argument

    public static let touch = BusMethod<String, BusWire.Nothing>("Touch", in: [A("finger", "s")])
    public static let fingerprintRetry = BusMethod<String, BusWire.Nothing>("FingerprintRetry", in: [A("reason", "s")])
    public static let presentFace = BusMethod<String, Bool, BusWire.Nothing>("PresentFace", in: [A("appearance", "s"), A("attentive", "b")])
    public static let setConnected = BusMethod<String, Bool, BusWire.Nothing>("SetConnected", in: [A("modality", "s"), A("connected", "b")])
    public static let pressCancel = BusMethod<BusWire.Nothing>("PressCancel")
    public static let pressFallback = BusMethod<BusWire.Nothing>("PressFallback")
    public static let reset = BusMethod<BusWire.Nothing>("Reset")

    /// In the order of `dbus/org.localauth.LocalAuthentication1.Simulator.xml`.
    public static let all: [DBusInterfaceDescription.Method] = [
        touch.description, fingerprintRetry.description, presentFace.description, setConnected.description,
        pressCancel.description, pressFallback.description, reset.description,
    ]
}
