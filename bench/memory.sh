#!/bin/bash
# What benchwatch costs in memory: the daemon's resident anonymous memory
# (RssAnon of /proc/PID/status) while it runs the built-in configuration's
# probes (cpu, threads, memory, a small disk probe; private directories),
# sampled every 30 s for MINUTES, and the largest resident set (VmHWM) of a
# probe process (`benchwatch __child`) per plugin, run with the built-in
# probes' parameters.  http and mysql need servers and are not measured.
# Usage: bench/memory.sh [BUILD_DIR [MINUTES]]   (default: ., 3 minutes)
set -eu
build=$(cd "${1:-.}" && pwd)
minutes=${2:-3}
[ -x "$build/benchwatch" ] || { echo "no benchwatch in $build" >&2; exit 2; }
export BENCHWATCH_PLUGIN_DIR=$build/plugins/.libs
T=$(mktemp -d /tmp/bw-mem.XXXXXX)
pids=""
trap 'for p in $pids; do kill $p 2>/dev/null || true; done; wait; rm -rf "$T"' EXIT
# the built-in configuration, with its directories in $T
cat > "$T/bw.conf" <<EOF
[daemon]
interval = 5min
timeout = 1min
cache_dir = $T/cache
state_dir = $T/state
[probe cpu]
plugin = cpu
interval = 2min
duration = 5s
[probe threads]
plugin = threads
interval = 3min
duration = 5s
[probe memory]
plugin = memory
interval = 5min
duration = 5s
[probe disk]
plugin = disk
interval = 10min
size = 64M
duration = 5s
[textfile]
path = $T/bw.prom
[journal]
enabled = no
EOF
kb() { awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/status" 2>/dev/null; }

# peak_of CMD...: runs CMD and prints the largest VmHWM (kB) of its probe
# process, polled every 50 ms until it ends
peak_of() {
        "$@" > /dev/null 2>&1 &
        local p=$! c="" peak=0 v
        while kill -0 "$p" 2>/dev/null; do
                [ -z "$c" ] && c=$(pgrep -P "$p" -f __child || true)
                v=$([ -n "$c" ] && kb "$c" VmHWM || true)
                [ -n "$v" ] && [ "$v" -gt "$peak" ] && peak=$v
                sleep 0.05
        done
        wait "$p" || true
        echo "$peak"
}

echo "largest resident set of a probe process (VmHWM), per plugin:"
for probe in cpu threads memory disk; do
        printf '  %-8s %6s kB\n' "$probe" "$(peak_of "$build/benchwatch" -c "$T/bw.conf" run "$probe")"
done
printf '  %-8s %6s kB\n' seqread "$(peak_of "$build/benchwatch" -c "$T/bw.conf" run seqread size=64M)"
"$build/benchwatch" -c "$T/bw.conf" cleanup > /dev/null 2>&1 || true

"$build/benchwatch" -c "$T/bw.conf" daemon > /dev/null 2> "$T/err" &
D=$!
pids="$D"
echo "daemon (built-in probes), every 30 s for $minutes min: RssAnon VmRSS (kB)"
max=0
for _ in $(seq $((minutes * 2))); do
        sleep 30
        a=$(kb "$D" RssAnon)
        [ "$a" -gt "$max" ] && max=$a
        echo "  $(date +%T)  $a  $(kb "$D" VmRSS)"
done
echo "daemon RssAnon at the end: $a kB, largest sample: $max kB"
