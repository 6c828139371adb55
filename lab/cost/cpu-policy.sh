#!/bin/bash
# lab/cost/cpu-policy.sh — what a CPU-bound probe's scheduling policy costs a
# latency-sensitive neighbour, in a few minutes instead of bench/cost/impact.sh's
# forty.
#
# The neighbour stands for a web server's workers: NEIGHBOURS processes
# (one per CPU by default) that each wake every PERIOD (1 ms), work WORK
# (50 us) and sleep again, recording how late each wake-up was against its
# schedule; its p50, p99 and p99.9 lateness is the figure.  Beside it runs
# `benchwatch run cpu threads=NPROC` (a CPU on every core, as the cpu
# probe with its threads, or the threads probe) in the policy the daemon
# would give it: nice 10 under SCHED_OTHER ("other", before
# [daemon] cpu_policy), SCHED_BATCH at nice 10 ("batch"), SCHED_IDLE
# ("idle"); and without a probe ("none").  `run` leaves the policy it
# inherits (it never sets SCHED_OTHER), so chrt gives it the daemon's.
# Conditions alternate round by round (their order rotating), ROUNDS rounds
# of WINDOW seconds; printed: each condition's median lateness quantiles
# over the rounds and their ratio to "none" in the same round (median and
# range), and the probe's events/s (its wall-clock figure: what a policy
# that yields stretches).
# Usage: lab/cost/cpu-policy.sh  (env: BENCHWATCH, ROUNDS (8), WINDOW (5 s),
#                           NEIGHBOURS (nproc), PERIOD_US (1000), WORK_US (50))
set -u
BENCHWATCH=${BENCHWATCH:-benchwatch}
ROUNDS=${ROUNDS:-8}
WINDOW=${WINDOW:-5}
NEIGHBOURS=${NEIGHBOURS:-$(nproc)}
PERIOD_US=${PERIOD_US:-1000}
WORK_US=${WORK_US:-50}
W=$(mktemp -d /tmp/bw-cpu-policy.XXXXXX) || exit 1
trap 'rm -rf "$W"' EXIT
printf '[daemon]\nnice = 10\nstate_dir = %s/state\ncache_dir = %s/cache\n' "$W" "$W" > "$W/bw.conf"
command -v chrt > /dev/null || { echo "bench: chrt not found" >&2; exit 1; }

# the neighbour: one process, WINDOW seconds; its lateness samples (us)
cat > "$W/neighbour.py" <<'PY'
import sys, time
window, period, work, out = float(sys.argv[1]), int(sys.argv[2]) / 1e6, int(sys.argv[3]) / 1e6, sys.argv[4]
late = []
t0 = time.monotonic()
due = t0 + period
while due < t0 + window:
    d = due - time.monotonic()
    if d > 0:
        time.sleep(d)
    now = time.monotonic()
    late.append((now - due) * 1e6)
    end = now + work
    while time.monotonic() < end:
        pass
    due += period
    if due < time.monotonic():
        due = time.monotonic() + period
open(out, "w").write("\n".join("%.1f" % x for x in late) + "\n")
PY

# one window of condition COND: prints "p50 p99 p999 events_per_s"
window() {
        local cond=$1 probe="" i
        case $cond in
        other) nice -n 10 "$BENCHWATCH" -c "$W/bw.conf" run cpu threads="$(nproc)" \
                        duration="$((WINDOW + 1))s" --format=json > "$W/probe.json" 2>/dev/null & probe=$! ;;
        batch) chrt -b 0 nice -n 10 "$BENCHWATCH" -c "$W/bw.conf" run cpu threads="$(nproc)" \
                        duration="$((WINDOW + 1))s" --format=json > "$W/probe.json" 2>/dev/null & probe=$! ;;
        idle)  chrt -i 0 "$BENCHWATCH" -c "$W/bw.conf" run cpu threads="$(nproc)" \
                        duration="$((WINDOW + 1))s" --format=json > "$W/probe.json" 2>/dev/null & probe=$! ;;
        esac
        sleep 0.5 # the probe under way
        for i in $(seq 1 "$NEIGHBOURS"); do
                python3 "$W/neighbour.py" "$WINDOW" "$PERIOD_US" "$WORK_US" "$W/late.$i" &
        done
        wait $(jobs -p | grep -vx "${probe:-x}") 2>/dev/null
        [ -n "$probe" ] && wait "$probe"
        cat "$W"/late.* | python3 -c '
import json, sys
xs = sorted(float(l) for l in sys.stdin if l.strip())
q = lambda p: xs[min(len(xs) - 1, int(p * len(xs)))]
eps = float("nan")
if sys.argv[1] != "none":
    try:
        m = {x["name"]: x["samples"][0] for x in json.load(open(sys.argv[2]))["metrics"]}
        eps = m["benchwatch_cpu_events_per_second"]["value"]
    except Exception:
        pass
print("%.1f %.1f %.1f %.1f" % (q(0.5), q(0.99), q(0.999), eps))' "$cond" "$W/probe.json"
        rm -f "$W"/late.*
}

conds=(none other batch idle)
echo "== neighbour: $NEIGHBOURS process(es) waking every ${PERIOD_US} us for ${WORK_US} us;" \
     "probe: benchwatch run cpu threads=$(nproc); $ROUNDS rounds of ${WINDOW}s"
for r in $(seq 1 "$ROUNDS"); do
        for k in 0 1 2 3; do
                c=${conds[$(((k + r) % 4))]}
                echo "$r $c $(window "$c")" | tee -a "$W/all"
        done
done
echo
printf '%-6s %10s %10s %10s %14s %22s %22s\n' policy p50_us p99_us p99.9_us probe_events/s \
        "p99/none med (range)" "p99.9/none med (range)"
python3 - "$W/all" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
by = {}
for r, c, p50, p99, p999, eps in rows:
    by.setdefault(c, {})[r] = tuple(map(float, (p50, p99, p999, eps)))
for c in ("none", "other", "batch", "idle"):
    d = by.get(c, {})
    med = [statistics.median(v[i] for v in d.values()) for i in range(4)]
    def ratio(i):
        rs = [d[r][i] / by["none"][r][i] for r in d if r in by["none"] and by["none"][r][i] > 0]
        return "%.2f (%.2f..%.2f)" % (statistics.median(rs), min(rs), max(rs)) if rs else "-"
    print("%-6s %10.1f %10.1f %10.1f %14.0f %22s %22s" % (c, med[0], med[1], med[2], med[3],
                                                       ratio(1), ratio(2)))
PY
