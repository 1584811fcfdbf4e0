#!/usr/bin/python3
"""Writes the link order of the daemon's code: the functions a daemon runs, to be placed together.

    bench/symbol-order.py BINARY [--cycles N] [--out FILE]

Runs BINARY (a release localauthd, as `make release` builds it) under `valgrind --tool=callgrind`
from its first instruction: start-up on a private bus, a passcode set and a finger enrolled, N
evaluation cycles (CreateContext, Simulator.Touch, EvaluatePolicy, Invalidate; default 50), then
SIGTERM. Every function of BINARY that ran is written to FILE (default link/localauthd.symbol-order),
one linker symbol per line, sorted.

Why: the kernel maps a binary's code into a process in 64 KiB windows around each page it first
runs, so code spread over the whole `.text` makes most of it resident. `make release` compiles with
`-function-sections` and passes this file to lld (`--symbol-ordering-file`), which puts these
functions side by side: the idle daemon's resident code is then what it runs. A function missing
from the file (renamed, new) is only placed elsewhere; nothing breaks, the daemon just uses a little
more memory. Regenerate with `make symbol-order` after large changes; `make bench` shows idle RSS.
Needs valgrind (apt install valgrind).
"""
import argparse
import os
import re
import shutil
import sys
import tempfile

sys.dont_write_bytecode = True
from cycle_service import CycleService  # noqa: E402 (after the line above)


def executed_functions(profile, binary):
    """The symbols of the functions of `binary` that ran, from a callgrind profile written with
    --demangle=no (names are given once with their number, later by number alone)."""
    objects, functions, current_object, found = {}, {}, None, set()
    line_format = re.compile(r"^(c?ob|c?fn)=\((\d+)\)(?: (.*))?$")
    with open(profile, errors="replace") as lines:
        for line in lines:
            match = line_format.match(line.rstrip("\n"))
            if not match:
                continue
            kind, number, name = match.groups()
            names = objects if kind.endswith("ob") else functions
            if name:
                names[number] = name
            if kind == "ob":
                current_object = objects.get(number)
            elif kind == "fn" and current_object is not None and os.path.realpath(current_object) == binary:
                symbol = re.sub(r"'\d+$", "", functions[number])  # callgrind marks recursion levels
                if not symbol.startswith("0x"):  # code without a symbol
                    found.add(symbol)
    return sorted(found)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("binary")
    parser.add_argument("--cycles", type=int, default=50)
    parser.add_argument("--out", default="link/localauthd.symbol-order")
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        sys.exit("symbol-order: valgrind is not installed (apt install valgrind)")
    binary = os.path.realpath(args.binary)
    with tempfile.TemporaryDirectory(prefix="symbol-order-") as scratch:
        profile = f"{scratch}/callgrind.out"
        valgrind = ["valgrind", "--tool=callgrind", "--demangle=no", f"--callgrind-out-file={profile}"]
        with CycleService("symbol-order", binary, wrapper=valgrind) as service:
            for _ in range(args.cycles):
                service.cycle()
        symbols = executed_functions(profile, binary)
    if len(symbols) < 1000:
        sys.exit(f"symbol-order: only {len(symbols)} functions of {binary} ran; is it a localauthd with symbols (not stripped)?")
    with open(args.out, "w") as out:
        out.write("\n".join(symbols) + "\n")
    print(f"symbol-order: {len(symbols)} functions in {args.out}")


if __name__ == "__main__":
    main()
