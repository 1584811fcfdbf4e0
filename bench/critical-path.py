#!/usr/bin/python3
"""Measures, per call of the evaluation cycle, how long localauthd and the C floor take from
reading the call to sending its reply.

    bench/critical-path.py DAEMON FLOOR [--cycles N] [--rounds R] [--shim SO] [--json FILE] [--markdown FILE]

DAEMON is a localauthd (the release build `make bench` leaves in .build/bench-localauthd), FLOOR
bench/cycle-floor.c's program (.build/bench-cycle-floor), SO bench/critical-path.c built as a shared
library (default .build/critical-path.so; `cc -O2 -shared -fPIC -o .build/critical-path.so
bench/critical-path.c -ldl`). For each of R rounds (default 3) it starts each program on a private
dbus-daemon with SO preloaded, runs 50 warm-up cycles (CreateContext, Simulator.Touch,
EvaluatePolicy(1), Invalidate, as `make bench` does), one cycle that restarts the count, then N more
(default 2000), and stops it. It prints, per call, the medians over the rounds of the mean time from
the wake-up that read the call to its reply, to its last send (a signal sent in the same wake-up, such as
PropertiesChanged, is a send too), and to the end of that wake-up. The client waits for the reply; what
follows it only takes a core. The sum of "to the reply" over the four calls is the part of the
cycle that the service itself puts on the client's path.
"""
import argparse
import datetime
import json
import os
import shutil
import statistics
import sys
import tempfile

sys.dont_write_bytecode = True
from cycle_service import CycleService  # noqa: E402 (after the line above)

MEMBERS = ("CreateContext", "Touch", "EvaluatePolicy", "Invalidate")


def measure(binary, floor, cycles, shim):
    """One run of one program: per member, (reply, first send, last send, whole wake) means in µs."""
    descriptor, out = tempfile.mkstemp(prefix="critical-path-totals-")
    os.close(descriptor)
    with CycleService("critical-path", binary, floor=floor, environment={"LD_PRELOAD": shim, "CRITICAL_PATH_OUT": out}) as service:
        for _ in range(50):
            service.cycle()
        service.cycle("critical-path-start")
        for _ in range(cycles):
            service.cycle()
    result = {}
    for line in open(out):
        member, wakes, answered, reply, first, last, busy = line.split()
        if member in MEMBERS:
            answered, wakes = int(answered), int(wakes)
            if answered < cycles - 2:
                sys.exit(f"critical-path: {binary} answered {answered} {member} calls of {cycles}")
            result[member] = (int(reply) / answered / 1000, int(first) / answered / 1000, int(last) / answered / 1000,
                              int(busy) / wakes / 1000)
    os.remove(out)
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("daemon")
    parser.add_argument("floor")
    parser.add_argument("--cycles", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--shim", default=".build/critical-path.so")
    parser.add_argument("--json", help="where the figures go as JSON")
    parser.add_argument("--markdown", help="a file with critical-path markers to put the table in")
    args = parser.parse_args()
    if shutil.which("dbus-daemon") is None:
        sys.exit("critical-path: dbus-daemon is not installed (apt install dbus)")
    shim = os.path.abspath(args.shim)
    if not os.path.exists(shim):
        sys.exit(f"critical-path: {shim} is missing; build it from bench/critical-path.c (see --help)")
    runs = {"daemon": [], "floor": []}
    for _ in range(args.rounds):
        runs["floor"].append(measure(args.floor, True, args.cycles, shim))
        runs["daemon"].append(measure(args.daemon, False, args.cycles, shim))

    def median(kind, member, index):
        return statistics.median(run[member][index] for run in runs[kind])

    calls = {member: {"daemon_reply_us": median("daemon", member, 0), "floor_reply_us": median("floor", member, 0),
                      "daemon_first_send_us": median("daemon", member, 1), "daemon_last_send_us": median("daemon", member, 2),
                      "daemon_wake_us": median("daemon", member, 3), "floor_wake_us": median("floor", member, 3)}
             for member in MEMBERS}
    totals = {key: sum(call[key] for call in calls.values()) for key in next(iter(calls.values()))}
    lines = [f"{args.rounds} × {args.cycles} cycles for each of the daemon and the floor, interleaved; medians of the "
             "runs' means, in µs from the wake-up that read the call", "",
             "| call | daemon: to the reply | floor: to the reply | daemon − floor | daemon: whole wake-up | floor: whole wake-up |",
             "| --- | --- | --- | --- | --- | --- |"]
    for member, call in [*calls.items(), ("the cycle", totals)]:
        note = ""
        if member != "the cycle" and call["daemon_reply_us"] - call["daemon_first_send_us"] > 0.5:
            note = f" (a signal sent first, at {call['daemon_first_send_us']:.1f})"
        elif member != "the cycle" and call["daemon_last_send_us"] - call["daemon_reply_us"] > 0.5:
            note = f" (a signal sent after, at {call['daemon_last_send_us']:.1f})"
        lines.append(f"| {member} | {call['daemon_reply_us']:.1f}{note} | {call['floor_reply_us']:.1f} | "
                     f"{call['daemon_reply_us'] - call['floor_reply_us']:+.1f} | {call['daemon_wake_us']:.1f} | {call['floor_wake_us']:.1f} |")
    table = "\n".join(lines)
    print(table)
    if args.json:
        with open(args.json, "w") as out:
            json.dump({"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
                       "rounds": args.rounds, "cycles": args.cycles, "unit": "µs", "calls": calls, "cycle": totals},
                      out, indent=2, sort_keys=True)
            out.write("\n")
    if args.markdown:
        text = open(args.markdown).read()
        begin, end = "<!-- critical-path:begin", "<!-- critical-path:end -->"
        if begin not in text or end not in text:
            sys.exit(f"critical-path: {args.markdown} has no {begin} … {end} lines to put the table between")
        head, rest = text.split(begin, 1)
        marker, _ = rest.split("\n", 1)
        _, tail = rest.split(end, 1)
        with open(args.markdown, "w") as out:
            out.write(f"{head}{begin}{marker}\n{table}\n{end}{tail}")


if __name__ == "__main__":
    main()
