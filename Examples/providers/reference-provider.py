#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""localauthd's reference biometric provider: a simulated sensor behind org.localauth.Provider1.

A template for a vendor's provider (docs/providers.md). It serves org.localauth.Provider1 at
/org/localauth/Provider1 under its own bus name, answers only localauthd (the connection that owns
org.localauth.LocalAuthentication1), and reports to localauthd's ProviderHost with method calls.
Templates are stored per user in its state directory ($STATE_DIRECTORY from systemd, or
--state-dir), as opaque ids it chooses.

Instead of hardware it has a simulator input, org.localauth.ReferenceProvider1.Simulator at
/org/localauth/ReferenceProvider1 on the same bus name, which root and the provider's own user
may call: Touch(label) presents an enrolled finger or face (a match, or a capture while enrolling),
Retry(reason) a read that cannot be judged, SetAvailable(bool) plugs or unplugs the sensor. The
remaining simulator methods inject faults for localauthd's tests.

Runs the same whether bus-activated (systemd) or started by localauthd (descriptor Exec=): it
connects to $DBUS_STARTER_ADDRESS when set, else to the system bus (or --address).
"""
import argparse
import json
import os
import secrets
import signal
import sys

import dbus
import dbus.service
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib

PROVIDER = "org.localauth.Provider1"
PROVIDER_PATH = "/org/localauth/Provider1"
ERROR = PROVIDER + ".Error."
HOST_NAME = "org.localauth.LocalAuthentication1"
HOST_PATH = "/org/localauth/LocalAuthentication1/providers"
HOST = "org.localauth.LocalAuthentication1.ProviderHost"
SIMULATOR = "org.localauth.ReferenceProvider1.Simulator"
SIMULATOR_PATH = "/org/localauth/ReferenceProvider1"
VERSION = "1.0.0"
FINGER_RETRY = ["too-short", "not-centered", "remove-and-retry", "too-fast"]
FACE_RETRY = ["no-face", "attention-required"]


class ProviderError(dbus.DBusException):
    def __init__(self, name, message):
        super().__init__(message, name=ERROR + name)


class Sensor:
    """The simulated sensor's state: the armed session, the running enrollment, the templates."""

    def __init__(self, modality, stages, state_dir):
        self.modality = modality
        self.stages = stages
        self.state_dir = state_dir
        self.available = True
        self.armed = None  # (session, user, templates, options)
        self.enrolling = None  # dict(id, user, label, done)
        os.makedirs(state_dir, mode=0o700, exist_ok=True)

    def _path(self, user):
        return os.path.join(self.state_dir, "%d.json" % int(user))

    def templates(self, user):
        """template id -> label, for one user."""
        try:
            with open(self._path(user)) as f:
                return dict(json.load(f)["templates"])
        except FileNotFoundError:
            return {}

    def save(self, user, templates):
        path = self._path(user)
        scratch = path + ".new"
        with open(scratch, "w") as f:
            json.dump({"templates": templates}, f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(scratch, path)


class Provider(dbus.service.Object):
    def __init__(self, bus, sensor, protocol_version):
        super().__init__(bus, PROVIDER_PATH)
        self.bus = bus
        self.sensor = sensor
        self.protocol_version = protocol_version
        self.hanging = False
        self.simulator = None

    # -- who may call -------------------------------------------------------------------------
    def _require_host(self, sender):
        try:
            host = self.bus.get_name_owner(HOST_NAME)
        except dbus.DBusException:
            host = None
        if sender != host:
            raise dbus.DBusException("Only localauthd may call this provider.",
                                     name="org.freedesktop.DBus.Error.AccessDenied")

    def _answer(self, reply, value=None):
        """Replies unless the simulator made this provider hang (then the call never returns)."""
        if self.hanging:
            return
        if value is None:
            reply()
        else:
            reply(value)

    # -- reports to localauthd ----------------------------------------------------------------
    def report(self, member, args, done):
        """Calls ProviderHost.<member> asynchronously, so the main loop keeps answering localauthd
        (and its pings) meanwhile; then done("") or done(the D-Bus error name it failed with)."""
        host = self.bus.get_object(HOST_NAME, HOST_PATH, introspect=False)
        host.get_dbus_method(member, HOST)(*args, timeout=10,
                                           reply_handler=lambda *_: done(""),
                                           error_handler=lambda error: done(error.get_dbus_name() or "error"))

    # -- org.localauth.Provider1 ----------------------------------------------------------------
    @dbus.service.method(PROVIDER, in_signature="u", out_signature="usa{sv}", sender_keyword="sender",
                         async_callbacks=("reply", "error"))
    def Hello(self, host_version, sender=None, reply=None, error=None):
        self._require_host(sender)
        reasons = FINGER_RETRY if self.sensor.modality == "fingerprint" else FACE_RETRY
        capabilities = {
            "ProviderVersion": dbus.String(VERSION),
            "Description": dbus.String("Reference %s provider (simulated sensor)" % self.sensor.modality),
            "Available": dbus.Boolean(self.sensor.available),
            "Identify": dbus.Boolean(True),
            "EnrollStages": dbus.UInt32(self.sensor.stages),
            "Attention": dbus.Boolean(self.sensor.modality == "face"),
            "RetryReasons": dbus.Array(reasons, signature="s"),
        }
        version = self.protocol_version if self.protocol_version else min(int(host_version), 1)
        if not self.hanging:
            reply(dbus.UInt32(version), self.sensor.modality, dbus.Dictionary(capabilities, signature="sv"))

    @dbus.service.method(PROVIDER, in_signature="tuasa{sv}", out_signature="", sender_keyword="sender",
                         async_callbacks=("reply", "error"))
    def Arm(self, session, user, templates, options, sender=None, reply=None, error=None):
        self._require_host(sender)
        if not self.sensor.available:
            raise ProviderError("Unavailable", "The simulated sensor is unplugged.")
        if self.sensor.enrolling is not None:
            raise ProviderError("Busy", "The sensor is enrolling.")
        self.sensor.armed = (int(session), int(user), [str(t) for t in templates], dict(options))
        self.simulator.Listening("armed", dbus.UInt64(session))
        self._answer(reply)

    @dbus.service.method(PROVIDER, in_signature="t", out_signature="", sender_keyword="sender",
                         async_callbacks=("reply", "error"))
    def Disarm(self, session, sender=None, reply=None, error=None):
        self._require_host(sender)
        if self.sensor.armed is not None and self.sensor.armed[0] == int(session):
            self.sensor.armed = None
        self._answer(reply)

    @dbus.service.method(PROVIDER, in_signature="tus", out_signature="u", sender_keyword="sender",
                         async_callbacks=("reply", "error"))
    def EnrollStart(self, enrollment, user, label, sender=None, reply=None, error=None):
        self._require_host(sender)
        if not self.sensor.available:
            raise ProviderError("Unavailable", "The simulated sensor is unplugged.")
        if self.sensor.enrolling is not None or self.sensor.armed is not None:
            raise ProviderError("Busy", "The sensor is in use.")
        self.sensor.enrolling = {"id": int(enrollment), "user": int(user), "label": str(label), "done": 0}
        self.simulator.Listening("enrolling", dbus.UInt64(enrollment))
        self._answer(reply, dbus.UInt32(self.sensor.stages))

    @dbus.service.method(PROVIDER, in_signature="t", out_signature="", sender_keyword="sender",
                         async_callbacks=("reply", "error"))
    def EnrollCancel(self, enrollment, sender=None, reply=None, error=None):
        self._require_host(sender)
        if self.sensor.enrolling is not None and self.sensor.enrolling["id"] == int(enrollment):
            self.sensor.enrolling = None
        self._answer(reply)

    @dbus.service.method(PROVIDER, in_signature="u", out_signature="as", sender_keyword="sender",
                         async_callbacks=("reply", "error"))
    def ListTemplates(self, user, sender=None, reply=None, error=None):
        self._require_host(sender)
        self._answer(reply, dbus.Array(sorted(self.sensor.templates(user)), signature="s"))

    @dbus.service.method(PROVIDER, in_signature="us", out_signature="", sender_keyword="sender",
                         async_callbacks=("reply", "error"))
    def DeleteTemplate(self, user, template, sender=None, reply=None, error=None):
        self._require_host(sender)
        templates = self.sensor.templates(user)
        if str(template) not in templates:
            raise ProviderError("UnknownTemplate", "No template %s for uid %d." % (template, user))
        del templates[str(template)]
        self.sensor.save(user, templates)
        self._answer(reply)


class Simulator(dbus.service.Object):
    """The simulated sensor's input, and fault injection for tests."""

    def __init__(self, bus, provider):
        super().__init__(bus, SIMULATOR_PATH)
        self.bus = bus
        self.provider = provider
        self.sensor = provider.sensor
        provider.simulator = self

    @dbus.service.signal(SIMULATOR, signature="st")
    def Listening(self, what, id):
        """The sensor started listening: "armed" (for an evaluation's session) or "enrolling".
        Carries no user; a test (or a person at the simulator) knows when to touch."""

    def _require_operator(self, sender):
        uid = self.bus.get_unix_user(sender)
        if uid not in (0, os.getuid()):
            raise dbus.DBusException("Only root and the provider's user may drive the simulator.",
                                     name="org.freedesktop.DBus.Error.AccessDenied")

    @dbus.service.method(SIMULATOR, in_signature="s", out_signature="s", sender_keyword="sender",
                         async_callbacks=("reply", "error"))
    def Touch(self, label, sender=None, reply=None, error=None):
        """A finger or face on the sensor: a capture while enrolling, else a match or no-match for
        the armed session. Answers "" or the error name localauthd answered the report with."""
        self._require_operator(sender)
        sensor = self.sensor
        if sensor.enrolling is not None:
            enrolling = sensor.enrolling
            enrolling["done"] += 1

            def stage_reported(result):
                if enrolling["done"] < sensor.stages or sensor.enrolling is not enrolling:
                    reply(result)
                    return
                templates = sensor.templates(enrolling["user"])
                template = "ref-" + secrets.token_hex(8)
                templates[template] = enrolling["label"]
                sensor.save(enrolling["user"], templates)
                sensor.enrolling = None
                self.provider.report("ReportEnrollment", (dbus.UInt64(enrolling["id"]), "completed",
                                                          dbus.UInt32(enrolling["done"]), template), reply)

            self.provider.report("ReportEnrollment", (dbus.UInt64(enrolling["id"]), "stage-passed",
                                                      dbus.UInt32(enrolling["done"]), ""), stage_reported)
            return
        if sensor.armed is None:
            raise dbus.DBusException("Nothing is armed.", name="org.localauth.ReferenceProvider1.Error.NotListening")
        session, user, armed, _ = sensor.armed
        owned = sensor.templates(user)
        matching = [t for t in armed if owned.get(t) == str(label)]
        if matching:
            self.provider.report("ReportAttempt", (dbus.UInt64(session), "match", matching[0]), reply)
        else:
            self.provider.report("ReportAttempt", (dbus.UInt64(session), "no-match", ""), reply)

    @dbus.service.method(SIMULATOR, in_signature="s", out_signature="s", sender_keyword="sender",
                         async_callbacks=("reply", "error"))
    def Retry(self, reason, sender=None, reply=None, error=None):
        self._require_operator(sender)
        sensor = self.sensor
        if sensor.enrolling is not None:
            e = sensor.enrolling
            self.provider.report("ReportEnrollment", (dbus.UInt64(e["id"]), "retry", dbus.UInt32(e["done"]), reason), reply)
            return
        if sensor.armed is None:
            raise dbus.DBusException("Nothing is armed.", name="org.localauth.ReferenceProvider1.Error.NotListening")
        self.provider.report("ReportAttempt", (dbus.UInt64(sensor.armed[0]), "retry", reason), reply)

    @dbus.service.method(SIMULATOR, in_signature="b", out_signature="s", sender_keyword="sender",
                         async_callbacks=("reply", "error"))
    def SetAvailable(self, available, sender=None, reply=None, error=None):
        """Plugs or unplugs the sensor: unplugged, it drops what it was doing and reports it."""
        self._require_operator(sender)
        self.sensor.available = bool(available)
        if not available:
            self.sensor.armed = None
            self.sensor.enrolling = None
        self.provider.report("ReportAvailability", (dbus.Boolean(available),), reply)

    @dbus.service.method(SIMULATOR, in_signature="s", out_signature="s", sender_keyword="sender",
                         async_callbacks=("reply", "error"))
    def FailEnrollment(self, reason, sender=None, reply=None, error=None):
        """Ends the running enrollment with failed and `reason` (data-full, duplicate, ...)."""
        self._require_operator(sender)
        e = self.sensor.enrolling
        if e is None:
            raise dbus.DBusException("Not enrolling.", name="org.localauth.ReferenceProvider1.Error.NotListening")
        self.sensor.enrolling = None
        self.provider.report("ReportEnrollment", (dbus.UInt64(e["id"]), "failed", dbus.UInt32(e["done"]), reason), reply)

    @dbus.service.method(SIMULATOR, in_signature="", out_signature="t", sender_keyword="sender")
    def ArmedSession(self, sender=None):
        """The armed session (0: none)."""
        self._require_operator(sender)
        return dbus.UInt64(self.sensor.armed[0] if self.sensor.armed else 0)

    @dbus.service.method(SIMULATOR, in_signature="u", out_signature="as", sender_keyword="sender")
    def Templates(self, user, sender=None):
        """The ids of the user's stored templates."""
        self._require_operator(sender)
        return dbus.Array(sorted(self.sensor.templates(user)), signature="s")

    # -- faults -----------------------------------------------------------------------------------
    @dbus.service.method(SIMULATOR, in_signature="", out_signature="", sender_keyword="sender")
    def Hang(self, sender=None):
        """From now on Provider1 calls are never answered (the simulator still is)."""
        self._require_operator(sender)
        self.provider.hanging = True

    @dbus.service.method(SIMULATOR, in_signature="tss", out_signature="s", sender_keyword="sender",
                         async_callbacks=("reply", "error"))
    def Report(self, session, result, detail, sender=None, reply=None, error=None):
        """Sends ReportAttempt with any arguments (malformed ones, other sessions); answers the error name or ""."""
        self._require_operator(sender)
        self.provider.report("ReportAttempt", (dbus.UInt64(session), result, detail), reply)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bus-name", default="org.localauth.Provider.Reference")
    parser.add_argument("--address", help="D-Bus address (default: $DBUS_STARTER_ADDRESS, else the system bus)")
    parser.add_argument("--state-dir", default=os.environ.get("STATE_DIRECTORY", "/var/lib/localauth-reference").split(":")[0])
    parser.add_argument("--modality", choices=["fingerprint", "face"], default="fingerprint")
    parser.add_argument("--stages", type=int, default=3, help="captures one enrollment takes")
    parser.add_argument("--protocol-version", type=int, default=0, help="answer Hello with this version (tests only)")
    options = parser.parse_args()

    DBusGMainLoop(set_as_default=True)
    address = options.address or os.environ.get("DBUS_STARTER_ADDRESS")
    bus = dbus.bus.BusConnection(address) if address else dbus.SystemBus()
    sensor = Sensor(options.modality, options.stages, options.state_dir)
    provider = Provider(bus, sensor, options.protocol_version)
    Simulator(bus, provider)
    reply = bus.request_name(options.bus_name, dbus.bus.NAME_FLAG_DO_NOT_QUEUE)
    if reply not in (dbus.bus.REQUEST_NAME_REPLY_PRIMARY_OWNER, dbus.bus.REQUEST_NAME_REPLY_ALREADY_OWNER):
        print("reference-provider: %s is owned by another connection" % options.bus_name, file=sys.stderr)
        sys.exit(1)
    loop = GLib.MainLoop()
    GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGTERM, loop.quit)
    bus.call_on_disconnection(lambda _: loop.quit())
    if os.environ.get("LOCALAUTH_PROVIDER_ID"):
        # Started by localauthd (Exec=): leave with it, so a restarted localauthd starts a fresh one.
        def host_changed(name, old, new):
            if not new:
                loop.quit()
        bus.add_signal_receiver(host_changed, "NameOwnerChanged", "org.freedesktop.DBus", "org.freedesktop.DBus",
                                "/org/freedesktop/DBus", arg0=HOST_NAME)
    print("reference-provider: serving %s as %s (uid %d)" % (PROVIDER, options.bus_name, os.getuid()), file=sys.stderr, flush=True)
    loop.run()


if __name__ == "__main__":
    main()
