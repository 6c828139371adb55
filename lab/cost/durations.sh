#!/bin/bash
# lab/cost/durations.sh — is a shorter run as good as a longer one?
#
# The built-in configuration's cost is a probe's CPU seconds a run times its
# runs an hour; its detection delay is the runs needed at its run-to-run
# noise times the interval.  Shortening the run cuts the cost without
# touching the interval, if the noise does not rise.  This runs each named
# probe of the built-in configuration with duration=A and duration=B,
# interleaved (A B B A, so a neighbour's drift falls on both), ROUNDS times
# each, and prints per probe and duration the median CPU seconds of a run
# (user + system of benchwatch and its probe process) and the robust
# coefficient of variation of its main figure (as bench/cost/cost.sh), with
# a 90% interval from 1000 resamplings of the runs.
#
# Usage: lab/cost/durations.sh [ROUNDS, default 20] [A, default 2s] [B, default 1s]
#                              [PROBE ...; default cpu threads memory memory-latency]
# Env:   BENCHWATCH (default: ./benchwatch), BENCHWATCH_PLUGIN_DIR, KEEP=DIR
#        (keep the runs' JSON there).
# Not part of `make check`: the figures are for people.
set -u
rounds=${1:-20}
a=${2:-2s}
b=${3:-1s}
shift $(( $# < 3 ? $# : 3 ))
probes=${*:-cpu threads memory memory-latency}
BENCHWATCH=${BENCHWATCH:-$PWD/benchwatch}
export BENCHWATCH_PLUGIN_DIR=${BENCHWATCH_PLUGIN_DIR:-$(dirname "$BENCHWATCH")/plugins/.libs}
[ -x "$BENCHWATCH" ] || { echo "durations.sh: no benchwatch at $BENCHWATCH" >&2; exit 2; }
command -v /usr/bin/time >/dev/null || { echo "durations.sh: needs /usr/bin/time" >&2; exit 2; }
work=${KEEP:-$(mktemp -d /tmp/bw-durations.XXXXXX)}
mkdir -p "$work"
[ -n "${KEEP:-}" ] || trap 'rm -rf "$work"' EXIT
export STATE_DIRECTORY=$work/state CACHE_DIRECTORY=$work/cache
mkdir -p "$STATE_DIRECTORY" "$CACHE_DIRECTORY"
"$BENCHWATCH" check-config > "$work/cc" || { cat "$work/cc"; exit 2; }
grep -q '^<built-in>' "$work/cc" ||
        { echo "durations.sh: a configuration file exists" >&2; exit 2; }

one() { # PROBE DURATION ROUND
        /usr/bin/time -f '%U %S' -o "$work/time" \
                "$BENCHWATCH" run "$1" duration="$2" --format=json \
                > "$work/$1.$2.$3.json" 2> "$work/err" ||
                { echo "$1 duration=$2: run failed: $(tail -1 "$work/err")" >&2; exit 1; }
        awk '{ print $1 + $2 }' "$work/time" > "$work/$1.$2.$3.cpu"
}
echo "$(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg); $rounds rounds, duration $a against $b"
for p in $probes; do "$BENCHWATCH" run "$p" duration="$b" > /dev/null 2>&1; done
for r in $(seq 1 "$rounds"); do
        for p in $probes; do
                if [ $((r % 2)) = 1 ]; then one "$p" "$a" "$r"; one "$p" "$b" "$r"
                else one "$p" "$b" "$r"; one "$p" "$a" "$r"; fi
        done
done
: > "$work/done"
for p in $probes; do
        echo "$p $(awk -v p="$p" '$1 == p { print $3 }' "$work/cc")" >> "$work/done"
done
python3 "$(dirname "$0")/durations.py" "$work" "$rounds" "$a" "$b"
