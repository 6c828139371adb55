#!/bin/bash
# bench/cost/busy-host.sh — the built-in probes beside co-located work: of
# the runs due, how many were done and counted, how many deferred, the
# regressions entered (false alarms: nothing changed), and each probe's
# judged figure against the same build alone.
#
# For each neighbour (bench/lib/neighbours.sh: none, busy<N> loops pinned
# to the last N CPUs, full = every CPU busy, stream<N> memory hogs) and
# each build (BUILDS, their order alternating from one neighbour to the
# next), the daemon runs the built-in configuration with the shipped
# [daemon] and [regression] settings but for 1-second intervals (splay 0,
# duty_cycle 1, min_runs and reference_runs as shipped) for SECONDS, from a
# fresh state directory; the neighbour is under way 2 s before it starts.
# The test file of the disk probe is made once and shared.
#
# Usage: bench/cost/busy-host.sh [SECONDS per phase, default 300] [NEIGHBOUR ...]
#   env: BUILDS ("NAME=BUILD_DIR ...", each with BUILD_DIR/benchwatch and
#   BUILD_DIR/plugins/.libs; default: this tree as "this"), ONLY (probe
#   names, e.g. "cpu": only those of the configuration), WORK (a
#   directory to keep; default a temporary one, removed), BENCH_DIR
#   (/var/tmp: O_DIRECT for the disk probe's test file)
# Prints one row per neighbour, build and probe, then a line per neighbour
# and build: runs done and counted of those due.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$top/bench/lib/neighbours.sh"
secs=${1:-300}
[[ $secs =~ ^[0-9]+$ ]] || { echo "bench: SECONDS wants a number, not '$secs'" >&2; exit 2; }
shift $(( $# > 0 ? 1 : 0 ))
NEIGHBOURS=${*:-none busy1 full stream1}
for nb in $NEIGHBOURS; do
        neighbour_valid "$nb" || { echo "bench: unknown neighbour '$nb'" >&2; exit 2; }
done
command -v stress-ng > /dev/null || { echo "bench: needs stress-ng" >&2; exit 1; }
BUILDS=${BUILDS:-this=$top}
declare -A BIN PLUG
NAMES=""
for b in $BUILDS; do
        name=${b%%=*} dir=${b#*=}
        [ -x "$dir/benchwatch" ] || { echo "bench: no $dir/benchwatch" >&2; exit 1; }
        BIN[$name]=$dir/benchwatch PLUG[$name]=$dir/plugins/.libs NAMES="$NAMES $name"
done
KEEP=${WORK:+1}
WORK=${WORK:-$(mktemp -d "${BENCH_DIR:-/var/tmp}/busy-host.XXXXXX")}
mkdir -p "$WORK/cache"
DPID=""
NEIGHBOUR_PIDS=""
cleanup() {
        [ -n "$DPID" ] && kill "$DPID" 2> /dev/null && wait "$DPID" 2> /dev/null
        neighbour_stop
        [ -n "$KEEP" ] || rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# phase NEIGHBOUR BUILD: one daemon run; its files in $WORK/NEIGHBOUR-BUILD
phase() {
        local d=$WORK/$1-$2
        rm -rf "$d"
        mkdir -p "$d"
        # the built-in configuration (conf_builtin_default and
        # conf_builtin_disk in daemon/core/conf_builtin.c) at 1-second intervals
        cat > "$d/benchwatch.conf" <<CONF
[daemon]
state_dir = $d/state
cache_dir = $WORK/cache
interval = 1s
splay = 0
first_splay = 0
duty_cycle = 1
[journal]
enabled = no
[textfile]
path = $d/bw.prom
[probe cpu]
plugin = cpu
duration = 1s
[probe threads]
plugin = threads
duration = 1s
[probe memory]
plugin = memory
mode = dram
duration = 2s
[probe memory-latency]
plugin = memory
mode = latency
duration = 1s
[probe disklat]
plugin = disklat
size = 1G
rate = 100
duration = 5s
CONF
        if [ -n "${ONLY:-}" ]; then
                awk -v only=" $ONLY " '/^\[probe / { name = $2; sub(/\]$/, "", name); keep = index(only, " " name " ") > 0 }
                        /^\[/ && !/^\[probe / { keep = 1 } keep' "$d/benchwatch.conf" > "$d/conf.only" &&
                        mv "$d/conf.only" "$d/benchwatch.conf"
        fi
        neighbour_start "$1"
        sleep 2
        BENCHWATCH_PLUGIN_DIR=${PLUG[$2]} "${BIN[$2]}" -c "$d/benchwatch.conf" daemon --print \
                > "$d/out" 2> "$d/err" &
        DPID=$!
        sleep "$secs"
        kill "$DPID"
        wait "$DPID" 2> /dev/null
        DPID=""
        neighbour_stop
        echo "  $1 / $2: $NEIGHBOUR_TEXT, $(grep -c ": ok" "$d/out") runs" >&2
}

# the disk probe's 1 GiB test file, made before the first phase is timed
first=${NAMES# }
first=${first%% *}
BENCHWATCH_PLUGIN_DIR=${PLUG[$first]} "${BIN[$first]}" run disklat size=1G rate=100 \
        duration=1s path="$WORK/cache/disk-disklat.dat" > /dev/null 2>&1 || :
i=0
for nb in $NEIGHBOURS; do
        order=$NAMES
        [ $(( i % 2 )) = 1 ] && order=$(echo "$NAMES" | tr ' ' '\n' | tac | tr '\n' ' ')
        for b in $order; do
                phase "$nb" "$b"
        done
        i=$(( i + 1 ))
done
echo "# $(nproc) CPUs, $secs s a phase, built-in probes at 1-second intervals"
python3 "$here/busy_host.py" "$WORK" $NEIGHBOURS -- $NAMES
