#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""The evaluation cycle through localauth-fprintd-provider against fprintd's own verify cycle, on
libfprint's virtual reader, in the same run (`make bench`; run by /usr/bin/python3, which has
python3-dbus and python3-dbusmock).

On one private bus: real fprintd (virtual_device), polkit answered by python3-dbusmock, the release
localauthd with the provider started from its descriptor's Exec=. Three cycles, each from start
until the match is known and until the reader is released again (another program could claim it):

  fprintd   Claim, VerifyStart, touch (SCAN), VerifyStatus verify-match, VerifyStop, Release — what
            pam_fprintd or a lock screen does, the floor;
  provider  Provider1.Arm, touch, ProviderHost.ReportAttempt match (the bench stands in for
            localauthd) — the provider's own cost;
  localauthd  Context.EvaluatePolicy(biometrics) through the real daemon, provider and fprintd,
            touch, the reply — what an application sees.

Usage: fprintd-bench.py --bin DIR [--rounds N] [--json FILE]
"""
import argparse, json, os, shutil, socket, statistics, subprocess, sys, tempfile, time
import dbus
import dbus.service
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib

FPRINT = 'net.reactivated.Fprint'
DEVICE_IFACE = 'net.reactivated.Fprint.Device'
HOST_NAME = 'org.localauth.LocalAuthentication1'
PROVIDER_NAME = 'org.localauth.Provider.Fprintd'
FINGER = 'right-index-finger'
PASSCODE = '4711-secret'


class Reader:
    """The virtual reader's command socket: open exactly while a client holds the claim."""
    def __init__(self, path):
        self.path = path

    def send(self, command, within=10.0):
        deadline = time.monotonic() + within
        while True:
            try:
                s = socket.socket(socket.AF_UNIX)
                s.connect(self.path)
                s.sendall(command.encode())
                s.shutdown(socket.SHUT_WR)
                s.recv(64)
                s.close()
                return
            except (FileNotFoundError, ConnectionRefusedError):
                s.close()
                if time.monotonic() > deadline:
                    raise
                # Let our own asynchronous calls (EvaluatePolicy, Enroll) leave and their replies in.
                if not GLib.MainContext.default().iteration(False):
                    time.sleep(0.0005)

    def is_open(self):
        s = socket.socket(socket.AF_UNIX)
        try:
            s.connect(self.path)
            return True
        except OSError:
            return False
        finally:
            s.close()

    def wait_closed(self, within=10.0):
        deadline = time.monotonic() + within
        while self.is_open():
            if time.monotonic() > deadline:
                raise TimeoutError('the reader was not released')
            time.sleep(0.0005)


def pump_until(predicate, within=10.0):
    context = GLib.MainContext.default()
    deadline = time.monotonic() + within
    while not predicate():
        if time.monotonic() > deadline:
            raise TimeoutError('no answer in time')
        context.iteration(True)


def wait_for_name(bus, name, within=20.0):
    deadline = time.monotonic() + within
    while not bus.name_has_owner(name):
        if time.monotonic() > deadline:
            raise TimeoutError(f'{name} did not appear')
        time.sleep(0.005)


def summary(samples):
    ordered = sorted(samples)
    return {'median_ms': round(statistics.median(ordered) * 1000, 2),
            'p95_ms': round(ordered[int(0.95 * (len(ordered) - 1))] * 1000, 2),
            'min_ms': round(ordered[0] * 1000, 2), 'rounds': len(ordered)}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--bin', required=True, type=os.path.abspath, help='directory with localauthd and localauth-fprintd-provider')
    parser.add_argument('--rounds', type=int, default=50)
    parser.add_argument('--json')
    options = parser.parse_args()

    DBusGMainLoop(set_as_default=True)
    work = tempfile.mkdtemp(prefix='fprintd-bench-')
    children = []
    try:
        bus_process = subprocess.Popen(['dbus-daemon', '--session', '--nofork', '--print-address=1', '--nopidfile'],
                                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        children.append(bus_process)
        address = bus_process.stdout.readline().strip()
        env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=address)
        log = open(os.path.join(work, 'children.log'), 'w')
        bus = dbus.bus.BusConnection(address)

        children.append(subprocess.Popen([sys.executable, '-m', 'dbusmock', '--system', '--template', 'polkitd'],
                                         env=env, stdout=log, stderr=log))
        wait_for_name(bus, 'org.freedesktop.PolicyKit1')
        bus.get_object('org.freedesktop.PolicyKit1', '/org/freedesktop/PolicyKit1/Authority').SetAllowed(
            ['net.reactivated.fprint.device.verify', 'net.reactivated.fprint.device.enroll',
             'net.reactivated.fprint.device.setusername'], dbus_interface='org.freedesktop.DBus.Mock')
        for sub in ('state', 'run', 'providers', 'daemon-state'):
            os.makedirs(os.path.join(work, sub))
        reader = Reader(os.path.join(work, 'virtual-device'))
        children.append(subprocess.Popen(['/usr/libexec/fprintd', '--no-timeout'], stdout=log, stderr=log, env=dict(
            env, FP_VIRTUAL_DEVICE=reader.path, FP_DRIVERS_WHITELIST='virtual_device',
            STATE_DIRECTORY=os.path.join(work, 'state'), RUNTIME_DIRECTORY=os.path.join(work, 'run'))))
        wait_for_name(bus, FPRINT)
        user = os.environ.get('USER') or __import__('pwd').getpwuid(os.getuid()).pw_name

        manager = bus.get_object(FPRINT, '/net/reactivated/Fprint/Manager')
        device_path = manager.GetDefaultDevice(dbus_interface='net.reactivated.Fprint.Manager')
        device = dbus.Interface(bus.get_object(FPRINT, device_path), DEVICE_IFACE)
        statuses = []
        bus.add_signal_receiver(lambda result, done: statuses.append(result), 'VerifyStatus', DEVICE_IFACE, FPRINT)
        enrolled = []
        bus.add_signal_receiver(lambda result, done: enrolled.append(result), 'EnrollStatus', DEVICE_IFACE, FPRINT)

        # Enroll through fprintd itself (the provider and localauthd see the same finger).
        device.Claim(user)
        device.EnrollStart(FINGER)
        for _ in range(5):
            reader.send('SCAN print-a')
        pump_until(lambda: 'enroll-completed' in enrolled)
        device.EnrollStop()
        device.Release()

        results = {}

        # 1. fprintd's own verify cycle.
        to_match, to_release = [], []
        for _ in range(options.rounds):
            statuses.clear()
            start = time.monotonic()
            device.Claim(user)
            device.VerifyStart('any')
            reader.send('SCAN print-a')
            pump_until(lambda: 'verify-match' in statuses)
            to_match.append(time.monotonic() - start)
            device.VerifyStop()
            device.Release()
            to_release.append(time.monotonic() - start)
        results['fprintd'] = {'to_match': summary(to_match), 'to_release': summary(to_release)}

        # 2. The provider, with the bench as localauthd.
        class Host(dbus.service.Object):
            def __init__(self, connection):
                super().__init__(connection, '/org/localauth/LocalAuthentication1/providers')
                self.attempts = []

            @dbus.service.method('org.localauth.LocalAuthentication1.ProviderHost', in_signature='tss', out_signature='')
            def ReportAttempt(self, session, result, detail):
                self.attempts.append((int(session), str(result), str(detail)))

            @dbus.service.method('org.localauth.LocalAuthentication1.ProviderHost', in_signature='tsus', out_signature='')
            def ReportEnrollment(self, enrollment, status, stages, detail):
                pass

            @dbus.service.method('org.localauth.LocalAuthentication1.ProviderHost', in_signature='b', out_signature='')
            def ReportAvailability(self, available):
                pass

        host_bus = dbus.bus.BusConnection(address)
        host_bus.request_name(HOST_NAME)
        host = Host(host_bus)
        provider_binary = os.path.join(options.bin, 'localauth-fprintd-provider')
        provider = subprocess.Popen([provider_binary, '--address', address], stdout=log, stderr=log)
        children.append(provider)
        wait_for_name(bus, PROVIDER_NAME)
        provider_object = dbus.Interface(host_bus.get_object(PROVIDER_NAME, '/org/localauth/Provider1'), 'org.localauth.Provider1')
        provider_object.Hello(dbus.UInt32(1))
        to_match, to_release = [], []
        for session in range(1, options.rounds + 1):
            start = time.monotonic()
            provider_object.Arm(dbus.UInt64(session), dbus.UInt32(os.getuid()), [FINGER], dbus.Dictionary({}, signature='sv'))
            reader.send('SCAN print-a')
            pump_until(lambda: any(a[0] == session for a in host.attempts))
            to_match.append(time.monotonic() - start)
            reader.wait_closed()
            to_release.append(time.monotonic() - start)
            provider_object.Disarm(dbus.UInt64(session))
        results['provider'] = {'to_match': summary(to_match), 'to_release': summary(to_release)}
        provider.kill()
        provider.wait()
        host_bus.release_name(HOST_NAME)
        host_bus.close()

        # 3. Through localauthd: the provider started by the daemon from its descriptor.
        with open(os.path.join(work, 'providers', 'fprintd.provider'), 'w') as descriptor:
            descriptor.write(f'[Provider]\nId=fprintd\nModality=fingerprint\nBusName={PROVIDER_NAME}\n'
                             f'Exec={provider_binary}\nUser={os.getuid()}\nProtocolVersion=1\nDescription=bench\n')
        config = os.path.join(work, 'localauthd.conf')
        with open(config, 'w') as f:
            f.write(f'backends = fprintd, passcode\nprovider_directories = {os.path.join(work, "providers")}\n'
                    'provider_timeout = 10\nbiometry_max_failures = 5\n')
        children.append(subprocess.Popen([os.path.join(options.bin, 'localauthd'), '--address', address, '--config', config,
                                          '--state-dir', os.path.join(work, 'daemon-state')], stdout=log, stderr=log))
        wait_for_name(bus, HOST_NAME)
        client = dbus.bus.BusConnection(address)
        daemon_manager = dbus.Interface(client.get_object(HOST_NAME, '/org/localauth/LocalAuthentication1'),
                                        'org.localauth.LocalAuthentication1.Manager')
        deadline = time.monotonic() + 20
        while True:
            backends = daemon_manager.Get('org.localauth.LocalAuthentication1.Manager', 'Backends',
                                          dbus_interface='org.freedesktop.DBus.Properties')
            if any(str(b[0]) == 'fprintd' and bool(b[2]) for b in backends):
                break
            if time.monotonic() > deadline:
                raise TimeoutError('the fprintd provider did not become available in localauthd')
            time.sleep(0.01)
        daemon_manager.SetPasscode('', PASSCODE)
        finished = []
        daemon_manager.Enroll('fingerprint', FINGER, PASSCODE, reply_handler=lambda: finished.append(None),
                              error_handler=lambda e: finished.append(e), timeout=60)
        for _ in range(5):
            reader.send('SCAN print-a')
        pump_until(lambda: finished)
        if finished[0] is not None:
            raise finished[0]
        to_match, to_release = [], []
        for _ in range(options.rounds):
            context_path = daemon_manager.CreateContext(dbus.Dictionary({}, signature='sv'))
            context = dbus.Interface(client.get_object(HOST_NAME, context_path), 'org.localauth.LocalAuthentication1.Context')
            done = []
            start = time.monotonic()
            context.EvaluatePolicy(dbus.UInt32(1), 'bench', reply_handler=lambda *a: done.append(None),
                                   error_handler=lambda e: done.append(e), timeout=60)
            reader.send('SCAN print-a')
            pump_until(lambda: done)
            if done[0] is not None:
                raise done[0]
            to_match.append(time.monotonic() - start)
            reader.wait_closed()
            to_release.append(time.monotonic() - start)
            context.Invalidate()
        results['localauthd'] = {'to_match': summary(to_match), 'to_release': summary(to_release)}

        text = json.dumps(results, indent=2)
        print(text)
        if options.json:
            with open(options.json, 'w') as f:
                f.write(text + '\n')
    except Exception:
        with open(os.path.join(work, 'children.log')) as f:
            sys.stderr.write(f.read()[-3000:])
        raise
    finally:
        for child in reversed(children):
            child.kill()
            child.wait()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == '__main__':
    main()
