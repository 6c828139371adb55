#!/bin/bash
# What an idle benchwatch daemon costs: starts it with the watchdog on (as
# under systemd) and two probes on long intervals, lets them run once, then
# samples its CPU time (utime+stime of /proc/PID/stat) and resident set
# (VmRSS, RssAnon, RssFile of /proc/PID/status) every minute.
# Usage: bench/cost/idle-cost.sh [BUILD_DIR [MINUTES [WATCHDOG_SEC]]]
#        (default: the current directory, 10 minutes, 30 s = WatchdogSec=1min)
set -eu
build=$(cd "${1:-.}" && pwd)
minutes=${2:-10}
wd=${3:-30}
[ -x "$build/benchwatch" ] || { echo "no benchwatch in $build" >&2; exit 2; }
here=$(cd "$(dirname "$0")/../.." && pwd)
T=$(mktemp -d /tmp/bw-idle.XXXXXX)
pids=""
trap 'for p in $pids; do kill $p 2>/dev/null || true; done; wait; rm -rf "$T"' EXIT
cat > "$T/idle.conf" <<EOF
[daemon]
splay = 0
max_psi_cpu = 0
max_psi_io = 0
max_psi_memory = 0
cache_dir = $T/cache
state_dir = $T/state
[probe cpu]
plugin = cpu
interval = 24h
duration = 2s
[probe mem]
plugin = memory
interval = 20h
[textfile]
path = $T/bw.prom
EOF
python3 "$here/tests/integration/lib/notify_listen.py" "$T/notify.sock" "$T/notify.log" &
pids="$pids $!"
sleep 0.5
BENCHWATCH_PLUGIN_DIR=$build/plugins/.libs NOTIFY_SOCKET=$T/notify.sock \
        WATCHDOG_USEC=$((wd * 1000000)) "$build/benchwatch" -c "$T/idle.conf" daemon \
        > /dev/null 2> "$T/err" &
D=$!
pids="$D $pids"
sleep 60 # the two probes run once (splay 0, duty cycle), then nothing is due
hz=$(getconf CLK_TCK)
sample() {
        local f
        read -r -a f < <(sed 's/^.*) //' "/proc/$D/stat")
        echo "$(date +%s) $((f[11] + f[12])) $(awk '/^(VmRSS|RssAnon|RssFile):/ {printf "%s ", $2}' "/proc/$D/status")"
}
first=$(sample)
echo "t cpu_ticks VmRSS_kB RssAnon_kB RssFile_kB"
echo "$first"
for _ in $(seq "$minutes"); do
        sleep 60
        last=$(sample)
        echo "$last"
done
set -- $first
t0=$1 c0=$2
set -- $last
pings=$(grep -c WATCHDOG=1 "$T/notify.log" || true)
echo "idle for $(($1 - t0)) s: CPU $(( ($2 - c0) * 1000 / hz )) ms, VmRSS $3 kB (anon $4 kB, file $5 kB), $pings watchdog pings in all"
