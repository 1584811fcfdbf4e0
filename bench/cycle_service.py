"""A private dbus-daemon with localauthd or the C floor on it, and the evaluation cycle that
`make bench` measures, for the scripts in bench/ that look inside one service while it runs it."""
import os
import shutil
import signal
import subprocess
import tempfile
import time

import dbus

NAME = "org.localauth.LocalAuthentication1"
FLOOR_NAME = "org.localauth.BenchFloor"
ROOT = "/org/localauth/LocalAuthentication1"


class CycleService:
    """Starts `binary` (a localauthd, or with `floor` bench/cycle-floor.c's program) on a bus of
    its own, prefixed by `wrapper` and with `environment` added; waits for its bus name and, for
    localauthd, sets a passcode and enrolls the finger the cycle touches. Use it in `with`: the
    service and the bus stop at the end, and the scratch directory goes unless the service failed
    to start. `program` names the calling script in messages."""

    def __init__(self, program, binary, floor=False, wrapper=(), environment=None):
        # A parent that blocked SIGTERM (Foundation.Process does, for `make bench`'s harness) would
        # hand that mask to the bus and the service, and stop() would wait for them forever.
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT, signal.SIGHUP})
        self.program, self.binary, self.floor = program, binary, floor
        self.scratch = tempfile.mkdtemp(prefix=f"{program}-")
        with open(f"{self.scratch}/bus.conf", "w") as conf:
            conf.write(f"""<busconfig><type>session</type><listen>unix:path={self.scratch}/bus</listen><auth>EXTERNAL</auth>
<policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/><allow user="*"/></policy></busconfig>""")
        with open(f"{self.scratch}/localauthd.conf", "w") as conf:
            conf.write("max_contexts = 20000\nbiometry_max_failures = 1000\nface_consent = false\n")
        self.bus = subprocess.Popen(["dbus-daemon", "--config-file", f"{self.scratch}/bus.conf", "--nofork", "--print-address"],
                                    stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        address = self.bus.stdout.readline().decode().strip()
        command = [binary, address] if floor else \
            [binary, "--address", address, "--state-dir", f"{self.scratch}/state", "--config", f"{self.scratch}/localauthd.conf"]
        self.server = subprocess.Popen(list(wrapper) + command, env=dict(os.environ, **(environment or {})),
                                       stderr=open(f"{self.scratch}/server.log", "w"))
        try:
            self._connect(address)
        except BaseException:
            self.stop()
            raise

    def _connect(self, address):
        self.connection = dbus.bus.BusConnection(address)
        self.name = FLOOR_NAME if self.floor else NAME
        deadline = time.monotonic() + 60
        while not self.connection.name_has_owner(self.name):
            if self.server.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"{self.program}: {self.binary} did not start; see {self.scratch}/server.log")
            time.sleep(0.1)
        self.manager = dbus.Interface(self.connection.get_object(self.name, ROOT, introspect=False), NAME + ".Manager")
        self.simulator = dbus.Interface(self.connection.get_object(self.name, ROOT + "/simulator", introspect=False),
                                        NAME + ".Simulator")
        if not self.floor:
            self.manager.SetPasscode("", "bench-passcode", timeout=120)
            self.manager.Enroll("fingerprint", "right-index-finger", "bench-passcode", timeout=120)

    @property
    def pid(self):
        return self.server.pid

    def cycle(self, reason="bench"):
        """CreateContext → Simulator.Touch → EvaluatePolicy(1) → Invalidate: a match."""
        path = self.manager.CreateContext(dbus.Dictionary({}, signature="sv"))
        self.simulator.Touch("right-index-finger")
        context = dbus.Interface(self.connection.get_object(self.name, path, introspect=False), NAME + ".Context")
        context.EvaluatePolicy(dbus.UInt32(1), reason, timeout=120)
        context.Invalidate()

    def stop(self):
        """SIGTERM to the service, then the bus; whichever has not exited 30 s later (valgrind
        writes its profile first) is killed, and the failure says so."""
        stuck = [name for name, process in (("service", self.server), ("dbus-daemon", self.bus)) if not self._end(process)]
        if stuck:
            raise SystemExit(f"{self.program}: the {' and the '.join(stuck)} did not exit on SIGTERM within 30 s and was killed; "
                             f"see {self.scratch}/server.log")

    @staticmethod
    def _end(process):
        process.terminate()
        try:
            process.wait(timeout=30)
            return True
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
            return False

    def __enter__(self):
        return self

    def __exit__(self, kind, value, traceback):
        self.stop()
        if kind is None:
            shutil.rmtree(self.scratch, ignore_errors=True)
