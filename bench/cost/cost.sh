#!/bin/bash
# bench/cost/cost.sh — what the built-in configuration costs a host, and how
# long it takes to notice a 15% loss.
#
# Each probe of the built-in configuration (the one `benchwatch daemon`
# runs without a configuration file) is run ROUNDS times with `benchwatch
# run PROBE`, exactly as configured; the CPU time of each run (user +
# system of benchwatch and its probe process) times the probe's runs per
# hour is its cost.  The run-to-run spread of its main figure (robust
# coefficient of variation) says how many runs the detector needs to flag
# a 15% loss: lab/detector/detector.sh finds a 15% step flagged in a median of 3
# runs at 3% noise and 4 runs at 6% (Gaussian), so the delay is that many
# runs times the interval (plus up to one interval before the first bad
# run).  Printed: per probe and in all, CPU seconds per hour, the share of
# the host's CPU, the bytes read from the block layer per hour (the runs'
# file system inputs, rusage's ru_inblock of 512-byte blocks, probe
# process included) and the time to detect.
#
# Usage: bench/cost/cost.sh [ROUNDS, default 5]
# Env:   BENCHWATCH (default: ./benchwatch), BENCHWATCH_PLUGIN_DIR.
# Its scratch and state go to a temporary directory (through systemd's
# STATE_DIRECTORY and CACHE_DIRECTORY, which benchwatch honours), removed
# at the end.  Not part of `make check`: the figures are for people.
set -u
rounds=${1:-5}
BENCHWATCH=${BENCHWATCH:-$PWD/benchwatch}
export BENCHWATCH_PLUGIN_DIR=${BENCHWATCH_PLUGIN_DIR:-$(dirname "$BENCHWATCH")/plugins/.libs}
[ -x "$BENCHWATCH" ] || { echo "bench/cost/cost.sh: no benchwatch at $BENCHWATCH" >&2; exit 2; }
command -v /usr/bin/time >/dev/null || { echo "bench/cost/cost.sh: needs /usr/bin/time" >&2; exit 2; }
work=$(mktemp -d /tmp/bw-cost.XXXXXX)
trap 'STATE_DIRECTORY=$work/state CACHE_DIRECTORY=$work/cache "$BENCHWATCH" cleanup >/dev/null 2>&1; rm -rf "$work"' EXIT
export STATE_DIRECTORY=$work/state CACHE_DIRECTORY=$work/cache
mkdir -p "$STATE_DIRECTORY" "$CACHE_DIRECTORY"

"$BENCHWATCH" check-config > "$work/cc" || { cat "$work/cc"; exit 2; }
grep -q '^<built-in>' "$work/cc" || { echo "bench/cost/cost.sh: a configuration file exists; this measures the built-in one" >&2; exit 2; }

echo "$(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg); $rounds runs per probe"
awk '/ plugin / { sub(",", "", $5); print $1, $3, $5 }' "$work/cc" > "$work/probes"
while read -r probe plugin every; do
        # the first run may prepare (the disk probe's test file): not counted
        "$BENCHWATCH" run "$probe" --format=json > /dev/null 2>&1
        for r in $(seq 1 "$rounds"); do
                /usr/bin/time -f '%U %S %I' -o "$work/time" "$BENCHWATCH" run "$probe" --format=json \
                        > "$work/$probe.$r.json" 2> "$work/$probe.$r.err" ||
                        { echo "$probe: run failed: $(tail -1 "$work/$probe.$r.err")" >&2; exit 1; }
                awk '{ print $1 + $2 }' "$work/time" > "$work/$probe.$r.cpu"
                awk '{ print $3 * 512 }' "$work/time" > "$work/$probe.$r.read"
        done
        echo "$probe $plugin $every"
done < "$work/probes" > "$work/done"

python3 "$(dirname "$0")/cost.py" "$work" "$rounds" "$(nproc)"
