#!/bin/bash
# bench/cost.sh — what the built-in configuration costs a host, and how
# long it takes to notice a 15% loss.
#
# Each probe of the built-in configuration (the one `benchwatch daemon`
# runs without a configuration file) is run ROUNDS times with `benchwatch
# run PROBE`, exactly as configured; the CPU time of each run (user +
# system of benchwatch and its probe process) times the probe's runs per
# hour is its cost.  The run-to-run spread of its main figure (robust
# coefficient of variation) says how many runs the detector needs to flag
# a 15% loss: bench/detector.sh finds a 15% step flagged in a median of 3
# runs at 3% noise and 4 runs at 6% (Gaussian), so the delay is that many
# runs times the interval (plus up to one interval before the first bad
# run).  Printed: per probe and in all, CPU seconds per hour, the share of
# the host's CPU, the bytes read from the block layer per hour (the runs'
# file system inputs, rusage's ru_inblock of 512-byte blocks, probe
# process included) and the time to detect.
#
# Usage: bench/cost.sh [ROUNDS, default 5]
# Env:   BENCHWATCH (default: ./benchwatch), BENCHWATCH_PLUGIN_DIR.
# Its scratch and state go to a temporary directory (through systemd's
# STATE_DIRECTORY and CACHE_DIRECTORY, which benchwatch honours), removed
# at the end.  Not part of `make check`: the figures are for people.
set -u
rounds=${1:-5}
BENCHWATCH=${BENCHWATCH:-$PWD/benchwatch}
export BENCHWATCH_PLUGIN_DIR=${BENCHWATCH_PLUGIN_DIR:-$(dirname "$BENCHWATCH")/plugins/.libs}
[ -x "$BENCHWATCH" ] || { echo "bench/cost.sh: no benchwatch at $BENCHWATCH" >&2; exit 2; }
command -v /usr/bin/time >/dev/null || { echo "bench/cost.sh: needs /usr/bin/time" >&2; exit 2; }
work=$(mktemp -d /tmp/bw-cost.XXXXXX)
trap 'STATE_DIRECTORY=$work/state CACHE_DIRECTORY=$work/cache "$BENCHWATCH" cleanup >/dev/null 2>&1; rm -rf "$work"' EXIT
export STATE_DIRECTORY=$work/state CACHE_DIRECTORY=$work/cache
mkdir -p "$STATE_DIRECTORY" "$CACHE_DIRECTORY"

"$BENCHWATCH" check-config > "$work/cc" || { cat "$work/cc"; exit 2; }
grep -q '^<built-in>' "$work/cc" || { echo "bench/cost.sh: a configuration file exists; this measures the built-in one" >&2; exit 2; }

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

python3 - "$work" "$rounds" "$(nproc)" <<'EOF'
import json, os, re, statistics as st, sys
work, rounds, ncpu = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
# each plugin's main figures, the first one a run has is the one judged
MAIN = {"cpu": ["events_per_second"], "threads": ["events_per_second"],
        "memory": ["bytes_per_second", "load_latency_seconds"], "disk": ["iops"],
        "disklat": ["latency_seconds"],
        "seqread": ["bytes_per_second"]}
def seconds(text):
    m = re.fullmatch(r"([\d.]+)(ms|s|min|h|d)", text)
    return float(m.group(1)) * {"ms": 1e-3, "s": 1, "min": 60, "h": 3600, "d": 86400}[m.group(2)]
def main_figure(path, plugin):
    d = json.load(open(path))
    for figure in MAIN[plugin]:
        vals = [s for m in d["metrics"] if m["name"] == "benchwatch_%s_%s" % (plugin, figure)
                for s in m["samples"]]
        # a summary (disklat's latency): its median
        vals = [v.get("value", v.get("quantiles", {}).get("0.5", 0)) for v in vals]
        if vals:
            return sum(vals)
    return 0
total = total_rd = 0
print("\n%-15s %9s %10s %9s %8s %9s %9s %15s" % ("probe", "interval", "cpu s/run", "cpu s/h", "% host",
                                            "MB read/h", "noise", "15% loss in"))
for line in open(os.path.join(work, "done")):
    probe, plugin, every = line.split()
    iv = seconds(every)
    cpu = st.median(float(open("%s/%s.%d.cpu" % (work, probe, r)).read()) for r in range(1, rounds + 1))
    figs = [main_figure("%s/%s.%d.json" % (work, probe, r), plugin) for r in range(1, rounds + 1)]
    med = st.median(figs)
    mad = st.median(abs(x - med) for x in figs)
    cv = 1.4826 * mad / med if med else float("nan")
    runs = 3 if cv <= 0.03 else 4 if cv <= 0.06 else float("nan")
    per_h = cpu * 3600 / iv
    total += per_h
    rd = st.median(float(open("%s/%s.%d.read" % (work, probe, r)).read())
                   for r in range(1, rounds + 1)) * 3600 / iv / 1e6
    total_rd += rd
    delay = "%d runs, %.0f min" % (runs, runs * iv / 60) if runs == runs else "> 4 runs"
    print("%-15s %9s %10.2f %9.1f %7.2f%% %9.1f %8.1f%% %15s" % (probe, every, cpu, per_h,
          100 * per_h / (3600 * ncpu), rd, 100 * cv, delay))
print("%-15s %9s %10s %9.1f %7.2f%% %9.1f" % ("in all", "", "", total, 100 * total / (3600 * ncpu),
                                             total_rd))
print("\n(goal: <= 0.5% of the host's CPU; the daemon itself, idle between runs, adds well under 0.01%)")
EOF
