#!/bin/bash
# lab/cost/contention.sh — which figure of a CPU-bound probe a co-tenant moves
# less: the classic rate per wall-clock second, or the same work per second
# of the probe's own CPU time (issue 28, part 2; baseline.h judges the
# CPU-time one when a run has both).
#
# Every CPU-bound probe of the built-in configuration (cpu, threads, memory
# dram, memory latency, and memory's sysbench mode), each run at the
# daemon's nice (10), once per condition per round, conditions in a
# rotated order each round (interleaved: a drift of the machine hits all
# alike); both figures come from the same run (paired):
#   quiet   nothing started by us (other sessions of the host may run)
#   cpu20   stress-ng --cpu 1 --cpu-load 20 (one of the CPUs, 20% busy)
#   cpu40   stress-ng --cpu 1 --cpu-load 40
#   cpu     sysbench cpu --threads=1 (one CPU taken: others' share ~50%,
#           the daemon's yield_cpu limit)
#   web     nginx (1 worker, a 4 kB file) driven open loop at RATE
#           requests/s by `benchwatch run http rate=` (at nice 0)
#   io      fio randread 16k qd1 O_DIRECT on a file under /var/tmp: the
#           hypervisor serving it shows as steal
# Around each probe run the host's /proc/stat (all CPUs and each one) is
# read, and the run's own CPU time (bash's `times` of the benchwatch
# process and its child): contention.py turns that into others' share of
# the CPU (the yield monitor's definition, yield.c) and the steal share.
#
# Printed by lab/cost/contention.py: per probe and condition the coefficient
# of variation of each figure with its 90% bootstrap interval, and the
# median change against quiet; the CPU-time figure's error against others'
# share; whether stolen time is in the thread CPU time.
#
# usage: lab/cost/contention.sh [ROUNDS]   (env: BW, RATE, CONDITIONS, PROBES, PORT, KEEP)
# The steal check alone: CONDITIONS="quiet io" PROBES=cpu PIN=0 lab/cost/contention.sh 8
# (PIN=N: probe and neighbour both on CPU N, so the steal the neighbour's
# I/O makes lands on the vCPU the probe runs on)
# Run it under `flock /tmp/bw-measure.lock`.
set -u
ROUNDS=${1:-${ROUNDS:-6}}
HERE=$(cd "$(dirname "$0")" && pwd)
BW=${BW:-$HERE/../../benchwatch}
export BENCHWATCH_PLUGIN_DIR=${BENCHWATCH_PLUGIN_DIR:-$HERE/../../plugins/.libs}
CONDITIONS=${CONDITIONS:-quiet cpu20 cpu40 cpu web io}
PORT=${PORT:-18391}
PIN=${PIN:-}
on_cpu=()
[ -n "$PIN" ] && on_cpu=(taskset -c "$PIN")
RATE=${RATE:-2000}
command -v nginx >/dev/null || PATH=$PATH:/usr/sbin
for t in stress-ng sysbench fio nginx python3; do
        command -v "$t" >/dev/null ||
                { echo "lab/cost/contention.sh: needs $t (tools/install-deps)" >&2; exit 2; }
done
[ -x "$BW" ] || { echo "lab/cost/contention.sh: no benchwatch at $BW (set BW)" >&2; exit 2; }

W=$(mktemp -d /var/tmp/bw-contention.XXXXXX) || exit 1
pids=""
neighbour=""
cleanup() {
        [ -n "$neighbour" ] && kill "$neighbour" 2>/dev/null && wait "$neighbour" 2>/dev/null
        for p in $pids; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
        [ -n "${KEEP:-}" ] && echo "data kept in $W" >&2 || rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
mkdir -p "$W/runs" "$W/www" "$W/nginx-tmp" "$W/state" "$W/cache"
printf '[daemon]\nstate_dir = %s/state\ncache_dir = %s/cache\n' "$W" "$W" > "$W/probe.conf"
printf '[daemon]\nnice = 0\nstate_dir = %s/state\ncache_dir = %s/cache\n' "$W" "$W" > "$W/client.conf"

start_nginx() {
        head -c 3000 /dev/urandom | base64 -w 75 > "$W/www/index.html"
        chmod 755 "$W" "$W/www"
        cat > "$W/nginx.conf" <<EOF
worker_processes 1;
daemon off;
pid $W/nginx.pid;
error_log $W/nginx.error.log warn;
events { worker_connections 4096; }
http {
    access_log off;
    client_body_temp_path $W/nginx-tmp/body;
    proxy_temp_path $W/nginx-tmp/proxy;
    fastcgi_temp_path $W/nginx-tmp/fastcgi;
    uwsgi_temp_path $W/nginx-tmp/uwsgi;
    scgi_temp_path $W/nginx-tmp/scgi;
    server { listen 127.0.0.1:$PORT backlog=4096; root $W/www; }
}
EOF
        nginx -p "$W" -c "$W/nginx.conf" > "$W/nginx.out" 2>&1 &
        pids="$pids $!"
        local i
        for i in $(seq 100); do
                (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && return 0
                sleep 0.05
        done
        echo "lab/cost/contention.sh: nginx did not come up on port $PORT" >&2
        return 1
}

# start_neighbour COND: the condition's co-tenant in the background
start_neighbour() {
        case $1 in
        quiet) return 0 ;;
        cpu20) stress-ng --cpu 1 --cpu-load 20 --timeout 120 -q & ;;
        cpu40) stress-ng --cpu 1 --cpu-load 40 --timeout 120 -q & ;;
        cpu) "${on_cpu[@]}" sysbench cpu --threads=1 --time=120 run > /dev/null & ;;
        web) "$BW" -c "$W/client.conf" run http url="http://127.0.0.1:$PORT/index.html" \
                rate="$RATE" concurrency=8 duration=120s --nice=0 > /dev/null 2>&1 & ;;
        io) "${on_cpu[@]}" fio --name=steal --filename="$W/fio.dat" --size=256M --rw=randread --bs=16k \
                --iodepth=1 --direct=1 --time_based --runtime=120 > /dev/null 2>&1 & ;;
        esac
        neighbour=$!
        sleep 1
}
stop_neighbour() {
        [ -n "$neighbour" ] || return 0
        kill "$neighbour" 2>/dev/null
        wait "$neighbour" 2>/dev/null
        neighbour=""
}

# probe NAME ARGS...: the built-in configuration's CPU-bound probes
probe_args() {
        case $1 in
        cpu) echo "cpu duration=2s" ;;
        threads) echo "threads duration=2s" ;;
        block) echo "memory duration=2s" ;;
        dram) echo "memory mode=dram duration=2s" ;;
        latency) echo "memory mode=latency duration=2s" ;;
        esac
}
PROBES=${PROBES:-cpu threads block dram latency}

stat_cpu() { grep '^cpu' /proc/stat | tr '\n' ';'; }

case " $CONDITIONS " in *" web "*) start_nginx || exit 1 ;; esac
case " $CONDITIONS " in *" io "*)
        fio --name=lay --filename="$W/fio.dat" --size=256M --rw=write --bs=1M \
            --direct=1 > /dev/null 2>&1 || { echo "lab/cost/contention.sh: fio failed" >&2; exit 1; } ;;
esac

echo "round	cond	probe	file	stat_before	stat_after	cpu_s" > "$W/runs.tsv"
read -r -a conds <<< "$CONDITIONS"
n=0
for r in $(seq "$ROUNDS"); do
        for k in "${!conds[@]}"; do
                c=${conds[$(( (k + r) % ${#conds[@]} ))]}
                start_neighbour "$c"
                for p in $PROBES; do
                        f=$W/runs/$n.prom
                        s0=$(stat_cpu)
                        # shellcheck disable=SC2046
                        t=$( { TIMEFORMAT='%U %S'; time "${on_cpu[@]}" "$BW" -c "$W/probe.conf" run \
                                $(probe_args "$p") --format=prometheus > "$f" 2> "$f.err"; } 2>&1 )
                        s1=$(stat_cpu)
                        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$r" "$c" "$p" "$f" "$s0" "$s1" \
                            "$(echo "$t" | awk '{ print $1 + $2 }')" >> "$W/runs.tsv"
                        n=$((n + 1))
                done
                stop_neighbour
        done
        echo "round $r of $ROUNDS done" >&2
done
python3 "$HERE/contention.py" "$W/runs.tsv"
