#!/usr/bin/python3
"""Counts the instructions a daemon executes per evaluation cycle, with callgrind.

    bench/callgrind-cycle.py BINARY [CYCLES] [--floor] [--out FILE]

Starts a private dbus-daemon and BINARY under `valgrind --tool=callgrind` with instrumentation
off, runs 50 warm-up cycles (CreateContext, Simulator.Touch, EvaluatePolicy(1), Invalidate, as
`make bench` does), switches instrumentation on (`callgrind_control -i on`), runs CYCLES more
(default 300) and prints the user-space instructions per cycle. BINARY is a localauthd (the
release build `make bench` leaves in .build/bench-localauthd) or, with --floor, the C floor
(.build/bench-cycle-floor). Unlike CPU time this count hardly moves between runs on a shared
machine, so it shows what a change saves; kernel time is not in it. Open the profile with
`callgrind_annotate --inclusive=yes FILE`. Needs valgrind (apt install valgrind).
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

import dbus

NAME = "org.localauth.LocalAuthentication1"
FLOOR_NAME = "org.localauth.BenchFloor"
ROOT = "/org/localauth/LocalAuthentication1"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("binary")
    parser.add_argument("cycles", type=int, nargs="?", default=300)
    parser.add_argument("--floor", action="store_true", help="BINARY is bench/cycle-floor.c's program")
    parser.add_argument("--out", default="callgrind.out.cycle", help="where the profile goes")
    args = parser.parse_args()
    for tool in ("valgrind", "callgrind_control", "dbus-daemon"):
        if shutil.which(tool) is None:
            sys.exit(f"callgrind-cycle: {tool} is not installed (apt install valgrind dbus)")

    scratch = tempfile.mkdtemp(prefix="callgrind-cycle-")
    with open(f"{scratch}/bus.conf", "w") as conf:
        conf.write(f"""<busconfig><type>session</type><listen>unix:path={scratch}/bus</listen><auth>EXTERNAL</auth>
<policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/><allow user="*"/></policy></busconfig>""")
    with open(f"{scratch}/localauthd.conf", "w") as conf:
        conf.write("max_contexts = 20000\nbiometry_max_failures = 1000\nface_consent = false\n")
    bus = subprocess.Popen(["dbus-daemon", "--config-file", f"{scratch}/bus.conf", "--nofork", "--print-address"],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    address = bus.stdout.readline().decode().strip()
    valgrind = ["valgrind", "--tool=callgrind", "--instr-atstart=no", f"--callgrind-out-file={args.out}"]
    command = [args.binary, address] if args.floor else \
        [args.binary, "--address", address, "--state-dir", f"{scratch}/state", "--config", f"{scratch}/localauthd.conf"]
    daemon = subprocess.Popen(valgrind + command, stderr=open(f"{scratch}/daemon.log", "w"))
    try:
        connection = dbus.bus.BusConnection(address)
        name = FLOOR_NAME if args.floor else NAME
        deadline = time.monotonic() + 60
        while not connection.name_has_owner(name):
            if daemon.poll() is not None or time.monotonic() > deadline:
                sys.exit(f"callgrind-cycle: {args.binary} did not start; see {scratch}/daemon.log")
            time.sleep(0.1)
        manager = dbus.Interface(connection.get_object(name, ROOT, introspect=False), NAME + ".Manager")
        simulator = dbus.Interface(connection.get_object(name, ROOT + "/simulator", introspect=False), NAME + ".Simulator")
        if not args.floor:
            manager.SetPasscode("", "bench-passcode", timeout=120)
            manager.Enroll("fingerprint", "right-index-finger", "bench-passcode", timeout=120)

        def cycle():
            path = manager.CreateContext(dbus.Dictionary({}, signature="sv"))
            simulator.Touch("right-index-finger")
            context = dbus.Interface(connection.get_object(name, path, introspect=False), NAME + ".Context")
            context.EvaluatePolicy(dbus.UInt32(1), "bench", timeout=120)
            context.Invalidate()

        for _ in range(50):
            cycle()
        subprocess.run(["callgrind_control", "-i", "on", str(daemon.pid)], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(args.cycles):
            cycle()
        subprocess.run(["callgrind_control", "-i", "off", str(daemon.pid)], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    finally:
        daemon.terminate()
        daemon.wait()
        bus.terminate()
        bus.wait()
    # "totals:" holds the whole count ("summary:" can be 0 once instrumentation was switched off).
    counts = [int(line.split()[1]) for line in open(args.out) if line.startswith(("summary:", "totals:"))]
    total = max(counts, default=0)
    if total == 0:
        sys.exit(f"callgrind-cycle: no totals in {args.out}")
    print(f"{os.path.basename(args.binary)}: {total // args.cycles} instructions per cycle "
          f"({args.cycles} cycles; profile in {args.out})")
    shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
