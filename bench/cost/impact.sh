#!/bin/bash
# bench/cost/impact.sh — what benchwatch's daemon costs a co-located workload,
# measured: "low impact, measured and enforced".
#
# Three workloads, one after the other, each in blocks of BLOCK seconds that
# alternate without (A) and with (B) the daemon, in the order ABBA ABBA...
# (so a linear drift of the machine hits both alike):
#   web  nginx (1 worker) serving a 4 kB static file on 127.0.0.1, driven
#        at a constant RATE (open loop: `benchwatch run http rate=`, latency
#        from each request's intended send time) well below its capacity
#        (RATE_FRACTION of a closed-loop run, unless RATE is given), as
#        back-to-back runs of SLICE seconds, each with its own figures;
#   oltp a private MariaDB server (tests/integration/lib/mariadb.sh's, its
#        datadir under /var/tmp: a disk) with OLTP_TABLES tables of
#        OLTP_TABLE_SIZE rows, driven by `sysbench oltp_read_write` over TCP
#        at a constant --rate=OLTP_RATE (OLTP_FRACTION, 0.25, of a closed-loop
#        run's transactions/s, unless given; sysbench's latency of a
#        transaction under --rate counts from its intended start, so a
#        queue shows) with OLTP_THREADS clients, slices of SLICE seconds:
#        transactions/s and the pooled latency histogram;
#   cpu  `sysbench cpu --threads=THREADS --time=SLICE --histogram=on`
#        back to back: events/s and the pooled latency histogram.
# In a B block `benchwatch daemon` runs with the built-in configuration
# (probes cpu, threads, memory, disk at their real intervals, durations and
# default nice/ionice/deferral/yield), written out as a file only so that
# its state_dir, cache_dir (under /var/tmp: a disk, for the disk probe) and
# textfile are private; it is started at the block's start and stopped at
# its end, state kept from block to block.  Each probe run's start and end
# come from the daemon's own lines (--verbose --print, time-stamped as they
# arrive); a slice that overlaps a run or the AFTER seconds after its end
# (10: on a VM the host takes freed memory back 2-4 s after a run, and
# slices 10 s after runs look like those without the daemon) is "during
# probe runs".
#
# Printed: the workload's throughput change and p50/p99/p99.9 latency
# change, overall and during probe runs only, against all A blocks pooled,
# with the spread over B blocks and, as the noise floor, over A blocks;
# the steady state's change with its 90% interval (the ABBA pairs of blocks
# resampled with replacement, BOOT=1000 times), and against the B blocks'
# own slices outside runs (the host's block-to-block noise, which the A
# blocks share only by turns, then on both sides; B blocks resampled);
# the runs that ran, failed, yielded or were deferred (the textfile's
# benchwatch_probe_deferred_total); and the daemon's cost: CPU seconds
# (/proc/PID/stat utime+stime, and with cutime+cstime of its reaped probe
# runs), bytes through read/write (rchar/wchar) and to/from the block layer
# (read_bytes/write_bytes) of /proc/PID/io — Linux adds a reaped child's
# I/O counts to its parent's (wait_task_zombie), so probe runs are
# included — and wake-ups (voluntary + involuntary context switches of the
# daemon's threads, /proc/PID/task/*/status; its own, not its probes'),
# per hour of the daemon's life after its start-up (reported apart: a
# service starts once a boot).  Then the same as a table for the README.
# Goals: overall throughput loss <= 1 %, overall p99 increase <= 5 %, for
# a daemon left on: judged at the steady state (below).
#
# Notes: a fresh daemon runs every probe's first run within first_splay
# (30 s) of its start, so probes take a far larger share of a B block than
# of a daemon's life at the built-in intervals (10-30 min).  The steady
# state is therefore estimated from what was measured: the share of time
# probes take at the built-in intervals (each probe's mean run length plus
# AFTER over its interval) and the B slices outside and during each probe's
# runs mixed in those proportions; "during probe runs" is what each run costs.  Then, per
# probe, the steady state with that probe's interval 2, 4 and 12 times
# longer and without it: which probe costs the workload what.  Per block
# the host's CPU pressure (PSI) is printed too: other work on the host shows
# there, and the spread of the A blocks is the noise floor a change must
# clear.  Web latencies pooled over slices mix each slice's distribution,
# from their latency histograms (a build before that: interpolated between
# each slice's quantiles); cpu's pool sysbench's histograms.
#
# Usage: bench/cost/impact.sh [BUILD_DIR [BLOCK_SECONDS [BLOCKS]]]
#        (defaults: ., 300 s, 4 blocks per workload = 10 min per condition)
#        a short trial: bench/cost/impact.sh . 60 4
#        ANALYZE=DIR bench/cost/impact.sh: the figures again from the raw data
#        an earlier run kept in DIR (OUT=DIR); ANALYZE=DIR1:DIR2:... pools the
#        blocks of several runs of the same configuration
# Env:   WORKLOADS ("web oltp cpu"), OLTP_RATE, OLTP_FRACTION (0.25),
#        OLTP_THREADS (8), OLTP_TABLES (4), OLTP_TABLE_SIZE (100000),
#        OLTP_PORT (13317), RATE (requests/s; default RATE_FRACTION,
#        0.25, of the measured capacity), CONC (8 connections), SLICE (1 s),
#        THREADS (nproc: sysbench threads), PORT (18095), SETTLE (3 s
#        between blocks), OUT (keep the raw data in this directory),
#        AFTER (10 s: how long after a run its effects are counted as the
#        run's; also with ANALYZE), BOOT (1000 resamplings for the 90%
#        intervals; also with ANALYZE), CPU_POLICY (other, batch or idle:
#        the built-in configuration's probes written out as a file with
#        [daemon] cpu_policy set, to compare the CPU-bound probes'
#        scheduling policies; unset: the built-in configuration itself).
# The figures are computed by bench/cost/impact.py, beside this script.
# Not part of `make check`: it takes 60 minutes and its figures are for people.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
export LC_ALL=C
# analyze: the figures, from the raw data in $W (bench/cost/impact.py, beside
# this script)
analyze() {
        python3 "$HERE/impact.py" "$W" "${RATE:-0}" "$BLOCK" "$BLOCKS" "$SLICE" "$THREADS" \
            "${OLTP_RATE:-0}"
}

if [ -n "${ANALYZE:-}" ]; then
        # the parameters of the runs that measured (the first's; their
        # blocks added up), then their analysis
        total=0
        IFS=: read -ra dirs <<< "$ANALYZE"
        for d in "${dirs[@]}"; do
                # shellcheck disable=SC1091
                . "$d/params" || exit 2
                total=$((total + BLOCKS))
        done
        # shellcheck disable=SC1091
        . "${dirs[0]}/params"
        BLOCKS=$total
        W=$ANALYZE
        analyze
        exit
fi
build=$(cd "${1:-.}" && pwd)
BLOCK=${2:-300}
BLOCKS=${3:-4}
WORKLOADS=${WORKLOADS:-web oltp cpu}
OLTP_FRACTION=${OLTP_FRACTION:-0.25}
OLTP_THREADS=${OLTP_THREADS:-8}
OLTP_TABLES=${OLTP_TABLES:-4}
OLTP_TABLE_SIZE=${OLTP_TABLE_SIZE:-100000}
SLICE=${SLICE:-1}
CONC=${CONC:-8}
THREADS=${THREADS:-$(nproc)}
PORT=${PORT:-18095}
SETTLE=${SETTLE:-3}
RATE_FRACTION=${RATE_FRACTION:-0.25}
BW=$build/benchwatch
[ -x "$BW" ] || { echo "bench/cost/impact.sh: no benchwatch in $build" >&2; exit 2; }
[ $((BLOCKS % 2)) -eq 0 ] && [ "$BLOCKS" -ge 2 ] ||
        { echo "bench/cost/impact.sh: BLOCKS must be even (as many with as without)" >&2; exit 2; }
[ -n "${EPOCHREALTIME:-}" ] || { echo "bench/cost/impact.sh: needs bash 5 (EPOCHREALTIME)" >&2; exit 2; }
command -v nginx >/dev/null || PATH=$PATH:/usr/sbin
for t in python3 pgrep; do
        command -v $t >/dev/null || { echo "bench/cost/impact.sh: needs $t" >&2; exit 2; }
done
case " $WORKLOADS " in *" web "*) command -v nginx >/dev/null ||
        { echo "bench/cost/impact.sh: the web workload needs nginx" >&2; exit 2; } ;; esac
case " $WORKLOADS " in *" oltp "*) { command -v sysbench >/dev/null &&
        { command -v mariadbd >/dev/null || [ -x /usr/sbin/mariadbd ]; }; } ||
        { echo "bench/cost/impact.sh: the oltp workload needs sysbench and mariadb-server" >&2; exit 2; } ;; esac
case " $WORKLOADS " in *" cpu "*) command -v sysbench >/dev/null ||
        { echo "bench/cost/impact.sh: the cpu workload needs sysbench" >&2; exit 2; } ;; esac
export BENCHWATCH_PLUGIN_DIR=${BENCHWATCH_PLUGIN_DIR:-$build/plugins/.libs}
W=$(mktemp -d /var/tmp/bw-impact.XXXXXX)
pids=""
D=""
cleanup() {
        [ -n "$D" ] && kill "$D" 2>/dev/null
        for p in $pids; do kill "$p" 2>/dev/null; done
        # the server first: `wait` below waits for every child, mariadbd too
        declare -F mariadb_cleanup >/dev/null && mariadb_cleanup
        wait 2>/dev/null
        bw_daemon cleanup >/dev/null 2>&1
        if [ -n "${OUT:-}" ]; then
                mkdir -p "$OUT" && cp -r "$W"/. "$OUT"/ && echo "raw data in $OUT"
        fi
        rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
mkdir -p "$W/state" "$W/cache" "$W/www" "$W/slices" "$W/nginx-tmp"

# The built-in configuration itself (no configuration file), with private
# places: benchwatch takes state_dir and cache_dir from systemd's
# $STATE_DIRECTORY and $CACHE_DIRECTORY, and its textfile (a relative path)
# lands in state_dir.
DCONF=()
if [ -n "${CPU_POLICY:-}" ]; then
        # the built-in configuration's probes (daemon/core/conf.c), and the policy
        DCONF=(-c "$W/daemon.conf")
        cat > "$W/daemon.conf" <<EOF
[daemon]
interval = 30min
timeout = 1min
cpu_policy = $CPU_POLICY
[probe cpu]
plugin = cpu
interval = 10min
duration = 2s
[probe threads]
plugin = threads
duration = 2s
[probe memory]
plugin = memory
mode = dram
interval = 20min
duration = 2s
[probe memory-latency]
plugin = memory
mode = latency
duration = 2s
[probe disklat]
plugin = disklat
size = 1G
rate = 100
duration = 5s
[textfile]
path = benchwatch.prom
EOF
fi
bw_daemon() { STATE_DIRECTORY=$W/state CACHE_DIRECTORY=$W/cache "$BW" "${DCONF[@]}" "$@"; }
bw_daemon check-config > "$W/check.ours" || exit 2
[ -n "${CPU_POLICY:-}" ] || grep -q '<built-in>' "$W/check.ours" ||
        { echo "bench/cost/impact.sh: a configuration file is installed; this measures the built-in configuration" >&2; exit 2; }
# the workload's own client: at nice 0, as a real workload runs
printf '[daemon]\nnice = 0\nstate_dir = %s/cstate\ncache_dir = %s/ccache\n' "$W" "$W" > "$W/client.conf"

now_us() { echo "${EPOCHREALTIME/./}"; }
# stamp: each line of stdin with the time it arrived
stamp() {
        local l
        while IFS= read -r l; do printf '%s %s\n' "$EPOCHREALTIME" "$l"; done
}

start_nginx() {
        head -c 3000 /dev/urandom | base64 -w 75 > "$W/www/index.html" # 4 kB
        chmod 755 "$W" "$W/www" # nginx's workers may run as another user
        cat > "$W/nginx.conf" <<EOF
worker_processes 1;
daemon off;
master_process on;
pid $W/nginx.pid;
error_log $W/nginx.error.log warn;
events { worker_connections 4096; }
http {
    # no access log: its writes would count as the host's disk I/O, which
    # is what makes the daemon's disk probe yield
    access_log off;
    client_body_temp_path $W/nginx-tmp/body;
    proxy_temp_path $W/nginx-tmp/proxy;
    fastcgi_temp_path $W/nginx-tmp/fastcgi;
    uwsgi_temp_path $W/nginx-tmp/uwsgi;
    scgi_temp_path $W/nginx-tmp/scgi;
    default_type text/html;
    server {
        listen 127.0.0.1:$PORT backlog=4096;
        root $W/www;
    }
}
EOF
        nginx -p "$W" -c "$W/nginx.conf" > "$W/nginx.out" 2>&1 &
        pids="$pids $!"
        local i
        for i in $(seq 100); do
                (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && return 0
                sleep 0.05
        done
        echo "bench/cost/impact.sh: nginx did not come up on port $PORT" >&2
        cat "$W/nginx.out" "$W/nginx.error.log" >&2 2>/dev/null
        return 1
}

URL=http://127.0.0.1:$PORT/index.html
measure_rate() {
        [ -n "${RATE:-}" ] && return 0
        "$BW" -c "$W/client.conf" run http url="$URL" concurrency="$CONC" duration=5s \
            --nice=0 --format=json > "$W/capacity.json" || {
                echo "bench/cost/impact.sh: capacity run failed" >&2; return 1; }
        CAPACITY=$(python3 -c '
import json, sys
doc = json.load(open(sys.argv[1]))
print([f for f in doc["metrics"] if f["name"] == "benchwatch_http_requests_per_second"][0]["samples"][0]["value"])' \
            "$W/capacity.json")
        RATE=$(awk -v c="$CAPACITY" -v f="$RATE_FRACTION" 'BEGIN { printf "%d", c * f }')
        echo "web: capacity ${CAPACITY%.*} requests/s (closed loop, $CONC connections, 5 s); rate $RATE requests/s"
}

# slice_web FILE / slice_cpu FILE: one slice of the workload, its figures in FILE
slice_web() {
        "$BW" -c "$W/client.conf" run http url="$URL" rate="$RATE" concurrency="$CONC" \
            duration="${SLICE}s" timeout=5s --nice=0 --format=json > "$1" 2> "$1.err"
}
# the oltp workload's server: tests/integration/lib/mariadb.sh's, on a disk
OLTP_OPTS=()
start_mariadb() {
        MARIADB_PORT=${OLTP_PORT:-13317}
        # shellcheck disable=SC1091
        . "$HERE/../../tests/integration/lib/mariadb.sh"
        TMPDIR=/var/tmp mariadb_start || { echo "bench/cost/impact.sh: no MariaDB server for the oltp workload" >&2; return 1; }
        trap cleanup EXIT # mariadb_start set its own
        OLTP_OPTS=(oltp_read_write --db-driver=mysql --mysql-host=127.0.0.1
                   --mysql-port="$MARIADB_PORT" --mysql-user="$MARIADB_USER"
                   --mysql-password="$(cat "$MARIADB_PWFILE")" --mysql-db="$MARIADB_DB"
                   --tables="$OLTP_TABLES" --table-size="$OLTP_TABLE_SIZE")
        sysbench "${OLTP_OPTS[@]}" --threads=2 prepare > "$W/oltp.prepare" 2>&1 ||
                { echo "bench/cost/impact.sh: sysbench prepare failed" >&2; tail "$W/oltp.prepare" >&2; return 1; }
        [ -n "${OLTP_RATE:-}" ] && return 0
        sysbench "${OLTP_OPTS[@]}" --threads="$OLTP_THREADS" --time=10 run > "$W/oltp.capacity" 2>&1 ||
                { echo "bench/cost/impact.sh: oltp capacity run failed" >&2; tail "$W/oltp.capacity" >&2; return 1; }
        local tps
        tps=$(awk '/transactions:/ { gsub(/\(/, "", $3); print $3 }' "$W/oltp.capacity")
        OLTP_RATE=$(awk -v c="$tps" -v f="$OLTP_FRACTION" 'BEGIN { printf "%d", c * f }')
        echo "oltp: capacity ${tps%.*} transactions/s (closed loop, $OLTP_THREADS clients, 10 s); rate $OLTP_RATE/s"
}
slice_oltp() {
        sysbench "${OLTP_OPTS[@]}" --threads="$OLTP_THREADS" --rate="$OLTP_RATE" --time="$SLICE" \
            --histogram=on run > "$1" 2>&1
}
slice_cpu() {
        sysbench cpu --threads="$THREADS" --time="$SLICE" --histogram=on run > "$1" 2>&1
}

# run_block WORKLOAD COND BLOCK: slices back to back for BLOCK seconds
# (and the host's CPU pressure over the block: other work shows there)
psi_cpu() {
        local _ tot=0
        [ -r /proc/pressure/cpu ] && read -r _ _ _ _ tot < /proc/pressure/cpu
        echo "${tot#total=}"
}
run_block() {
        local end=$(( $(now_us) + BLOCK * 1000000 )) i=0 t0 t1 rc f
        local b0=$EPOCHREALTIME p0
        p0=$(psi_cpu)
        while (( ${EPOCHREALTIME/./} + SLICE * 1000000 <= end )); do
                f=$W/slices/$1.$3.$i
                t0=$EPOCHREALTIME
                "slice_$1" "$f"
                rc=$?
                t1=$EPOCHREALTIME
                printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$t0" "$t1" "$rc" "$f" >> "$W/slices.tsv"
                i=$((i + 1))
        done
        printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$b0" "$EPOCHREALTIME" \
            "$(( $(psi_cpu) - p0 ))" >> "$W/blocks.tsv"
}

# counters: the daemon's utime stime cutime cstime (ticks), rchar wchar
# read_bytes write_bytes cancelled_write_bytes, context switches of its threads
counters() {
        awk '{ sub(/^.*\) /, ""); printf "%s %s %s %s ", $12, $13, $14, $15 }' "/proc/$D/stat"
        awk '{ v[$1] = $2 } END { printf "%s %s %s %s %s ", v["rchar:"], v["wchar:"],
                v["read_bytes:"], v["write_bytes:"], v["cancelled_write_bytes:"] }' "/proc/$D/io"
        cat /proc/"$D"/task/*/status 2>/dev/null |
                awk '/^(voluntary|nonvoluntary)_ctxt_switches:/ { s += $2 } END { print s + 0 }'
}

# daemon_start TAG: the daemon, and its counters once it has started (its
# start-up, once per boot for a service, is counted apart from its hours)
daemon_start() {
        rm -f "$W/state/benchwatch.prom" # the counts of one daemon, not of the one before
        exec {logfd}> >(stamp > "$W/daemon.$1.log") # ends at the daemon's exit
        D_T0=$EPOCHREALTIME
        # a simple command, not the bw_daemon function: $! must be the
        # daemon itself (a function in the background is a subshell)
        STATE_DIRECTORY=$W/state CACHE_DIRECTORY=$W/cache "$BW" "${DCONF[@]}" -v daemon --print \
                >&"$logfd" 2>&1 {logfd}>&- &
        D=$!
        exec {logfd}>&-
        local i=0
        until grep -q ' started: ' "$W/daemon.$1.log" 2>/dev/null || [ $i -ge 100 ]; do
                sleep 0.05
                i=$((i + 1))
        done
        D_READY=$EPOCHREALTIME
        D_BASE=$(counters)
}

# daemon_stop TAG: once no probe runs (its children reaped and counted),
# the daemon's counters, then SIGTERM
daemon_stop() {
        local i=0 busy=no
        while [ -n "$(pgrep -P "$D")" ]; do
                i=$((i + 1))
                [ $i -gt 300 ] && { busy=yes; break; }
                sleep 0.1
        done
        local t=$EPOCHREALTIME c
        c=$(counters)
        cp "$W/state/benchwatch.prom" "$W/prom.$1" 2>/dev/null || : > "$W/prom.$1"
        kill -TERM "$D"
        wait "$D"
        D=""
        printf '%s %s %s %s %s %s %s %s\n' "$1" "$D_T0" "$D_READY" "$t" "$D_BASE" "$c" \
            "$(getconf CLK_TCK)" "$busy" | tr ' ' '\t' >> "$W/daemon.tsv"
}

echo "bench/cost/impact.sh: $(nproc) CPUs, $(uname -r); blocks of ${BLOCK}s, $BLOCKS per workload (ABBA...), slices of ${SLICE}s"
echo "daemon: $(grep -c ' plugin ' "$W/check.ours") probes of the built-in configuration:"
grep ' plugin ' "$W/check.ours"
case " $WORKLOADS " in *" web "*) start_nginx && measure_rate || exit 1 ;; esac
case " $WORKLOADS " in *" oltp "*) start_mariadb || exit 1 ;; esac
for wl in $WORKLOADS; do
        for b in $(seq 0 $((BLOCKS - 1))); do
                case $((b % 4)) in 1|2) cond=B ;; *) cond=A ;; esac
                sleep "$SETTLE"
                printf '%s block %d/%d (%s) %s\n' "$wl" $((b + 1)) "$BLOCKS" \
                    "$([ $cond = B ] && echo "with the daemon" || echo "without")" "$(date +%T)"
                [ $cond = B ] && daemon_start "$wl.$b"
                run_block "$wl" "$cond" "$b"
                [ $cond = B ] && daemon_stop "$wl.$b"
        done
done

printf 'RATE=%s\nBLOCK=%s\nBLOCKS=%s\nSLICE=%s\nTHREADS=%s\nOLTP_RATE=%s\n' "${RATE:-0}" "$BLOCK" \
    "$BLOCKS" "$SLICE" "$THREADS" "${OLTP_RATE:-0}" > "$W/params"
analyze
