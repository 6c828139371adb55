#!/bin/bash
# lab/detector/detector-real.sh — the regression detector judged on this host, with
# the real daemon and real slowdowns.
#
# lab/detector/detsim replays synthetic series; this runs `benchwatch daemon` and
# slows its probes down for real with cgroup v1 controls the probe processes
# inherit from the daemon: a blkio read_iops_device throttle on the device
# holding the test file, and a cpu.cfs_quota_us.  Scenarios:
#   clean       the built-in configuration's five probes (cpu, threads,
#               memory, memory-latency, disk = disklat) at their shipped
#               durations and 1-second intervals until each has RUNS runs:
#               regressions entered (target 0), with the steal and pressure
#               recorded beside each run (and around any regression);
#   disk-step   a disk probe learns its reference, then IOPS are capped at
#               85% of it: flagged within 6 runs?  Throttle lifted: cleared?
#               Then `verify` with the cap (want exit 1) and without (0);
#   cpu-step    the same with a cpu probe and a CPU quota of 85% of one CPU;
#   disk-drift  after the reference the cap starts at 100% of the reference
#               IOPS and tightens by 0.5% of it every run: flagged before 88%?
#   lat-2x, lat-50, lat-15, lat-drift
#               a disklat probe (one 4k read at a time, 50 a second) on a
#               slow disk on demand (tests/integration/lib/slowdisk: a FUSE file
#               system that delays every request, BASE_DELAY_US = 1000 to
#               start with, under a loop device with direct I/O) learns its
#               reference, then every read takes twice as long (flagged
#               within 3 runs?), 50% longer (within 6?), 15% longer (the
#               loss every probe's delay is quoted for: within 6?), or 5%
#               of the reference longer every run (the rise when flagged);
#               the failure a dying disk shows first, not an IOPS cap.
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
# Neighbours: each scenario can run beside a co-located workload, started
# before the scenario's daemon and stopped (by PID) after it:
#   none   nothing;
#   web25, web50  nginx (Debian's shipped nginx.conf settings: workers
#          auto, sendfile, tcp_nopush, gzip, access log; a private prefix,
#          127.0.0.1:$WEB_PORT) serving a 4 kB static file, driven open loop
#          (`benchwatch run http rate=`, as bench/cost/impact.sh) at 25% / 50% of
#          its capacity, measured once (closed loop, 8 connections, 5 s)
#          before the first web neighbour starts;
#   cpu    `sysbench cpu --threads=N` on half the CPUs, without end;
#   busy<N>, full, stream<N>
#          busy loops pinned to the last N CPUs, to every CPU (no room),
#          or STREAM-like memory hogs (bench/lib/neighbours.sh).
# Builds: BUILDS="NAME=BUILD_DIR ..." runs every scenario with each build's
# benchwatch and plugins (BUILD_DIR/benchwatch, BUILD_DIR/plugins/.libs),
# the builds' order alternating from one repetition to the next (ABBA), so
# "today" (an older commit's build) stands beside "new".  The web
# neighbour's client is always the first build's.
#
# Usage: lab/detector/detector-real.sh [--runs N] [--ref N] [--clean-ref N]
#            [--duration S] [--disk-duration S] [--neighbour LIST]
#            [--builds "NAME=DIR ..."] [--repeat N] [--keep] [SCENARIO ...]
#   env: BENCHWATCH (binary), BENCHWATCH_PLUGIN_DIR, RUNS (300), REF (30 for
#   the step and drift scenarios; when set, also the clean scenario's),
#   CLEAN_REF (the shipped default 100), DURATION (1, seconds per step run),
#   DISK_DURATION (2, or DURATION when that is set), GAP (1: seconds from
#   the end of a step, drift or lat scenario's run to the next), SCENARIOS ("clean
#   disk-step cpu-step disk-drift lat-2x lat-50 lat-15 lat-drift"), BENCH_DIR
#   (/var/tmp: the test files need a filesystem with O_DIRECT), KEEP=1
#   keeps the work directory, SLOWDISK (the fixture's binary, default
#   tests/integration/lib/slowdisk/slowdisk of the tree), BASE_DELAY_US (1000),
#   NEIGHBOURS ("none"; a list of none web25 web50 cpu, commas or spaces;
#   --neighbour may be repeated), BUILDS (unset: BENCHWATCH alone, named
#   "this"), REPEAT (1: each scenario x neighbour x build this many times),
#   WEB_PORT (18096), WEB_CONC (8 connections of the web load), SETTINGS
#   (shipped: the daemon's [daemon] defaults but for interval, splay and
#   duty_cycle; busy: also yield_cpu (room and yield_cpu_wait where the
#   build has them) and max_psi_cpu 0, so others' CPU defers and stops no
#   run; forced: nice 0, no deferral, no yield),
#   CLEAN_BUDGET (seconds the clean scenario may take; 26 x RUNS + 300),
#   ARRIVE (unset: the neighbour is there from the start; N: the clean
#   scenario's neighbour arrives once each probe has N runs, beside a
#   reference learnt without it, as on a host whose neighbour comes later).
# Needs root (cgroups, loop devices) for all but the clean scenario.
set -u
BENCHWATCH=${BENCHWATCH:-benchwatch}
usage() {
        sed -n '/^# Usage:/,/^# Needs root/s/^# \{0,1\}//p' "$0"
}
SCEN_ALL="clean disk-step cpu-step disk-drift lat-2x lat-50 lat-15 lat-drift"
SCENARIOS=${SCENARIOS:-}
REF_GIVEN=${REF:+1}
DURATION_GIVEN=${DURATION:+1}
want() { # NAME VALUE: the value of flag NAME, a positive number
        [[ $2 =~ ^[0-9]+(\.[0-9]+)?s?$ ]] || { echo "bench: $1 wants a number, not '$2'" >&2; exit 2; }
}
while [ $# -gt 0 ]; do
        case $1 in
        --runs|--ref|--clean-ref|--duration|--disk-duration|--neighbour|--builds|--repeat)
                [ $# -ge 2 ] || { usage >&2; exit 2; }
                set -- "$1=$2" "${@:3}"
                continue ;;
        --runs=*) RUNS=${1#*=}; want --runs "$RUNS" ;;
        --ref=*) REF=${1#*=}; REF_GIVEN=1; want --ref "$REF" ;;
        --clean-ref=*) CLEAN_REF=${1#*=}; want --clean-ref "$CLEAN_REF" ;;
        --duration=*) DURATION=${1#*=}; DURATION_GIVEN=1; want --duration "$DURATION" ;;
        --disk-duration=*) DISK_DURATION=${1#*=}; want --disk-duration "$DISK_DURATION" ;;
        --neighbour=*) NEIGH_ARGS="${NEIGH_ARGS:-} ${1#*=}" ;;
        --builds=*) BUILDS=${1#*=} ;;
        --repeat=*) REPEAT=${1#*=}; [[ $REPEAT =~ ^[1-9][0-9]*$ ]] ||
                { echo "bench: --repeat wants a positive integer, not '$REPEAT'" >&2; exit 2; } ;;
        --keep) KEEP=1 ;;
        -h|--help) usage; exit 0 ;;
        all) SCENARIOS="$SCENARIOS $SCEN_ALL" ;;
        clean|disk-step|cpu-step|disk-drift|lat-2x|lat-50|lat-15|lat-drift) SCENARIOS="$SCENARIOS $1" ;;
        *) echo "bench: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
        esac
        shift
done
SCENARIOS=${SCENARIOS:-$SCEN_ALL}
NEIGHBOURS=$(echo "${NEIGH_ARGS:-${NEIGHBOURS:-none}}" | tr ',' ' ')
. "$(dirname "$0")/../../bench/lib/neighbours.sh"
for nb in $NEIGHBOURS; do
        case $nb in web25|web50|cpu) ;;
        *) neighbour_valid "$nb" ||
                { echo "bench: unknown neighbour '$nb' (none, web25, web50, cpu," \
                       "busy<N>, full, stream<N>)" >&2; exit 2; } ;;
        esac
done
REPEAT=${REPEAT:-1}
ARRIVE=${ARRIVE:-}
[ -z "$ARRIVE" ] || [[ $ARRIVE =~ ^[1-9][0-9]*$ ]] ||
        { echo "bench: ARRIVE wants a number of runs, not '$ARRIVE'" >&2; exit 2; }
SETTINGS=${SETTINGS:-shipped}
case $SETTINGS in shipped|busy|forced) ;;
*) echo "bench: SETTINGS is shipped, busy or forced, not '$SETTINGS'" >&2; exit 2 ;;
esac
WEB_PORT=${WEB_PORT:-18096}
WEB_CONC=${WEB_CONC:-8}
# the builds: names and binaries (BUILD_NAMES in order), plugin directories
BUILD_NAMES=""
declare -A BUILD_BIN=() BUILD_PLUG=()
if [ -n "${BUILDS:-}" ]; then
        for b in $BUILDS; do
                [[ $b == ?*=?* ]] || { echo "bench: BUILDS wants NAME=BUILD_DIR, not '$b'" >&2; exit 2; }
                BUILD_NAMES="$BUILD_NAMES ${b%%=*}"
                BUILD_BIN[${b%%=*}]=${b#*=}/benchwatch
                BUILD_PLUG[${b%%=*}]=${b#*=}/plugins/.libs
                [ -x "${b#*=}/benchwatch" ] || { echo "bench: no benchwatch built in ${b#*=}" >&2; exit 1; }
        done
else
        BUILD_NAMES=this
        BUILD_BIN[this]=$BENCHWATCH
        BUILD_PLUG[this]=${BENCHWATCH_PLUGIN_DIR:-}
fi
RUNS=${RUNS:-300}
DURATION=${DURATION:-1}; DURATION=${DURATION%s}
GAP=${GAP:-1}; want GAP "$GAP"; GAP=${GAP%s}
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
SLOWDISK=${SLOWDISK:-$(cd "$(dirname "$0")/../.." && pwd)/tests/integration/lib/slowdisk/slowdisk}
BASE_DELAY_US=${BASE_DELAY_US:-1000}
LAT_DRIFT_STEP=0.05 # of the reference read time, added every run
LAT_DRIFT_END=3     # given up when reads take this many times the reference

command -v nginx > /dev/null || PATH=$PATH:/usr/sbin
case " $NEIGHBOURS " in *" web"*) command -v nginx > /dev/null ||
        { echo "bench: the web neighbours need nginx" >&2; exit 1; } ;; esac
case " $NEIGHBOURS " in *" cpu "*) command -v sysbench > /dev/null ||
        { echo "bench: the cpu neighbour needs sysbench" >&2; exit 1; } ;; esac
for b in $BUILD_NAMES; do BENCHWATCH=${BUILD_BIN[$b]}; break; done
for c in python3 "$BENCHWATCH"; do
        command -v "$c" > /dev/null || { echo "bench: $c not found" >&2; exit 1; }
done
WORK=$(mktemp -d "${BENCH_DIR:-/var/tmp}/bw-detector-real.XXXXXX") || exit 1
DPID=""     # the daemon
WPID=""     # its textfile watcher
CGROUPS=""  # cgroups made here
NGINX_PID=""  # the web neighbours' server, started once
NB_PIDS=""    # the running neighbour's processes
SLOW_LOOP="" SLOW_PID="" SLOW_MNT=""
cleanup() {
        stop_daemon
        slow_down
        stop_neighbour
        if [ -n "$NGINX_PID" ]; then
                kill "$NGINX_PID" 2> /dev/null
                wait "$NGINX_PID" 2> /dev/null
        fi
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

# ---- helpers: the textfile watcher and the summaries are Python programs in
# lab/detector/detector_real/ (watch.py, clean.py, verify.py, refstat.py, table.py)
PYDIR=$(cd "$(dirname "$0")" && pwd)/detector_real

# median_of COLUMN: median of that column of the tab-separated runs on stdin
median_of() { python3 -c '
import statistics, sys
xs = [float(l.split("\t")[int(sys.argv[1]) - 1]) for l in sys.stdin if l.strip()]
xs = [x for x in xs if x == x]
print("%.4f" % statistics.median(xs) if xs else "nan")' "$1"; }

# ---- the daemon, its watcher, cgroups, throttles ------------------------------

TABLE=$WORK/table
: > "$TABLE"
row() { # SCENARIO FIGURE VALUE TARGET VERDICT (with the neighbour, build, repetition)
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$NEIGH" "$BUILD" "$REP" "$2" "$3" "$4" "$5" >> "$TABLE"
}
verdict() { [ "$1" = 1 ] && echo met || echo MISSED; }
fcmp() { awk -v a="$1" -v b="$2" "BEGIN { exit !(a $3 b) }"; }

daemon_section() { # DIR
        # the shipped [daemon] settings but for the intervals: 1-second
        # intervals need splay 0 and a duty cycle of 1.  SETTINGS=busy: no
        # run deferred or stopped for others' CPU (what an operator sets to
        # have verdicts on a host busier than yield_cpu); forced: nice 0
        # and never deferred or stopped at all (the figures before
        # 2026-12-03)
        cat <<CONF
[daemon]
state_dir = $1/state
cache_dir = $1/cache
interval = 1s
splay = 0
duty_cycle = 1
CONF
        [ "$SETTINGS" = forced ] && cat <<CONF
nice = 0
max_load = 0
max_psi_cpu = 0
yield = no
max_psi_io = 0
max_psi_memory = 0
CONF
        # (a build that has room and yield_cpu_wait ignores yield_cpu)
        [ "$SETTINGS" = busy ] && printf 'yield_cpu = 0\nmax_psi_cpu = 0\n' &&
                grep -q yield_cpu_wait "$BENCHWATCH" && printf 'room = 0\nyield_cpu_wait = 0\n'
        cat <<CONF

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
        exec 3< <(exec python3 "$PYDIR/watch.py" "$dir/bw.prom" "$since" "$dir/runs.tsv" "$@")
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
        local line waited=0 dead=""
        # a second at a time, so a daemon that exits (a bad configuration)
        # ends the wait at once; the watcher's lines are written whole
        while ! IFS= read -r -t 1 -u 3 line; do
                waited=$((waited + 1))
                if [ -z "$dead" ] && [ "$waited" -lt "$1" ]; then
                        kill -0 "$DPID" 2> /dev/null || dead=1 # its last run may be on its way
                        continue
                fi
                if [ -n "$dead" ]; then
                        echo "bench: the daemon exited" >&2
                else
                        echo "bench: no run came within $1 s" >&2
                fi
                tail -n 3 "$DIR/daemon.err" >&2
                return 1
        done
        IFS=$'\t' read -r R_PROBE R_START R_DUR R_COUNTED R_STEAL R_PCPU R_PIO R_PMEM \
                R_PINNED R_VALUE R_REF R_RATIO R_CHANGE R_EV R_REG R_NOISE R_NREG \
                R_ENTERED R_LEFT R_JUDGED <<< "$line"
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
        read -r st n ch lo hi how bad <<< "$(python3 "$PYDIR/verify.py" "$DIR/verify-$label.json" "$fam")"
        printf '   verify %-9s exit %d (want %d): %s, main figure %s%% (95%% CI %s..%s%%) after %s runs (%s); host steal %s%%; failing: %s\n' \
                "$label" "$rc" "$want" "$st" "$ch" "$lo" "$hi" "$n" "$how" "$steal" "$bad"
        [ "$rc" = 2 ] && sed 's/^/      /' "$DIR/verify-$label.err"
        row "$scen" "verify $label: exit (runs, change, steal)" "$rc ($n, $ch%, ${steal}%)" "$want" \
                "$(verdict "$([ "$rc" = "$want" ] && echo 1)")"
}

# ---- scenarios ------------------------------------------------------------------

scenario_clean() {
        DIR=$WORK/$RUNID/clean; PHASE=clean
        mkdir -p "$DIR"
        # the built-in configuration (conf_builtin_default and
        # conf_builtin_disk in daemon/core/conf_builtin.c) with 1-second intervals
        local probes="cpu threads memory memory-latency disk" budget runs=0 p
        {
                daemon_section "$DIR"
                printf '\n[regression]\nreference_runs = %s\n' "$CLEAN_REF"
                printf '\n[probe cpu]\nplugin = cpu\nduration = 1s\n'
                printf '\n[probe threads]\nplugin = threads\nduration = 1s\n'
                printf '\n[probe memory]\nplugin = memory\nmode = dram\nduration = 2s\n'
                printf '\n[probe memory-latency]\nplugin = memory\nmode = latency\nduration = 1s\n'
                printf '\n[probe disk]\nplugin = disklat\nsize = 1G\nrate = 100\nduration = 5s\n'
                printf 'path = %s/disk.dat\n' "$DIR"
        } > "$DIR/bw.conf"
        echo "== clean: the built-in probes ($probes) at their shipped durations every 1s" \
             "until each has $RUNS runs, reference_runs $CLEAN_REF, $SETTINGS [daemon] settings"
        [ "$RUNS" -gt "$CLEAN_REF" ] || echo "   (note: RUNS <= reference_runs: runs are judged only by a detector with [regression] min_runs, from its 10th run)"
        declare -A n=()
        local arrive=""
        [ -n "$ARRIVE" ] && [ "$NEIGH" != none ] && arrive=1
        CG_PROCS="" start_daemon "$DIR" cpu=benchwatch_cpu_events_per_second \
                threads=benchwatch_threads_events_per_second \
                memory=benchwatch_memory_bytes_per_second \
                memory-latency=benchwatch_memory_load_latency_seconds \
                disk=benchwatch_disklat_latency_seconds
        # a bound on the whole: a round of the five is 10 s of runs and ~3 s
        # more; twice that for deferrals, and the disk's test file
        budget=${CLEAN_BUDGET:-$((2 * RUNS * 13 + 300))}
        local end=$((SECONDS + budget)) done=0
        while [ $SECONDS -lt $end ] && next_run 300; do
                n[$R_PROBE]=$(( ${n[$R_PROBE]:-0} + 1 ))
                runs=$((runs + 1))
                [ "$R_ENTERED" != - ] && echo "   $R_PROBE run ${n[$R_PROBE]}: regression entered: $R_ENTERED"
                [ "$R_LEFT" != - ] && echo "   $R_PROBE run ${n[$R_PROBE]}: recovered: $R_LEFT"
                [ $((runs % 100)) = 0 ] && echo "   ... $runs runs (cpu ${n[cpu]:-0} threads ${n[threads]:-0}" \
                        "memory ${n[memory]:-0} memory-latency ${n[memory-latency]:-0}" \
                        "disk ${n[disk]:-0})" >&2
                done=1
                for p in $probes; do [ "${n[$p]:-0}" -ge "$RUNS" ] || done=0; done
                [ $done = 1 ] && break
                [ -n "$arrive" ] || continue
                for p in $probes; do [ "${n[$p]:-0}" -ge "$ARRIVE" ] || continue 2; done
                arrive=""
                echo "   each probe has $ARRIVE runs (all probes: $runs): the neighbour arrives"
                start_neighbour "$NEIGH" || break
        done
        stop_daemon
        [ $done = 1 ] || echo "   incomplete: the runs did not all arrive within ${budget}s"
        python3 "$PYDIR/clean.py" "$DIR/runs.tsv" "$DIR/daemon.err" "$CLEAN_REF" > "$DIR/summary"
        grep -v '^TOTAL' "$DIR/summary"
        read -r _ total logged <<< "$(grep '^TOTAL' "$DIR/summary")"
        local errs
        errs=$(grep -ciE 'error|fail' "$DIR/daemon.err")
        echo "   clean: $total regression(s) entered in $runs runs (reference_runs $CLEAN_REF;" \
             "$logged logged as warnings; $errs error line(s) in the log)" \
             "— $(verdict "$([ "$total" = 0 ] && [ $done = 1 ] && echo 1)")"
        row clean "regressions entered (ref $CLEAN_REF)" "$total" 0 \
                "$(verdict "$([ "$total" = 0 ] && [ $done = 1 ] && echo 1)")"
        row clean "runs (all probes; judged)" "$runs; $(awk -F'\t' '$20 == 1' "$DIR/runs.tsv" | wc -l)" \
                "$((5 * RUNS))" "-"
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
        echo "   no reference after $bound runs ($(awk -F'\t' '$4 == 0' "$DIR/phase.learn" | wc -l) not counted: steal, others' CPU or run delay)" >&2
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
# verdict_line PROBE: the daemon's line when the probe entered its regression
# (the figure, its change, the reference and the cause with its evidence)
verdict_line() {
        grep -m 1 "probe '$1': .* since .*, against the reference" "$DIR/daemon.err" |
                sed "s/^.*probe '$1': //"
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
        echo "   $(python3 "$PYDIR/refstat.py" "$fam" "$DIR/state")"
        $apply || return 1
        under_step "$tmo" "$EPOCHREALTIME" || return 1
        ratio=$(awk -F'\t' '$4 == 1' "$DIR/phase.step" | median_of 12)
        ratio_all=$(median_of 12 < "$DIR/phase.step")
        printf '   achieved: median ratio under the step %s over the counted runs, %s over all %s (%s begun before the change)\n' \
                "$ratio" "$ratio_all" "$(wc -l < "$DIR/phase.step")" "$MIXED"
        ok=$([ "$FLAGGED" -gt 0 ] && [ "$FLAGGED_C" -le $FLAG_RUNS ] && echo 1)
        if [ "$FLAGGED" -gt 0 ]; then
                echo "   flagged after $(runs_text $FLAGGED $FLAGGED_C $STEP_MAX) run(s), $NREG series of the probe" \
                     "in regression; logged: $(verdict_line "$R_PROBE")" \
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

# run_interval DURATION: a step scenario's interval, GAP seconds more
run_interval() { awk -v d="$1" -v g="$GAP" 'BEGIN { print d + g }'; }

disk_probe_lines() { # DIR
        printf '[probe disk]\nplugin = disk\npath = %s/disk.dat\nsize = 64M\nmode = randread\n' "$1"
        printf 'block_size = 16k\niodepth = 4\nduration = %ss\n' "$DISK_DURATION"
        # GAP seconds between runs: a throttle changes between two runs
        printf 'interval = %ss\ntimeout = 60s\n' "$(run_interval "$DISK_DURATION")"
}

scenario_disk_step() {
        DIR=$WORK/$RUNID/disk-step
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
        DIR=$WORK/$RUNID/cpu-step
        mkdir -p "$DIR"
        echo "== cpu-step: cpu threads=1, ${DURATION}s runs, reference_runs $REF;" \
             "then cpu.cfs_quota_us 85000 of 100000"
        need_root cpu-step || return 0
        [ -n "$CPUCG" ] || { echo "   skipped: no cgroup v1 cpu"; row cpu-step - skipped - -; return 0; }
        local g
        g=$(make_cgroup "$CPUCG" cpu-step) || return 1
        echo 100000 > "$g/cpu.cfs_period_us"
        step_conf "$DIR" "[probe cpu]" "plugin = cpu" "threads = 1" "duration = ${DURATION}s" \
                "interval = $(run_interval "$DURATION")s" "timeout = 60s"
        CG_PROCS="$g/cgroup.procs" start_daemon "$DIR" cpu=benchwatch_cpu_events_per_second
        quota() { echo 85000 > "$g/cpu.cfs_quota_us" && echo "   quota: 85000/100000 us"; }
        lift_quota() { echo -1 > "$g/cpu.cfs_quota_us" && echo "   quota lifted"; }
        step_scenario cpu-step benchwatch_cpu_events_per_second $((${DURATION%.*} + 90)) quota lift_quota "$g"
        stop_daemon
        echo -1 > "$g/cpu.cfs_quota_us"
        drop_cgroup "$g"
}

scenario_disk_drift() {
        DIR=$WORK/$RUNID/disk-drift; PHASE=drift
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
        echo "   $(python3 "$PYDIR/refstat.py" benchwatch_disk_iops "$DIR/state")"
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

# ---- neighbours ---------------------------------------------------------------

# start_web: nginx with Debian's shipped nginx.conf settings (workers auto,
# 768 connections a worker, sendfile, tcp_nopush, gzip, an access log) but a
# private prefix and 127.0.0.1:$WEB_PORT, serving a 4 kB file; then its
# capacity (WEB_CAPACITY, requests/s: a closed-loop run of 5 s), once
WEB_CAPACITY=""
start_web() {
        local w=$WORK/nginx i
        [ -n "$NGINX_PID" ] && return 0
        mkdir -p "$w/www" "$w/tmp" || return 1
        head -c 3000 /dev/urandom | base64 -w 75 > "$w/www/index.html" # 4 kB
        chmod 755 "$WORK" "$w" "$w/www" # nginx's workers may run as www-data
        cat > "$w/nginx.conf" <<EOF
user www-data;
worker_processes auto;
daemon off;
master_process on;
pid $w/nginx.pid;
error_log $w/error.log;
events { worker_connections 768; }
http {
    sendfile on;
    tcp_nopush on;
    types_hash_max_size 2048;
    include /etc/nginx/mime.types;
    default_type application/octet-stream;
    access_log $w/access.log;
    gzip on;
    client_body_temp_path $w/tmp/body;
    proxy_temp_path $w/tmp/proxy;
    fastcgi_temp_path $w/tmp/fastcgi;
    uwsgi_temp_path $w/tmp/uwsgi;
    scgi_temp_path $w/tmp/scgi;
    server {
        listen 127.0.0.1:$WEB_PORT;
        root $w/www;
    }
}
EOF
        [ "$(id -u)" = 0 ] || sed -i '/^user /d' "$w/nginx.conf"
        nginx -p "$w" -c "$w/nginx.conf" > "$w/nginx.out" 2>&1 &
        NGINX_PID=$!
        for i in $(seq 100); do
                (exec 3<> "/dev/tcp/127.0.0.1/$WEB_PORT") 2> /dev/null && break
                sleep 0.05
        done
        if [ "$i" = 100 ]; then
                echo "bench: nginx did not come up on 127.0.0.1:$WEB_PORT" >&2
                cat "$w/nginx.out" "$w/error.log" >&2 2> /dev/null
                return 1
        fi
        printf '[daemon]\nnice = 0\nstate_dir = %s/cstate\ncache_dir = %s/ccache\n' "$w" "$w" > "$w/client.conf"
        (web_client run http url="http://127.0.0.1:$WEB_PORT/index.html" concurrency="$WEB_CONC" \
                duration=5s --nice=0 --format=json) > "$w/capacity.json" 2> "$w/capacity.err" ||
                { echo "bench: the web capacity run failed" >&2; cat "$w/capacity.err" >&2; return 1; }
        WEB_CAPACITY=$(python3 "$PYDIR/http_rate.py" "$w/capacity.json") || return 1
        echo "   web neighbour: nginx (pid $NGINX_PID) capacity $WEB_CAPACITY requests/s" \
             "(closed loop, $WEB_CONC connections, 5 s, measured now)"
}
# the web neighbour's client: the first build's benchwatch, whatever build is
# judged; it replaces the shell it runs in (call it in a subshell or with &,
# so that $! is its PID)
web_client() {
        local b
        for b in $BUILD_NAMES; do break; done
        BENCHWATCH_PLUGIN_DIR=${BUILD_PLUG[$b]} exec "${BUILD_BIN[$b]}" -c "$WORK/nginx/client.conf" "$@"
}
# start_neighbour NAME: the co-located workload, its PIDs in NB_PIDS
start_neighbour() {
        local f=$WORK/$RUNID/neighbour rate threads
        mkdir -p "$WORK/$RUNID"
        case $1 in
        none) return 0 ;;
        web25|web50)
                start_web || return 1
                rate=$(awk -v c="$WEB_CAPACITY" -v p="${1#web}" 'BEGIN { printf "%d", c * p / 100 }')
                web_client run http url="http://127.0.0.1:$WEB_PORT/index.html" rate="$rate" \
                        concurrency="$WEB_CONC" duration=86400s timeout=5s --timeout=86410s --nice=0 --format=json \
                        > "$f.json" 2> "$f.err" &
                NB_PIDS=$!
                NB_TEXT="$1: $rate requests/s open loop (${1#web}% of $WEB_CAPACITY), pid $NB_PIDS" ;;
        cpu)
                threads=$(( $(nproc) / 2 )); [ "$threads" -ge 1 ] || threads=1
                sysbench cpu --threads="$threads" --time=0 run > "$f.out" 2>&1 &
                NB_PIDS=$!
                NB_TEXT="cpu: sysbench cpu --threads=$threads without end, pid $NB_PIDS" ;;
        *)
                neighbour_start "$1"
                NB_PIDS=$NEIGHBOUR_PIDS
                NB_TEXT="$NEIGHBOUR_TEXT, pids$NB_PIDS" ;;
        esac
        sleep 2 # under way before the daemon starts
        kill -0 $NB_PIDS 2> /dev/null || { echo "bench: neighbour $1 exited at once" >&2;
                cat "$f".* >&2 2> /dev/null; NB_PIDS=""; return 1; }
        echo "   neighbour $NB_TEXT"
}
# neighbour_before SCENARIO: the neighbour under way before the scenario's
# daemon starts; with ARRIVE the clean scenario starts it later itself (a
# web server's capacity is still measured now, before the daemon)
neighbour_before() {
        if [ -n "$ARRIVE" ] && [ "$1" = clean ]; then
                [[ $NEIGH != web* ]] || start_web
        else
                start_neighbour "$NEIGH"
        fi
}
stop_neighbour() {
        local p rate
        for p in $NB_PIDS; do
                kill "$p" 2> /dev/null
                wait "$p" 2> /dev/null
        done
        # the web load's own figures (`run` reports when stopped)
        if [ -n "$NB_PIDS" ] && [ -s "$WORK/$RUNID/neighbour.json" ] &&
           rate=$(python3 "$PYDIR/http_rate.py" "$WORK/$RUNID/neighbour.json" 2> /dev/null); then
                echo "   neighbour $NEIGH stopped: $rate requests/s achieved"
        fi
        NB_PIDS=""
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
' "$(run_interval "$DISK_DURATION")"
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
        echo "   $(python3 "$PYDIR/refstat.py" "$LAT_FAM" "$DIR/state")"
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
scenario_lat_15() { lat_step lat-15 1.15 6; }

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
echo "   neighbours: $NEIGHBOURS; builds:$(for b in $BUILD_NAMES; do printf ' %s=%s' "$b" "${BUILD_BIN[$b]}"; done);" \
     "$REPEAT repetition(s)"
# every scenario x neighbour with each build in turn, the builds' order
# alternating from one pair to the next (ABBA ...)
pair=0
for REP in $(seq "$REPEAT"); do
        for s in $SCENARIOS; do
                for NEIGH in $NEIGHBOURS; do
                        order=$BUILD_NAMES
                        [ $((pair % 2)) = 1 ] && order=$(echo $BUILD_NAMES | tr ' ' '\n' | tac | tr '\n' ' ')
                        pair=$((pair + 1))
                        for BUILD in $order; do
                                RUNID=$s-$NEIGH-$BUILD-$REP
                                BENCHWATCH=${BUILD_BIN[$BUILD]}
                                if [ -n "${BUILD_PLUG[$BUILD]}" ]; then export BENCHWATCH_PLUGIN_DIR=${BUILD_PLUG[$BUILD]}; fi
                                echo
                                echo "=== $s beside $NEIGH, build $BUILD, repetition $REP ($(date +%T))"
                                if neighbour_before "$s"; then
                                        "scenario_${s//-/_}" || echo "   $s: stopped early (see above)"
                                else
                                        row "$s" "neighbour" "failed to start" "-" MISSED
                                fi
                                stop_daemon
                                stop_neighbour
                                [ -n "${KEEP:-}" ] || find "$WORK/$RUNID" -name '*.dat' -delete 2> /dev/null
                        done
                done
        done
done
echo
echo "== summary (RUNS=$RUNS, reference_runs $REF for the steps and the drift, $CLEAN_REF for clean;" \
     "each build's values over $REPEAT repetition(s), their median [min..max], verdicts met)"
python3 "$PYDIR/table.py" "$TABLE" $BUILD_NAMES
