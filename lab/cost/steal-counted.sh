#!/bin/bash
# lab/cost/steal-counted.sh — the share of the built-in disk probe's runs that
# count towards its reference, under two rules, and the regressions each
# daemon enters meanwhile (issue 28, part 3).
#
# Two daemons run the built-in disk probe's settings (randread 16k, queue
# depth 1, a 1 GiB file, 5 s; every 6 s instead of 30 min, duty_cycle 1,
# the rest shipped) in alternating blocks of BLOCK runs each (A B A B...,
# interleaved: the host's drift hits both alike), each with its own state
# directory kept across its blocks and the test file shared:
#   before  BEFORE (a benchwatch built without the change): a run with more
#           than max_steal (10%) of the host's CPU time stolen is judged
#           but not counted;
#   after   AFTER (this tree): a disk run is not counted when its own
#           threads waited for a CPU more than max_run_delay (10%) of the
#           run, or others used more than max_others_cpu of the CPU.
# reference_runs = 10 so that each daemon judges after ten counted runs
# (the shipped 100 would give no verdict in a run this short): the
# regressions entered are false alarms (nothing on the host was changed).
# Each run's figures are taken from the daemon's textfile as it changes;
# then lab/cost/steal-counted.py sets the after daemon's judged disk figures
# (its history) beside each run's steal.
#
# usage: lab/cost/steal-counted.sh [BLOCKS] [BLOCK]   (env: BEFORE, AFTER)
# Run it under `flock /tmp/bw-measure.lock`.
set -u
BLOCKS=${1:-4}
BLOCK=${2:-6}
HERE=$(cd "$(dirname "$0")" && pwd)
AFTER=${AFTER:-$HERE/../../benchwatch}
AFTER_PLUGINS=${AFTER_PLUGINS:-$HERE/../../plugins/.libs}
BEFORE=${BEFORE:?set BEFORE to a benchwatch without the change (and BEFORE_PLUGINS)}
BEFORE_PLUGINS=${BEFORE_PLUGINS:-$(dirname "$BEFORE")/plugins}
W=$(mktemp -d /var/tmp/bw-steal.XXXXXX) || exit 1
dpid=""
cleanup() {
        [ -n "$dpid" ] && kill "$dpid" 2>/dev/null && wait "$dpid" 2>/dev/null
        [ -n "${KEEP:-}" ] && echo "data kept in $W" >&2 || rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
mkdir -p "$W/cache"
for who in before after; do
        mkdir -p "$W/$who"
        cat > "$W/$who/bw.conf" <<EOF
[daemon]
state_dir = $W/$who/state
cache_dir = $W/cache
first_splay = 0
splay = 0
duty_cycle = 1

[probe disk]
plugin = disk
size = 1G
duration = 5s
interval = 6s

[regression]
reference_runs = 10

[journal]
enabled = no

[textfile]
path = $W/$who/bw.prom
EOF
done

# block WHO BIN PLUGINS: BLOCK runs of that daemon, a line per run
block() {
        local who=$1 seen="" n=0 ts
        BENCHWATCH_PLUGIN_DIR=$3 "$2" -c "$W/$who/bw.conf" daemon --verbose \
                >> "$W/$who/out" 2>> "$W/$who/err" &
        dpid=$!
        while [ "$n" -lt "$BLOCK" ] && kill -0 "$dpid" 2>/dev/null; do
                sleep 0.5
                ts=$(grep -F 'benchwatch_probe_last_run_timestamp_seconds{probe="disk"}' \
                        "$W/$who/bw.prom" 2>/dev/null | awk '{ print $2 }')
                [ -n "$ts" ] && [ "$ts" != "$seen" ] || continue
                seen=$ts
                n=$((n + 1))
                awk -v who="$who" -v ts="$ts" '
                        function v(k) { return (k in f) ? f[k] : "NA" }
                        /^benchwatch_/ { split($1, a, "{"); if (!(a[1] in f)) f[a[1]] = $2 }
                        END { printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", who, ts,
                                v("benchwatch_probe_success"), v("benchwatch_probe_counted"),
                                v("benchwatch_probe_steal_ratio"), v("benchwatch_probe_run_delay_ratio"),
                                v("benchwatch_probe_others_cpu_ratio"), v("benchwatch_disk_iops") }' \
                        "$W/$who/bw.prom" >> "$W/runs.tsv"
        done
        kill "$dpid" 2>/dev/null
        wait "$dpid" 2>/dev/null
        dpid=""
}

for b in $(seq "$BLOCKS"); do
        if [ $((b % 2)) = 1 ]; then
                block before "$BEFORE" "$BEFORE_PLUGINS"
                block after "$AFTER" "$AFTER_PLUGINS"
        else
                block after "$AFTER" "$AFTER_PLUGINS"
                block before "$BEFORE" "$BEFORE_PLUGINS"
        fi
        echo "block $b of $BLOCKS done" >&2
done

echo "who     runs ok counted  share   steal>10%  run_delay>10%  steal med  run_delay med  others med  regressions entered"
for who in before after; do
        # regressions logged: the verdict line, or a build's before it
        awk -F'\t' -v who="$who" -v reg="$(grep -cE "entered a regression|probe .*: .* since [0-9:]+, against the reference" "$W/$who/err")" '
                function med(a, n,   i, j, t) {
                        for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) {
                                t = a[j]; a[j] = a[j-1]; a[j-1] = t }
                        return n ? (n % 2 ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2) : 0 }
                $1 == who { n++; ok += $3 == 1; c += $4 == 1
                            s[n] = $5; st += $5 > 0.10
                            if ($6 != "NA") { d[++nd] = $6; dl += $6 > 0.10 }
                            if ($7 != "NA") o[++no] = $7 }
                END { printf "%-7s %4d %2d %7d  %4.0f%%   %9d  %13s  %8.1f%%  %12s  %10s  %d\n", who, n, ok, c,
                        n ? 100 * c / n : 0, st, nd ? dl : "-", 100 * med(s, n),
                        nd ? sprintf("%.1f%%", 100 * med(d, nd)) : "-",
                        no ? sprintf("%.1f%%", 100 * med(o, no)) : "-", reg }' "$W/runs.tsv"
done
echo "(steal>10%: runs the before rule excludes; run_delay>10%: runs the after rule excludes)"
echo
BENCHWATCH_PLUGIN_DIR=$AFTER_PLUGINS "$AFTER" -c "$W/after/bw.conf" history disk --format=csv \
        > "$W/after/history.csv" && python3 "$HERE/steal-counted.py" "$W/runs.tsv" "$W/after/history.csv"
