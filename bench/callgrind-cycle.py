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

sys.dont_write_bytecode = True
from cycle_service import CycleService  # noqa: E402 (after the line above)


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

    valgrind = ["valgrind", "--tool=callgrind", "--instr-atstart=no", f"--callgrind-out-file={args.out}"]
    with CycleService("callgrind-cycle", args.binary, floor=args.floor, wrapper=valgrind) as service:
        for _ in range(50):
            service.cycle()
        subprocess.run(["callgrind_control", "-i", "on", str(service.pid)], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(args.cycles):
            service.cycle()
        subprocess.run(["callgrind_control", "-i", "off", str(service.pid)], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    # "totals:" holds the whole count ("summary:" can be 0 once instrumentation was switched off).
    counts = [int(line.split()[1]) for line in open(args.out) if line.startswith(("summary:", "totals:"))]
    total = max(counts, default=0)
    if total == 0:
        sys.exit(f"callgrind-cycle: no totals in {args.out}")
    print(f"{os.path.basename(args.binary)}: {total // args.cycles} instructions per cycle "
          f"({args.cycles} cycles; profile in {args.out})")


if __name__ == "__main__":
    main()
