#!/bin/bash
# lab/cost/memsize.sh — what the memory probes' default sizes cost and
# measure, against other sizes.
#
# The dram and latency modes size their arrays and buffer by the last-level
# cache (8x it): a cache figure too large makes each run fault in gigabytes
# and overrun its duration; too small, and the figure is partly cache
# speed.  This runs the built-in configuration's two memory probes (dram
# 2 s, latency 1 s) at their default size and with each named size,
# interleaved, ROUNDS times, and prints per variant the median wall time,
# CPU seconds and peak resident memory of a run and its figure (triad
# bytes/s, load latency), and each size's figure over the default's in the
# same round (median and range).
#
# Usage: lab/cost/memsize.sh [ROUNDS, default 5] [DRAM_ARRAY, default 1976M]
#                            [LATENCY_SIZE, default 4G]
# (the defaults are, about, the sizes main chose on the development VM
# before it stopped believing CPUID's 508 MiB L3: 1976 MiB and 4064 MiB;
# docs/reports/impact.md).  Every run at nice 10, the daemon's.
# Env:   BENCHWATCH (default: ./benchwatch), BENCHWATCH_PLUGIN_DIR.
# Not part of `make check`: the figures are for people.
set -u
rounds=${1:-5}
array=${2:-1976M}
lat=${3:-4G}
BENCHWATCH=${BENCHWATCH:-$PWD/benchwatch}
export BENCHWATCH_PLUGIN_DIR=${BENCHWATCH_PLUGIN_DIR:-$(dirname "$BENCHWATCH")/plugins/.libs}
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "memsize.sh: ROUNDS must be a positive number" >&2; exit 2; }
[ -x "$BENCHWATCH" ] || { echo "memsize.sh: no benchwatch at $BENCHWATCH" >&2; exit 2; }
command -v /usr/bin/time >/dev/null || { echo "memsize.sh: needs /usr/bin/time" >&2; exit 2; }
work=$(mktemp -d /tmp/bw-memsize.XXXXXX) || exit 2
trap 'rm -rf "$work"' EXIT

# one VARIANT ROUND ARGS...: a run, its JSON and its /usr/bin/time line kept
one() {
        local v=$1 r=$2
        shift 2
        /usr/bin/time -o "$work/$v.$r.time" -f '%e %U %S %M' "$BENCHWATCH" run memory "$@" \
                --nice=10 --format=json > "$work/$v.$r.json" 2> "$work/$v.$r.err" ||
                { cat "$work/$v.$r.err" >&2; echo "memsize.sh: $v: run failed" >&2; exit 1; }
}
for r in $(seq "$rounds"); do
        one dram-default "$r" mode=dram duration=2s
        one "dram-$array" "$r" mode=dram duration=2s "array_size=$array"
        one latency-default "$r" mode=latency duration=1s
        one "latency-$lat" "$r" mode=latency duration=1s "size=$lat"
done
python3 - "$work" "$rounds" "dram-$array" "latency-$lat" <<'PY'
import json, statistics, sys
work, rounds = sys.argv[1], int(sys.argv[2])

def run(v, r):
    d = json.load(open("%s/%s.%d.json" % (work, v, r)))
    vals = {m["name"] + "/" + s["labels"].get("operation", ""): s["value"]
            for m in d["metrics"] for s in m["samples"]}
    wall, user, sys_, rss = open("%s/%s.%d.time" % (work, v, r)).read().split()
    fig = vals.get("benchwatch_memory_bytes_per_second/triad") or \
        vals["benchwatch_memory_load_latency_seconds/"]
    return (float(wall), float(user) + float(sys_), int(rss) * 1024,
            vals["benchwatch_memory_working_set_bytes/"], fig)

med = statistics.median
print("%-22s %8s %8s %9s %11s %14s" % ("variant", "wall s", "cpu s", "rss GiB", "set MiB", "figure"))
for base, other in (("dram-default", sys.argv[3]), ("latency-default", sys.argv[4])):
    by = {v: [run(v, r) for r in range(1, rounds + 1)] for v in (base, other)}
    for v, runs in by.items():
        unit = "GB/s" if v.startswith("dram") else "ns"
        scale = 1e-9 if unit == "GB/s" else 1e9
        print("%-22s %8.2f %8.2f %9.2f %11.0f %9.1f %-4s" % (
            v, med(x[0] for x in runs), med(x[1] for x in runs),
            med(x[2] for x in runs) / 2**30, med(x[3] for x in runs) / 2**20,
            med(x[4] for x in runs) * scale, unit))
    ratios = [o[4] / b[4] for o, b in zip(by[other], by[base])]
    print("  %s / default, same round: %.3f (%.3f..%.3f, n=%d)" % (
        other, med(ratios), min(ratios), max(ratios), rounds))
PY
