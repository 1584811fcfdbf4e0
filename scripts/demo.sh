#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# make demo: a walkthrough of localauth, the command-line client of localauthd, that a new user can
# copy. It runs on a private bus with a temporary state directory, so it touches nothing of the
# machine; on a real system drop the --address option (localauth talks to the system bus).
set -euo pipefail

BIN=${BIN:-$(cd "$(dirname "$0")/.." && swift build --show-bin-path)}
STATE=$(mktemp -d)
BUS_PID="" DAEMON_PID=""
cleanup() {
    [ -n "$DAEMON_PID" ] && kill "$DAEMON_PID" 2>/dev/null && wait "$DAEMON_PID" 2>/dev/null || true
    [ -n "$BUS_PID" ] && kill "$BUS_PID" 2>/dev/null || true
    rm -rf "$STATE"
}
trap cleanup EXIT

# A private bus and the daemon on it.
coproc BUS { exec dbus-daemon --session --nofork --nopidfile --print-address=1 2>/dev/null; }
BUS_PID=$BUS_PID
read -r ADDRESS <&"${BUS[0]}"
"$BIN/localauthd" --address "$ADDRESS" --state-dir "$STATE" --config /dev/null 2>/dev/null &
DAEMON_PID=$!
for _ in $(seq 100); do
    "$BIN/localauth" --address "$ADDRESS" status >/dev/null 2>&1 && break
    sleep 0.1
done
"$BIN/localauth" --address "$ADDRESS" status >/dev/null

# Every step: print the command as you would type it, then run it (a failure is shown, not fatal).
# Headings in bold on a terminal only, so a copy in a file carries no escape sequences.
if [ -t 1 ]; then BOLD=$'\033[1m' PLAIN=$'\033[0m'; else BOLD="" PLAIN=""; fi
step() { printf '\n%s# %s%s\n' "$BOLD" "$1" "$PLAIN"; }
typed() {
    local word line=""
    for word in "$@"; do
        case $word in *" "*) line+=" \"$word\"" ;; *) line+=" $word" ;; esac
    done
    printf '%s' "${line# }"
}
run() {
    printf '$ localauth %s\n' "$(typed "$@")"
    local status=0
    "$BIN/localauth" --address "$ADDRESS" "$@" 2>&1 || status=$?
    [ "$status" = 0 ] || printf '  (exit status %s)\n' "$status"
}
# The same, with the demo's passcode on standard input; at a terminal leave out --stdin or
# --passcode-stdin and localauth asks for it without echo.
PASSCODE="correct horse"
with_passcode() {
    printf '$ echo "%s" | localauth %s\n' "$PASSCODE" "$(typed "$@")"
    local status=0
    echo "$PASSCODE" | "$BIN/localauth" --address "$ADDRESS" "$@" 2>&1 || status=$?
    [ "$status" = 0 ] || printf '  (exit status %s)\n' "$status"
}

echo "localauthd runs on a private bus ($ADDRESS), state in $STATE"

step "What does the daemon offer, and what is set up for me?"
run status

step "Nothing is set up yet: biometrics cannot be evaluated (the exit status says why)"
run can-evaluate --policy biometrics

step "Set a passcode, then enroll a finger and a face (both need the passcode)"
with_passcode passcode set --stdin
with_passcode enroll fingerprint right-index-finger --stdin
with_passcode enroll face --stdin
run enrollments
run can-evaluate --policy biometrics

step "Allow localauth itself to use Face ID (apps are asked once by your agent; this needs the passcode)"
with_passcode apps allow "$(readlink -f "$BIN/localauth")" --stdin

step "Evaluate by a touch of the enrolled finger (the simulated touch waits for the evaluation)"
run sim touch right-index-finger
run evaluate --policy biometrics --reason "open the demo vault"

step "Three wrong fingers use up the attempts of one evaluation"
for _ in 1 2 3; do run sim touch left-thumb; done
run evaluate --policy biometrics --reason "open the demo vault"

step "Two unknown faces make five failures in a row: biometry locks"
run sim face unknown
run sim face unknown
run evaluate --policy biometrics --reason "open the demo vault"
run status

step "The passcode unlocks it (policy owner takes the passcode while the sensors listen)"
with_passcode evaluate --policy owner --reason "open the demo vault" --passcode-stdin
run can-evaluate --policy biometrics

step "Scripts read --json"
run --json status

step "Done: stopping localauthd and the private bus, removing $STATE"
