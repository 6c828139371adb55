#!/bin/bash
# bench/detector-real.sh — the regression detector judged on this host, with
# the real daemon and real slowdowns.
#
# bench/detsim replays synthetic series; this runs `benchwatch daemon` and
# slows its probes down for real with cgroup v1 controls the probe processes
# inherit from the daemon: a blkio read_iops_device throttle on the device
# holding the test file, and a cpu.cfs_quota_us.  Scenarios:
#   clean       the four default probes (cpu, threads, memory, disk) at
#               1-second intervals until each has RUNS runs: regressions
#               entered (target 0), with the steal and pressure recorded
#               beside each run (and around any regression);
#   disk-step   a disk probe learns its reference, then IOPS are capped at
#               85% of it: flagged within 6 runs?  Throttle lifted: cleared?
#               Then `verify` with the cap (want exit 1) and without (0);
#   cpu-step    the same with a cpu probe and a CPU quota of 85% of one CPU;
#   disk-drift  after the reference the cap starts at 100% of the reference
#               IOPS and tightens by 0.5% of it every run: flagged before 88%?
#   lat-2x, lat-50, lat-drift
#               a disklat probe (one 4k read at a time, 50 a second) on a
#               slow disk on demand (tests/integration/slowdisk: a FUSE file
#               system that delays every request, BASE_DELAY_US = 1000 to
#               start with, under a loop device with direct I/O) learns its
#               reference, then every read takes twice as long (flagged
#               within 3 runs?), 50% longer (within 6?), or 5% of the
#               reference longer every run (the rise when flagged); the
#               failure a dying disk shows first, not an IOPS cap.
# Each scenario prints a line of figures and a met/MISSED verdict; a table of
# all of them ends the output.
#
# The daemon's runs are followed through its textfile: a watcher polls the
# file's identity (it is replaced atomically after every run) and prints one
# line per new run of a probe (benchwatch_probe_last_run_timestamp_seconds
# changed) with the run's steal, pressure, counted flag and the detector's
# figures; the script changes a throttle only between runs, and a run that
# started before the change is counted as a run under it (it is reported as
# "mixed").  Runs with more than [regression] max_steal stolen CPU are judged
# but not counted by the daemon: they are reported, and the step scenarios
# count every run, counted or not.
#
# Usage: bench/detector-real.sh [--runs N] [--ref N] [--clean-ref N]
#            [--duration S] [--disk-duration S] [--keep] [SCENARIO ...]
#   env: BENCHWATCH (binary), BENCHWATCH_PLUGIN_DIR, RUNS (300), REF (30 for
#   the step and drift scenarios; when set, also the clean scenario's),
#   CLEAN_REF (the shipped default 100), DURATION (1, seconds per probe run),
#   DISK_DURATION (2, or DURATION when that is set), SCENARIOS ("clean
#   disk-step cpu-step disk-drift lat-2x lat-50 lat-drift"), BENCH_DIR
#   (/var/tmp: the test files need a filesystem with O_DIRECT), KEEP=1
#   keeps the work directory, SLOWDISK (the fixture's binary, default
#   tests/integration/slowdisk/slowdisk of the tree), BASE_DELAY_US (1000).
# Needs root (cgroups, loop devices) for all but the clean scenario.
set -u
BENCHWATCH=${BENCHWATCH:-benchwatch}
usage() {
        sed -n '/^# Usage:/,/^# Needs root/s/^# \{0,1\}//p' "$0"
}
SCEN_ALL="clean disk-step cpu-step disk-drift lat-2x lat-50 lat-drift"
SCENARIOS=${SCENARIOS:-}
REF_GIVEN=${REF:+1}
DURATION_GIVEN=${DURATION:+1}
want() { # NAME VALUE: the value of flag NAME, a positive number
        [[ $2 =~ ^[0-9]+(\.[0-9]+)?s?$ ]] || { echo "bench: $1 wants a number, not '$2'" >&2; exit 2; }
}
while [ $# -gt 0 ]; do
        case $1 in
        --runs|--ref|--clean-ref|--duration|--disk-duration)
                [ $# -ge 2 ] || { usage >&2; exit 2; }
                set -- "$1=$2" "${@:3}"
                continue ;;
        --runs=*) RUNS=${1#*=}; want --runs "$RUNS" ;;
        --ref=*) REF=${1#*=}; REF_GIVEN=1; want --ref "$REF" ;;
        --clean-ref=*) CLEAN_REF=${1#*=}; want --clean-ref "$CLEAN_REF" ;;
        --duration=*) DURATION=${1#*=}; DURATION_GIVEN=1; want --duration "$DURATION" ;;
        --disk-duration=*) DISK_DURATION=${1#*=}; want --disk-duration "$DISK_DURATION" ;;
        --keep) KEEP=1 ;;
        -h|--help) usage; exit 0 ;;
        all) SCENARIOS="$SCENARIOS $SCEN_ALL" ;;
        clean|disk-step|cpu-step|disk-drift|lat-2x|lat-50|lat-drift) SCENARIOS="$SCENARIOS $1" ;;
        *) echo "bench: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
        esac
        shift
done
SCENARIOS=${SCENARIOS:-$SCEN_ALL}
RUNS=${RUNS:-300}
DURATION=${DURATION:-1}; DURATION=${DURATION%s}
if [ -n "${DISK_DURATION:-}" ]; then DISK_DURATION=${DISK_DURATION%s}
elif [ -n "$DURATION_GIVEN" ]; then DISK_DURATION=$DURATION
else DISK_DURATION=2
fi
REF=${REF:-30}
# the clean scenario: the shipped default unless told (CLEAN_REF, or REF)
CLEAN_REF=${CLEAN_REF:-$([ -n "$REF_GIVEN" ] && echo "$REF" || echo 100)}
FLAG_RUNS=6     # a 15% step must be flagged within this many runs
STEP_MAX=30     # runs under a step before giving up on a flag
CLEAR_MAX=40    # runs after the lift before giving up on the recovery
DRIFT_STEP=0.005
DRIFT_GOAL=0.88 # flagged before the cap reaches this share of the reference
DRIFT_END=0.76  # and given up at this one
SLOWDISK=${SLOWDISK:-$(cd "$(dirname "$0")/.." && pwd)/tests/integration/slowdisk/slowdisk}
BASE_DELAY_US=${BASE_DELAY_US:-1000}
LAT_DRIFT_STEP=0.05 # of the reference read time, added every run
LAT_DRIFT_END=3     # given up when reads take this many times the reference

for c in python3 "$BENCHWATCH"; do
        command -v "$c" > /dev/null || { echo "bench: $c not found" >&2; exit 1; }
done
WORK=$(mktemp -d "${BENCH_DIR:-/var/tmp}/bw-detector-real.XXXXXX") || exit 1
DPID=""     # the daemon
WPID=""     # its textfile watcher
CGROUPS=""  # cgroups made here
SLOW_LOOP="" SLOW_PID="" SLOW_MNT=""
cleanup() {
        stop_daemon
        slow_down
        for g in $CGROUPS; do
                # left-overs can only be the daemon's probe children
                for p in $(cat "$g/cgroup.procs" 2> /dev/null); do kill "$p" 2> /dev/null; done
                for i in 1 2 3 4 5 6 7 8 9 10; do
                        [ -z "$(cat "$g/cgroup.procs" 2> /dev/null)" ] && break
                        sleep 0.2
                done
                rmdir "$g" 2> /dev/null || echo "bench: cannot remove cgroup $g" >&2
        done
        if [ -n "${KEEP:-}" ]; then echo "bench: kept $WORK" >&2; else rm -rf "$WORK"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

# ---- helpers written once: the textfile watcher, the summaries --------------

# watch.py TEXTFILE SINCE PROBE=FAMILY...: one tab-separated line per new run
# of a probe, on stdout and appended to $LOG:
#   probe start duration counted steal psi_cpu psi_io psi_memory pinned value
#   reference ratio change evidence regression noise n_regressed entered left
# for the probe's main figure FAMILY (op="read" preferred); n_regressed,
# entered and left cover every series of the probe ("-": none).
cat > "$WORK/watch.py" <<'PY'
import os, re, sys, time
path, since, log = sys.argv[1], float(sys.argv[2]), sys.argv[3]
target = dict(a.split("=", 1) for a in sys.argv[4:])
LINE = re.compile(r'^([A-Za-z_:][A-Za-z0-9_:]*)(?:\{(.*)\})?\s+(\S+)\s*$')
LABEL = re.compile(r'([A-Za-z_][A-Za-z0-9_]*)="((?:[^"\\]|\\.)*)"')
SERIES = ("benchwatch_regression", "benchwatch_baseline", "benchwatch_regression_ratio",
          "benchwatch_regression_change_ratio", "benchwatch_regression_evidence",
          "benchwatch_baseline_noise_ratio")

def parse(text):
    probes = {}
    for line in text.splitlines():
        m = LINE.match(line)
        if not m:
            continue
        name, value = m.group(1), float(m.group(3))
        labels = dict(LABEL.findall(m.group(2) or ""))
        p = probes.setdefault(labels.pop("probe", ""), {"fam": {}, "ser": {}})
        if name in SERIES:
            metric = labels.pop("metric", "?")
            q = labels.pop("metric_quantile", None)
            rest = ",".join("%s=%s" % kv for kv in sorted(labels.items()))
            key = (metric, q, rest)
            p["ser"].setdefault(key, {})[name] = value
        else:
            p["fam"].setdefault(name, []).append((labels, value))
    return probes

def one(p, name, **want):
    for labels, v in p["fam"].get(name, []):
        if all(labels.get(k) == x for k, x in want.items()):
            return v
    return float("nan")

def short(key):
    metric, q, _ = key
    s = metric.replace("benchwatch_", "", 1)
    return s + ("{q=%s}" % q if q else "")

def main_series(p, fam):
    # a gauge's series, or a latency summary's median
    keys = [k for k in p["ser"] if k[0] == fam and k[1] in (None, "0.5")]
    keys.sort(key=lambda k: ("op=read" not in k[2], k[2]))
    return keys[0] if keys else None

last_id, seen, state = None, {}, {}
out = open(log, "a")
while True:
    try:
        st = os.stat(path)
        ident = (st.st_ino, st.st_mtime_ns, st.st_size)
        if ident != last_id:
            last_id = ident
            with open(path) as f:
                probes = parse(f.read())
            for name, p in probes.items():
                ts = one(p, "benchwatch_probe_last_run_timestamp_seconds")
                if name not in target or not ts > since or seen.get(name) == ts:
                    continue
                if one(p, "benchwatch_probe_success") != 1:
                    continue
                seen[name] = ts
                fam = target[name]
                k = main_series(p, fam)
                s = p["ser"].get(k, {}) if k else {}
                value = one(p, fam, op="read")
                if value != value:
                    value = one(p, fam, quantile="0.5")
                if value != value:
                    value = one(p, fam)
                entered, left, nreg = [], [], 0
                for key, sv in p["ser"].items():
                    r = int(sv.get("benchwatch_regression", 0))
                    nreg += r
                    was = state.get((name, key), 0)
                    if r and not was:
                        entered.append(short(key))
                    if was and not r:
                        left.append(short(key))
                    state[(name, key)] = r
                nan = float("nan")
                row = [name, "%.3f" % ts,
                       "%.3f" % one(p, "benchwatch_probe_duration_seconds"),
                       "%d" % one(p, "benchwatch_probe_counted"),
                       "%.4f" % one(p, "benchwatch_probe_steal_ratio"),
                       "%.4f" % one(p, "benchwatch_probe_pressure_ratio", resource="cpu"),
                       "%.4f" % one(p, "benchwatch_probe_pressure_ratio", resource="io"),
                       "%.4f" % one(p, "benchwatch_probe_pressure_ratio", resource="memory"),
                       "1" if "benchwatch_baseline" in s else "0",
                       "%.6g" % value,
                       "%.6g" % s.get("benchwatch_baseline", nan),
                       "%.4f" % s.get("benchwatch_regression_ratio", nan),
                       "%.4f" % s.get("benchwatch_regression_change_ratio", nan),
                       "%.3f" % s.get("benchwatch_regression_evidence", nan),
                       "%d" % s.get("benchwatch_regression", 0),
                       "%.4f" % s.get("benchwatch_baseline_noise_ratio", nan),
                       "%d" % nreg, ",".join(entered) or "-", ",".join(left) or "-"]
                line = "\t".join(row)
                print(line, flush=True)
                print(line, file=out, flush=True)
    except FileNotFoundError:
        pass
    except BrokenPipeError:
        sys.exit(0)
    time.sleep(0.1)
PY

# clean.py LOG STDERR REF: the clean scenario's per-probe figures, the runs
# around every regression entered, and "TOTAL <entered> <logged>" last.
cat > "$WORK/clean.py" <<'PY'
import re, statistics, sys
log, err, ref = sys.argv[1], sys.argv[2], int(sys.argv[3])
F = ("probe start dur counted steal pcpu pio pmem pinned value ref ratio change ev "
     "reg noise nreg entered left").split()
runs = []
for line in open(log):
    v = line.rstrip("\n").split("\t")
    if len(v) == len(F):
        runs.append(dict(zip(F, v)))
num = lambda r, k: float(r[k])
def mm(xs):
    xs = [x for x in xs if x == x]
    return (statistics.median(xs), max(xs)) if xs else (float("nan"), float("nan"))
logged = sum(1 for l in open(err) if "entered a regression" in l)
print("   %-8s %5s %7s %7s %8s %6s %13s %13s %13s %13s %7s" % (
    "probe", "runs", "judged", "uncount", "regress", "recov", "steal med/max",
    "psi cpu", "psi io", "psi mem", "noise"))
total = 0
for probe in sorted({r["probe"] for r in runs}):
    rs = [r for r in runs if r["probe"] == probe]
    ent = sum(len(r["entered"].split(",")) for r in rs if r["entered"] != "-")
    rec = sum(len(r["left"].split(",")) for r in rs if r["left"] != "-")
    total += ent
    judged = sum(1 for r in rs if r["pinned"] == "1")
    unc = sum(1 for r in rs if r["counted"] == "0")
    cols = ["%5.1f/%-6.1f" % tuple(100 * x for x in mm([num(r, k) for r in rs]))
            for k in ("steal", "pcpu", "pio", "pmem")]
    noise = rs[-1]["noise"]
    print("   %-8s %5d %7d %7d %8d %6d %13s %13s %13s %13s %6.1f%%" % (
        probe, len(rs), judged, unc, ent, rec, cols[0], cols[1], cols[2], cols[3],
        100 * float(noise) if noise != "nan" else float("nan")))
print("   (steal and pressure in % of the run, median/max over all runs; noise: the main "
      "figure's reference noise per run; uncount: runs not counted, judged only)")
for i, r in enumerate(runs):
    if r["entered"] == "-":
        continue
    rs = [x for x in runs if x["probe"] == r["probe"]]
    k = rs.index(r)
    print("   regression entered: probe %s run %d: %s; its runs around it:" % (
        r["probe"], k + 1, r["entered"]))
    print("      %5s %7s %7s %7s %7s %7s %7s %7s %7s %4s" % (
        "run", "counted", "steal%", "psicpu%", "psiio%", "psimem%", "ratio", "change%", "evid", "nreg"))
    for j in range(max(0, k - 6), min(len(rs), k + 3)):
        x = rs[j]
        print("      %5d %7s %7.1f %7.1f %7.1f %7.1f %7.3f %7.1f %7.2f %4s%s" % (
            j + 1, x["counted"], 100 * num(x, "steal"), 100 * num(x, "pcpu"),
            100 * num(x, "pio"), 100 * num(x, "pmem"), num(x, "ratio"), 100 * num(x, "change"),
            num(x, "ev"), x["nreg"], "  <- " + x["entered"] if j == k else ""))
print("TOTAL %d %d" % (total, logged))
PY

# median_of COLUMN: median of that column of the tab-separated runs on stdin
median_of() { python3 -c '
import statistics, sys
xs = [float(l.split("\t")[int(sys.argv[1]) - 1]) for l in sys.stdin if l.strip()]
xs = [x for x in xs if x == x]
print("%.4f" % statistics.median(xs) if xs else "nan")' "$1"; }

# verify.py JSON FAMILY: "status runs change% lo% hi% decided failing-series"
cat > "$WORK/verify.py" <<'PY'
import json, sys
try:
    r = json.load(open(sys.argv[1]))
except (OSError, ValueError):
    print("error - - - - - -")
    sys.exit(0)
rows = r.get("results", [])
main = [x for x in rows if x["metric"].startswith(sys.argv[2] + "{")]
main.sort(key=lambda x: 'op="read"' not in x["metric"])
bad = [x["metric"].split("{")[0].replace("benchwatch_", "", 1) +
       ("{q=%s}" % x["metric"].split('quantile="')[1].split('"')[0] if 'quantile="' in x["metric"] else "")
       for x in rows if x["verdict"] == "REGRESSION"]
m = main[0] if main else {}
pc = lambda k: "%+.1f" % (100 * m[k]) if k in m else "-"
print(r.get("status", "error"), m.get("runs", "-"), pc("change"), pc("change_low"),
      pc("change_high"), m.get("decided", "-"), ",".join(bad) or "-")
PY

# refstat.py FAMILY STATE_DIR: what the pinned reference of the main figure implies —
# its noise, lag-1 autocorrelation and how many counted runs a 15% step
# needs by the CUSUM's arithmetic (detector.c's estimate redone from the
# reference runs the state file keeps; a diagnostic, not a measurement)
cat > "$WORK/refstat.py" <<'PY'
import glob, math, statistics, sys
fam, state = sys.argv[1], sys.argv[2]
vals = None
for path in glob.glob(state + "/baseline-*.txt"):
    key = None
    for line in open(path):
        w = line.split()
        if w and w[0] == "series":
            key = w[1]
        elif w and w[0] == "values" and key and key.startswith(fam + "{"):
            if vals is None or 'op="read"' in key or 'quantile="0.5"' in key:
                vals = [float(x) for x in w[1:]]
if not vals or len(vals) < 3:
    print("reference runs not found in the state file")
    sys.exit(0)
n = len(vals)
lg = [math.log(x) for x in vals]
m0 = statistics.median(lg)
s0 = max(1.4826 * statistics.median([abs(x - m0) for x in lg]), 1e-4)
w = [m0 + s0 * max(-2.5, min(2.5, (x - m0) / s0)) for x in lg]
m = sum(w) / n
s = max(math.sqrt(sum((x - m) ** 2 for x in w) / (n - 1)) / 0.98872, 1e-4)
r = [(x - m) / s for x in w]
raw = sum(r[i] * r[i - 1] for i in range(1, n)) / sum(x * x for x in r)
rho = max(0.0, min(0.8, raw + (1 + 3 * raw) / n))
z = min(2.75, -math.log(0.85) / s)
first = min(2.75, z / math.sqrt(1 - rho * rho)) - 0.6
later = min(2.75, z * math.sqrt((1 - rho) / (1 + rho))) - 0.6
need = 1 if first >= 8.5 else (1 + math.ceil((8.5 - first) / later) if later > 0 else float("inf"))
print("reference of %d runs: noise %.1f%% a run, lag-1 autocorrelation %.2f (%.2f before the "
      "small-sample correction); a steady 15%% step adds %.2f then %.2f a run to the CUSUM "
      "(alarm 8.5): about %s counted runs to flag" % (n, 100 * s, rho, raw, first, later, need))
PY

# ---- the daemon, its watcher, cgroups, throttles ------------------------------

TABLE=$WORK/table
: > "$TABLE"
row() { # SCENARIO FIGURE VALUE TARGET VERDICT
        printf '%s\t%s\t%s\t%s\t%s\n' "$@" >> "$TABLE"
}
verdict() { [ "$1" = 1 ] && echo met || echo MISSED; }
fcmp() { awk -v a="$1" -v b="$2" "BEGIN { exit !(a $3 b) }"; }

daemon_section() { # DIR
        cat <<CONF
[daemon]
state_dir = $1/state
cache_dir = $1/cache
interval = 1s
splay = 0
nice = 0
duty_cycle = 1
max_load = 0
max_psi_cpu = 0
yield = no
max_psi_io = 0
max_psi_memory = 0

[journal]
enabled = no

[textfile]
path = $1/bw.prom
CONF
}

# start_daemon DIR PROBE=FAMILY... (CG_PROCS: cgroup.procs files to join
# before the first run).  The watcher's lines arrive on fd 3.
start_daemon() {
        local dir=$1 since=$EPOCHREALTIME
        shift
        (
                for f in ${CG_PROCS:-}; do echo "$BASHPID" > "$f" || exit 3; done
                exec "$BENCHWATCH" -c "$dir/bw.conf" daemon --print
        ) >> "$dir/daemon.out" 2>> "$dir/daemon.err" &
        DPID=$!
        exec 3< <(exec python3 "$WORK/watch.py" "$dir/bw.prom" "$since" "$dir/runs.tsv" "$@")
        WPID=$!
}
stop_daemon() {
        if [ -n "$DPID" ]; then
                kill "$DPID" 2> /dev/null
                wait "$DPID" 2> /dev/null
                DPID=""
        fi
        if [ -n "$WPID" ]; then
                kill "$WPID" 2> /dev/null
                wait "$WPID" 2> /dev/null
                exec 3<&-
                WPID=""
        fi
}
# next_run SECONDS: the next run's fields in R_* (1 on time-out or if the
# daemon died; the daemon's last words are on stderr then)
next_run() {
        local line
        if ! IFS= read -r -t "$1" -u 3 line; then
                kill -0 "$DPID" 2> /dev/null || echo "bench: the daemon exited" >&2
                tail -n 3 "$DIR/daemon.err" >&2
                return 1
        fi
        IFS=$'\t' read -r R_PROBE R_START R_DUR R_COUNTED R_STEAL R_PCPU R_PIO R_PMEM \
                R_PINNED R_VALUE R_REF R_RATIO R_CHANGE R_EV R_REG R_NOISE R_NREG \
                R_ENTERED R_LEFT <<< "$line"
        printf '%s\n' "$line" >> "$DIR/phase.$PHASE"
}
run_line() { # a run's figures, for the log
        printf '      %-6s run %3d%s: value %-9s ratio %-6s change %-7s evidence %-6s reg %s steal %s%s\n' \
                "$PHASE" "$1" "$([ "$R_COUNTED" = 0 ] && echo ' (not counted)')" "$R_VALUE" \
                "$R_RATIO" "$R_CHANGE" "$R_EV" "$R_REG" "$R_STEAL" \
                "$([ "$R_ENTERED$R_LEFT" != -- ] && echo " entered $R_ENTERED left $R_LEFT")"
}

BLKIO=$(awk '$3 == "cgroup" && $4 ~ /(^|,)blkio(,|$)/ { print $2; exit }' /proc/mounts)
CPUCG=$(awk '$3 == "cgroup" && $4 ~ /(^|,)cpu(,|$)/ { print $2; exit }' /proc/mounts)
make_cgroup() { # HIERARCHY: the new cgroup's path
        local g=$1/benchwatch-detector-real-$$-$2
        mkdir "$g" || return 1
        CGROUPS="$CGROUPS $g"
        echo "$g"
}
drop_cgroup() {
        rmdir "$1" && CGROUPS=$(echo "$CGROUPS" | tr ' ' '\n' | grep -vxF "$1" | tr '\n' ' ')
}
# The whole disk holding the test files (blk-throttle rules name disks).
disk_dev() {
        local dev
        dev=$(stat -c '%Hd:%Ld' "$WORK") || return 1
        [ -e "/sys/dev/block/$dev/partition" ] && dev=$(cat "/sys/dev/block/$dev/../dev")
        echo "$dev"
}
set_iops() { # CGROUP IOPS (0: none)
        echo "$DEV $2" > "$1/blkio.throttle.read_iops_device"
}
# in_cgroup CGROUP COMMAND...: run COMMAND inside CGROUP
in_cgroup() {
        (echo "$BASHPID" > "$1/cgroup.procs" && shift && exec "$@")
}
# host_cpu: "steal total" jiffies of the host so far (/proc/stat)
host_cpu() { awk '$1 == "cpu" { t = 0; for (i = 2; i <= 9; i++) t += $i; print $9, t; exit }' /proc/stat; }
# verify_row SCENARIO LABEL WANT-EXIT FAMILY CGROUP: verify inside CGROUP,
# with the host's steal over its runs beside (verify counts every run)
verify_row() {
        local scen=$1 label=$2 want=$3 fam=$4 g=$5 rc s0 t0 s1 t1 steal
        read -r s0 t0 <<< "$(host_cpu)"
        in_cgroup "$g" "$BENCHWATCH" -c "$DIR/bw.conf" verify --format=json \
                > "$DIR/verify-$label.json" 2> "$DIR/verify-$label.err"
        rc=$?
        read -r s1 t1 <<< "$(host_cpu)"
        steal=$(awk -v a=$((s1 - s0)) -v b=$((t1 - t0)) 'BEGIN { printf "%.1f", (b > 0 ? 100 * a / b : 0) }')
        read -r st n ch lo hi how bad <<< "$(python3 "$WORK/verify.py" "$DIR/verify-$label.json" "$fam")"
        printf '   verify %-9s exit %d (want %d): %s, main figure %s%% (95%% CI %s..%s%%) after %s runs (%s); host steal %s%%; failing: %s\n' \
                "$label" "$rc" "$want" "$st" "$ch" "$lo" "$hi" "$n" "$how" "$steal" "$bad"
        [ "$rc" = 2 ] && sed 's/^/      /' "$DIR/verify-$label.err"
        row "$scen" "verify $label: exit (runs, change, steal)" "$rc ($n, $ch%, ${steal}%)" "$want" \
                "$(verdict "$([ "$rc" = "$want" ] && echo 1)")"
}

# ---- scenarios ------------------------------------------------------------------

scenario_clean() {
        DIR=$WORK/clean; PHASE=clean
        mkdir -p "$DIR"
        local probes="cpu threads memory disk" budget runs=0 p
        {
                daemon_section "$DIR"
                printf '\n[regression]\nreference_runs = %s\n' "$CLEAN_REF"
                for p in $probes; do
                        printf '\n[probe %s]\nplugin = %s\ninterval = 1s\ntimeout = 60s\nduration = %ss\n' \
                                "$p" "$p" "$DURATION"
                done
                printf 'size = 64M\npath = %s/disk.dat\n' "$DIR"
        } > "$DIR/bw.conf"
        echo "== clean: cpu threads memory disk, ${DURATION}s runs every 1s until each has $RUNS runs," \
             "reference_runs $CLEAN_REF"
        [ "$RUNS" -gt "$CLEAN_REF" ] || echo "   (note: RUNS <= reference_runs: no run is judged)"
        declare -A n=()
        CG_PROCS="" start_daemon "$DIR" cpu=benchwatch_cpu_events_per_second \
                threads=benchwatch_threads_events_per_second \
                memory=benchwatch_memory_bytes_per_second disk=benchwatch_disk_iops
        # a bound on the whole: four probes, each run its duration and ~1s more
        budget=$(awk -v r="$RUNS" -v d="$DURATION" 'BEGIN { printf "%d", 3 * 4 * r * (d + 1.5) + 120 }')
        local end=$((SECONDS + budget)) done=0
        while [ $SECONDS -lt $end ] && next_run $((4 * ${DURATION%.*} + 90)); do
                n[$R_PROBE]=$(( ${n[$R_PROBE]:-0} + 1 ))
                runs=$((runs + 1))
                [ "$R_ENTERED" != - ] && echo "   $R_PROBE run ${n[$R_PROBE]}: regression entered: $R_ENTERED"
                [ "$R_LEFT" != - ] && echo "   $R_PROBE run ${n[$R_PROBE]}: recovered: $R_LEFT"
                [ $((runs % 100)) = 0 ] && echo "   ... $runs runs (cpu ${n[cpu]:-0} threads ${n[threads]:-0}" \
                        "memory ${n[memory]:-0} disk ${n[disk]:-0})" >&2
                done=1
                for p in $probes; do [ "${n[$p]:-0}" -ge "$RUNS" ] || done=0; done
                [ $done = 1 ] && break
        done
        stop_daemon
        [ $done = 1 ] || echo "   incomplete: the runs did not all arrive within ${budget}s"
        python3 "$WORK/clean.py" "$DIR/runs.tsv" "$DIR/daemon.err" "$CLEAN_REF" > "$DIR/summary"
        grep -v '^TOTAL' "$DIR/summary"
        read -r _ total logged <<< "$(grep '^TOTAL' "$DIR/summary")"
        local errs
        errs=$(grep -ciE 'error|fail' "$DIR/daemon.err")
        echo "   clean: $total regression(s) entered in $runs runs (reference_runs $CLEAN_REF;" \
             "$logged logged as warnings; $errs error line(s) in the log)" \
             "— $(verdict "$([ "$total" = 0 ] && [ $done = 1 ] && echo 1)")"
        row clean "regressions entered (${runs} runs, ref $CLEAN_REF)" "$total" 0 \
                "$(verdict "$([ "$total" = 0 ] && [ $done = 1 ] && echo 1)")"
}

# learn TIMEOUT: run until the main figure's reference is pinned; REFV is it
learn() {
        local i=0 bound=$((5 * REF + 20))
        PHASE=learn
        while [ $i -lt $bound ]; do
                next_run "$1" || return 1
                i=$((i + 1))
                if [ "$R_PINNED" = 1 ]; then
                        REFV=$R_REF
                        echo "   reference pinned after $i runs ($(awk -F'\t' '$4 == 0' "$DIR/phase.learn" | wc -l)" \
                             "not counted): $REFV"
                        return 0
                fi
        done
        echo "   no reference after $bound runs ($(awk -F'\t' '$4 == 0' "$DIR/phase.learn" | wc -l) not counted: steal)" >&2
        return 1
}
# under_step TIMEOUT APPLIED-AT: runs until the main figure is flagged (at
# most STEP_MAX counted runs, 3 x STEP_MAX in all); FLAGGED runs needed and
# FLAGGED_C counted ones (0: never), MIXED runs begun before the change,
# NREG series in regression then
under_step() {
        local i=0
        FLAGGED=0; FLAGGED_C=0; MIXED=0; NREG=0
        PHASE=step
        while [ $FLAGGED_C -lt $STEP_MAX ] && [ $i -lt $((3 * STEP_MAX)) ]; do
                next_run "$1" || return 1
                i=$((i + 1))
                [ "$R_COUNTED" = 1 ] && FLAGGED_C=$((FLAGGED_C + 1))
                fcmp "$R_START" "$2" '<' && MIXED=$((MIXED + 1))
                run_line "$i"
                if [ "$R_REG" = 1 ]; then FLAGGED=$i; NREG=$R_NREG; return 0; fi
        done
        FLAGGED_C=0
}
# after_lift TIMEOUT: runs until the main figure is out of its regression,
# then until every series of the probe is (at most CLEAR_MAX counted runs);
# CLEARED, CLEARED_C and ALLCLEAR runs needed (0: never)
after_lift() {
        local i=0 c=0
        CLEARED=0; CLEARED_C=0; ALLCLEAR=0
        PHASE=lifted
        while [ $c -lt $CLEAR_MAX ] && [ $i -lt $((3 * CLEAR_MAX)) ]; do
                next_run "$1" || return 1
                i=$((i + 1))
                [ "$R_COUNTED" = 1 ] && c=$((c + 1))
                run_line "$i"
                [ "$CLEARED" = 0 ] && [ "$R_REG" = 0 ] && { CLEARED=$i; CLEARED_C=$c; }
                [ "$R_NREG" = 0 ] && { ALLCLEAR=$i; return 0; }
        done
}
runs_text() { # ALL COUNTED BOUND
        [ "$1" -gt 0 ] && echo "$1 ($2 counted)" || echo ">$3 counted"
}

step_conf() { # DIR PROBE-SECTION-LINES...
        local dir=$1
        shift
        {
                daemon_section "$dir"
                printf '\n[regression]\nreference_runs = %s\n\n' "$REF"
                printf '%s\n' "$@"
        } > "$dir/bw.conf"
}

# step_scenario NAME FAMILY TIMEOUT APPLY LIFT CG: the step, the lift, verify
step_scenario() {
        local name=$1 fam=$2 tmo=$3 apply=$4 lift=$5 g=$6 ratio ratio_all ok
        learn "$tmo" || { row "$name" "reference" none "pinned" MISSED; return 1; }
        echo "   series: $(grep -o "benchwatch_baseline{[^}]*metric=\"$fam\"[^}]*}" "$DIR/bw.prom" | head -n 1)"
        echo "   $(python3 "$WORK/refstat.py" "$fam" "$DIR/state")"
        $apply || return 1
        under_step "$tmo" "$EPOCHREALTIME" || return 1
        ratio=$(awk -F'\t' '$4 == 1' "$DIR/phase.step" | median_of 12)
        ratio_all=$(median_of 12 < "$DIR/phase.step")
        printf '   achieved: median ratio under the step %s over the counted runs, %s over all %s (%s begun before the change)\n' \
                "$ratio" "$ratio_all" "$(wc -l < "$DIR/phase.step")" "$MIXED"
        ok=$([ "$FLAGGED" -gt 0 ] && [ "$FLAGGED_C" -le $FLAG_RUNS ] && echo 1)
        if [ "$FLAGGED" -gt 0 ]; then
                echo "   flagged after $(runs_text $FLAGGED $FLAGGED_C $STEP_MAX) run(s), $NREG series of the probe" \
                     "in regression; logged: $(grep -m 1 "$fam.*entered a regression" "$DIR/daemon.err" | sed 's/^.*entered a regression: //')" \
                     "— $(verdict "$ok")"
        else
                echo "   not flagged in $STEP_MAX counted runs — MISSED"
        fi
        row "$name" "achieved ratio (counted runs)" "$ratio" "0.85" "-"
        row "$name" "runs to flag" "$(runs_text $FLAGGED $FLAGGED_C $STEP_MAX)" "<= $FLAG_RUNS" "$(verdict "$ok")"
        $lift || return 1
        if [ "$FLAGGED" -gt 0 ]; then
                after_lift "$tmo" || return 1
                ok=$([ "$CLEARED" -gt 0 ] && echo 1)
                echo "   lifted: the main figure cleared after $(runs_text $CLEARED $CLEARED_C $CLEAR_MAX) run(s)," \
                     "every series after $([ "$ALLCLEAR" -gt 0 ] && echo "$ALLCLEAR" || echo ">$CLEAR_MAX") — $(verdict "$ok")"
                row "$name" "runs to clear (every series)" \
                        "$(runs_text $CLEARED $CLEARED_C $CLEAR_MAX) ($([ "$ALLCLEAR" -gt 0 ] && echo "$ALLCLEAR" || echo ">$CLEAR_MAX"))" \
                        "cleared" "$(verdict "$ok")"
        else
                row "$name" "runs to clear" "n/a (never flagged)" "cleared" "-"
        fi
        stop_daemon
        $apply || return 1
        verify_row "$name" throttled 1 "$fam" "$g"
        $lift || return 1
        verify_row "$name" free 0 "$fam" "$g"
}

need_root() {
        [ "$(id -u)" = 0 ] || { echo "   skipped: needs root for cgroups"; row "$1" "-" skipped - -; return 1; }
}

disk_probe_lines() { # DIR
        printf '[probe disk]\nplugin = disk\npath = %s/disk.dat\nsize = 64M\nmode = randread\n' "$1"
        printf 'block_size = 16k\niodepth = 4\nduration = %ss\n' "$DISK_DURATION"
        # a second between runs: a throttle changes between two runs
        printf 'interval = %ss\ntimeout = 60s\n' "$(awk -v d="$DISK_DURATION" 'BEGIN { print d + 1 }')"
}

scenario_disk_step() {
        DIR=$WORK/disk-step
        mkdir -p "$DIR"
        echo "== disk-step: randread 16k iodepth 4, ${DISK_DURATION}s runs, reference_runs $REF;" \
             "then read IOPS capped at 85% of the reference"
        need_root disk-step || return 0
        [ -n "$BLKIO" ] || { echo "   skipped: no cgroup v1 blkio"; row disk-step - skipped - -; return 0; }
        local g
        g=$(make_cgroup "$BLKIO" disk-step) || return 1
        step_conf "$DIR" "$(disk_probe_lines "$DIR")"
        CG_PROCS="$g/cgroup.procs" start_daemon "$DIR" disk=benchwatch_disk_iops
        CAP=""
        cap() { CAP=$(awk -v r="$REFV" 'BEGIN { printf "%d", 0.85 * r }'); set_iops "$g" "$CAP" &&
                echo "   throttle: $DEV read_iops $CAP (85% of $REFV)"; }
        lift_iops() { set_iops "$g" 0 && echo "   throttle lifted"; }
        step_scenario disk-step benchwatch_disk_iops $((${DISK_DURATION%.*} + 90)) cap lift_iops "$g"
        stop_daemon
        set_iops "$g" 0
        drop_cgroup "$g"
}

scenario_cpu_step() {
        DIR=$WORK/cpu-step
        mkdir -p "$DIR"
        echo "== cpu-step: cpu threads=1, ${DURATION}s runs, reference_runs $REF;" \
             "then cpu.cfs_quota_us 85000 of 100000"
        need_root cpu-step || return 0
        [ -n "$CPUCG" ] || { echo "   skipped: no cgroup v1 cpu"; row cpu-step - skipped - -; return 0; }
        local g
        g=$(make_cgroup "$CPUCG" cpu-step) || return 1
        echo 100000 > "$g/cpu.cfs_period_us"
        step_conf "$DIR" "[probe cpu]" "plugin = cpu" "threads = 1" "duration = ${DURATION}s" \
                "interval = $(awk -v d="$DURATION" 'BEGIN { print d + 1 }')s" "timeout = 60s"
        CG_PROCS="$g/cgroup.procs" start_daemon "$DIR" cpu=benchwatch_cpu_events_per_second
        quota() { echo 85000 > "$g/cpu.cfs_quota_us" && echo "   quota: 85000/100000 us"; }
        lift_quota() { echo -1 > "$g/cpu.cfs_quota_us" && echo "   quota lifted"; }
        step_scenario cpu-step benchwatch_cpu_events_per_second $((${DURATION%.*} + 90)) quota lift_quota "$g"
        stop_daemon
        echo -1 > "$g/cpu.cfs_quota_us"
        drop_cgroup "$g"
}

scenario_disk_drift() {
        DIR=$WORK/disk-drift; PHASE=drift
        mkdir -p "$DIR"
        echo "== disk-drift: as disk-step, then the cap starts at 100% of the reference IOPS" \
             "and tightens by 0.5% of it every run"
        need_root disk-drift || return 0
        [ -n "$BLKIO" ] || { echo "   skipped: no cgroup v1 blkio"; row disk-drift - skipped - -; return 0; }
        local g tmo=$((${DISK_DURATION%.*} + 90)) i=0 c=0 level at="" cap mixed=0 t
        g=$(make_cgroup "$BLKIO" disk-drift) || return 1
        step_conf "$DIR" "$(disk_probe_lines "$DIR")"
        CG_PROCS="$g/cgroup.procs" start_daemon "$DIR" disk=benchwatch_disk_iops
        if ! learn "$tmo"; then
                row disk-drift reference none pinned MISSED
                stop_daemon; drop_cgroup "$g"; return 1
        fi
        echo "   $(python3 "$WORK/refstat.py" benchwatch_disk_iops "$DIR/state")"
        PHASE=drift
        while :; do
                level=$(awk -v i=$i -v s=$DRIFT_STEP 'BEGIN { printf "%.4f", 1 - i * s }')
                fcmp "$level" "$DRIFT_END" '<' && break
                cap=$(awk -v r="$REFV" -v l="$level" 'BEGIN { printf "%d", l * r }')
                set_iops "$g" "$cap" || break
                t=$EPOCHREALTIME
                next_run "$tmo" || break
                fcmp "$R_START" "$t" '<' && mixed=$((mixed + 1))
                i=$((i + 1))
                [ "$R_COUNTED" = 1 ] && c=$((c + 1))
                printf '      drift  run %3d: cap %5.1f%% (%s IOPS) value %-9s ratio %-6s change %-7s evidence %-6s reg %s%s\n' \
                        "$i" "$(awk -v l="$level" 'BEGIN { print 100 * l }')" "$cap" "$R_VALUE" "$R_RATIO" \
                        "$R_CHANGE" "$R_EV" "$R_REG" "$([ "$R_COUNTED" = 0 ] && echo ' (not counted)')"
                [ "$R_REG" = 1 ] && { at=$level; break; }
        done
        stop_daemon
        set_iops "$g" 0
        drop_cgroup "$g"
        local ok=""
        if [ -n "$at" ]; then
                fcmp "$at" "$DRIFT_GOAL" '>' && ok=1
                echo "   flagged after $i run(s) ($c counted) at a cap of $(awk -v l="$at" 'BEGIN { printf "%.1f", 100 * l }')%" \
                     "of the reference (goal: above $(awk -v l=$DRIFT_GOAL 'BEGIN { print 100 * l }')%;" \
                     "$mixed run(s) begun before their cap); that run's ratio $R_RATIO, recent change $R_CHANGE" \
                     "— $(verdict "$ok")"
        else
                echo "   not flagged down to a cap of $(awk -v l="$level" 'BEGIN { printf "%.1f", 100 * l }')% — MISSED"
        fi
        row disk-drift "cap when flagged (runs)" \
                "$([ -n "$at" ] && awk -v l="$at" -v i=$i -v c=$c 'BEGIN { printf "%.1f%% (%d, %d counted)", 100 * l, i, c }' || echo "not flagged")" \
                "> 88%" "$(verdict "$ok")"
}

# ---- a slow disk on demand: the latency scenarios --------------------------------

# slow_up DIR: the slowdisk fixture mounted on DIR/mnt over a 64 MiB backing
# file, BASE_DELAY_US a request, and a loop device with direct I/O over it
# (SLOW_LOOP)
slow_up() {
        [ -x "$SLOWDISK" ] || { echo "   skipped: no $SLOWDISK (build the tree with libfuse3-dev)"; return 1; }
        SLOW_MNT=$1/mnt
        mkdir -p "$SLOW_MNT"
        head -c 64M /dev/urandom > "$1/backing" || return 1
        "$SLOWDISK" "$1/backing" "$SLOW_MNT" -f --delay-us="$BASE_DELAY_US" 2> "$1/slowdisk.err" &
        SLOW_PID=$!
        local i
        for i in $(seq 1 50); do [ -e "$SLOW_MNT/disk" ] && break; sleep 0.1; done
        [ -e "$SLOW_MNT/disk" ] || { echo "   cannot mount the slow disk: $(cat "$1/slowdisk.err")"; return 1; }
        SLOW_LOOP=$(losetup --direct-io=on -f --show "$SLOW_MNT/disk") || return 1
}
slow_down() {
        [ -n "$SLOW_LOOP" ] && losetup -d "$SLOW_LOOP"
        [ -n "$SLOW_MNT" ] && mountpoint -q "$SLOW_MNT" && fusermount3 -u "$SLOW_MNT"
        [ -n "$SLOW_PID" ] && { kill "$SLOW_PID" 2> /dev/null; wait "$SLOW_PID" 2> /dev/null; }
        SLOW_LOOP="" SLOW_PID="" SLOW_MNT=""
}
slow_delay() { echo "$1" > "$SLOW_MNT/delay_us"; }

LAT_FAM=benchwatch_disklat_latency_seconds
lat_probe_lines() {
        printf '[probe lat]
plugin = disklat
path = %s
rate = 50
duration = %ss
' \
                "$SLOW_LOOP" "$DISK_DURATION"
        printf 'interval = %ss
timeout = 60s
' "$(awk -v d="$DISK_DURATION" 'BEGIN { print d + 1 }')"
}
# lat_start NAME: the fixture, the daemon, the reference learnt (REFV, s)
lat_start() {
        DIR=$WORK/$1
        mkdir -p "$DIR"
        need_root "$1" || return 1
        slow_up "$DIR" || { row "$1" - skipped - -; return 1; }
        step_conf "$DIR" "$(lat_probe_lines)"
        CG_PROCS="" start_daemon "$DIR" lat=$LAT_FAM
        learn $((${DISK_DURATION%.*} + 90)) || { row "$1" "reference" none "pinned" MISSED; return 1; }
        echo "   $(python3 "$WORK/refstat.py" "$LAT_FAM" "$DIR/state")"
}
lat_end() { stop_daemon; slow_down; }

# lat_step NAME FACTOR TARGET-RUNS: reads FACTOR times the reference long
lat_step() {
        local name=$1 f=$2 target=$3 delay ok tmo=$((${DISK_DURATION%.*} + 90))
        echo "== $name: disklat 4k at 50/s, ${DISK_DURATION}s runs on the slow disk (+${BASE_DELAY_US} us" \
             "a read), reference_runs $REF; then each read ${f}x the reference"
        lat_start "$name" || { lat_end; return 0; }
        delay=$(awk -v b="$BASE_DELAY_US" -v r="$REFV" -v f="$f" 'BEGIN { printf "%d", b + (f - 1) * r * 1e6 }')
        slow_delay "$delay" || { lat_end; return 1; }
        echo "   delay: $delay us a read (was $BASE_DELAY_US; the reference p50 $REFV s)"
        under_step "$tmo" "$EPOCHREALTIME" || { lat_end; return 1; }
        local ratio
        ratio=$(median_of 12 < "$DIR/phase.step")
        ok=$([ "$FLAGGED" -gt 0 ] && [ "$FLAGGED" -le "$target" ] && echo 1)
        if [ "$FLAGGED" -gt 0 ]; then
                echo "   flagged after $(runs_text $FLAGGED $FLAGGED_C $STEP_MAX) run(s) ($MIXED begun before" \
                     "the change); median ratio under the step $ratio — $(verdict "$ok")"
        else
                echo "   not flagged in $STEP_MAX counted runs — MISSED"
        fi
        row "$name" "achieved p50 ratio" "$ratio" "$f" "-"
        row "$name" "runs to flag" "$(runs_text $FLAGGED $FLAGGED_C $STEP_MAX)" "<= $target" "$(verdict "$ok")"
        slow_delay "$BASE_DELAY_US"
        if [ "$FLAGGED" -gt 0 ] && after_lift "$tmo"; then
                ok=$([ "$CLEARED" -gt 0 ] && echo 1)
                echo "   lifted: cleared after $(runs_text $CLEARED $CLEARED_C $CLEAR_MAX) run(s) — $(verdict "$ok")"
                row "$name" "runs to clear" "$(runs_text $CLEARED $CLEARED_C $CLEAR_MAX)" "cleared" "$(verdict "$ok")"
        fi
        lat_end
}
scenario_lat_2x() { lat_step lat-2x 2 3; }
scenario_lat_50() { lat_step lat-50 1.5 6; }

scenario_lat_drift() {
        local name=lat-drift i=0 level delay at="" tmo=$((${DISK_DURATION%.*} + 90))
        echo "== $name: as lat-2x, then each read takes ${LAT_DRIFT_STEP} of the reference longer every run"
        lat_start "$name" || { lat_end; return 0; }
        PHASE=drift
        while :; do
                level=$(awk -v i=$i -v s=$LAT_DRIFT_STEP 'BEGIN { printf "%.4f", 1 + i * s }')
                fcmp "$level" "$LAT_DRIFT_END" '>' && break
                delay=$(awk -v b="$BASE_DELAY_US" -v r="$REFV" -v l="$level" 'BEGIN { printf "%d", b + (l - 1) * r * 1e6 }')
                slow_delay "$delay" || break
                next_run "$tmo" || break
                i=$((i + 1))
                printf '      drift  run %3d: reads x%.2f (+%s us) value %-9s ratio %-6s evidence %-6s reg %s\n' \
                        "$i" "$level" "$((delay - BASE_DELAY_US))" "$R_VALUE" "$R_RATIO" "$R_EV" "$R_REG"
                [ "$R_REG" = 1 ] && { at=$level; break; }
        done
        lat_end
        if [ -n "$at" ]; then
                echo "   flagged after $i run(s) with reads at x$at of the reference"
                row "$name" "read time when flagged (runs)" "x$at ($i)" "-" "-"
        else
                echo "   not flagged up to x$level — MISSED"
                row "$name" "read time when flagged" "not flagged" "-" MISSED
        fi
}

# ---- main -------------------------------------------------------------------------

if [ "$(id -u)" = 0 ] && [ -n "$BLKIO" ]; then
        DEV=$(disk_dev) || { echo "bench: no block device under $WORK" >&2; exit 1; }
fi
echo "benchwatch detector on this host: $("$BENCHWATCH" --version 2>&1 | head -n 1);" \
     "$(nproc) CPUs; RUNS=$RUNS, reference_runs $REF (step, drift) and $CLEAN_REF (clean)," \
     "probe runs ${DURATION}s (disk step and drift ${DISK_DURATION}s); work dir $WORK on device ${DEV:-?}"
for s in $SCENARIOS; do
        "scenario_${s//-/_}" || echo "   $s: stopped early (see above)"
        stop_daemon
done
echo
echo "== summary (RUNS=$RUNS, reference_runs $REF for the steps and the drift, $CLEAN_REF for clean)"
printf '%-11s %-38s %-22s %-10s %s\n' scenario figure value target verdict
while IFS=$'\t' read -r a b c d e; do
        printf '%-11s %-38s %-22s %-10s %s\n' "$a" "$b" "$c" "$d" "$e"
done < "$TABLE"
