#!/bin/bash
# bench/cost/footprint.sh — the daemon's own memory footprint: its resident
# anonymous memory (RssAnon of /proc/PID/status) while it runs the built-in
# configuration itself (no configuration file; private state and cache
# directories through systemd's $STATE_DIRECTORY and $CACHE_DIRECTORY),
# sampled every 30 s for MINUTES, with its growth from the first sample
# after the first pass of every probe to the last; and the largest resident
# set (VmHWM) of a probe process (`benchwatch __child`) per built-in probe.
# http and mysql need servers and are not measured.
# Usage: bench/cost/footprint.sh [BUILD_DIR [MINUTES]]   (default: ., 3 minutes)
set -eu
build=$(cd "${1:-.}" && pwd)
minutes=${2:-3}
[ -x "$build/benchwatch" ] || { echo "no benchwatch in $build" >&2; exit 2; }
export BENCHWATCH_PLUGIN_DIR=$build/plugins/.libs
T=$(mktemp -d /var/tmp/bw-mem.XXXXXX) # a disk, for the disk probe
pids=""
trap 'for p in $pids; do kill $p 2>/dev/null || true; done; wait; "$bw" cleanup >/dev/null 2>&1 || true; rm -rf "$T"' EXIT
export STATE_DIRECTORY=$T/state CACHE_DIRECTORY=$T/cache
bw=$build/benchwatch
mkdir -p "$T/state" "$T/cache"
"$bw" check-config > "$T/check" || exit 2
grep -q '<built-in>' "$T/check" ||
        { echo "bench/cost/footprint.sh: a configuration file is installed; this measures the built-in configuration" >&2; exit 2; }
probes=$(awk '$2 == "plugin" { print $1 }' "$T/check")
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
for probe in $probes; do
        printf '  %-15s %6s kB\n' "$probe" "$(peak_of "$bw" run "$probe")"
done
"$bw" cleanup > /dev/null 2>&1 || true

"$bw" -v daemon > "$T/log" 2>&1 &
D=$!
pids="$D"
echo "daemon (built-in configuration), every 30 s for $minutes min: RssAnon VmRSS (kB), probe runs started so far"
max=0 first=""
for _ in $(seq $((minutes * 2))); do
        sleep 30
        kill -0 "$D" 2>/dev/null || { echo "the daemon ended:" >&2; tail "$T/log" >&2; exit 1; }
        a=$(kb "$D" RssAnon)
        n=$(grep -c "': started (pid" "$T/log" || true)
        # the first sample once every probe has started a run and no run
        # is under way (the daemon's journal lines name no ends)
        if [ -z "$first" ] && [ -z "$(pgrep -P "$D")" ] &&
           [ "$(grep -o "probe '[^']*': started (pid" "$T/log" | sort -u | wc -l)" -ge \
             "$(echo "$probes" | wc -w)" ]; then
                first=$a
        fi
        [ "$a" -gt "$max" ] && max=$a
        echo "  $(date +%T)  $a  $(kb "$D" VmRSS)  $n"
done
echo "daemon RssAnon at the end: $a kB, largest sample: $max kB," \
     "growth since the first pass: $([ -n "$first" ] && echo "$((a - first)) kB" || echo "- (the first pass did not end)")"
