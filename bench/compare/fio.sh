#!/bin/bash
# bench/compare/fio.sh — benchwatch's disk and seqread probes side by side with fio,
# sysbench fileio and hdparm -Tt on the same file and device.
#
# The disk plugin claims to reproduce fio (libaio, O_DIRECT) and sysbench
# fileio (synchronous threads, --file-extra-flags=direct); this measures
# that claim.  Random 16k reads of one test file at concurrency 1, 8 and
# 32, once as threads (benchwatch threads=N iodepth=1, fio numjobs=N,
# sysbench --threads=N) and once as queue depth (benchwatch iodepth=N,
# fio iodepth=N, sysbench --file-io-mode=async --file-async-backlog=N),
# the tools interleaved round by round so drift on a shared machine hits
# them alike; the median of the rounds is reported.  fio runs with its
# random map (every block once a pass, its default and benchwatch's
# randommap=yes), randrepeat=0 (a new order each run, as benchwatch) and
# lat_percentiles=1 (its p50 then covers submission + completion, as
# benchwatch's does); sysbench draws with replacement (randommap=no).  CPU time per I/O is user+system time of the whole
# process (from /usr/bin/time) over the I/Os it did.  Then seqread against
# `hdparm -Tt` on a read-only loop device (direct-io, so "disk" reads do not
# come from the backing file's page cache).
#
# fio runs twice in every round, so each point also shows how far fio
# lands from itself in the same conditions: the spread (lowest and highest
# of the rounds' ratios) of fio/fio beside that of benchwatch/fio.  On a
# virtual disk a tool's IOPS at high concurrency moves with where its
# buffers land in memory and which CPU its threads run on; a benchwatch/fio
# median inside fio/fio's spread is a difference fio cannot tell from itself.
#
# Targets: IOPS within 5% of fio, p50 within 10% of fio, CPU/I/O <= fio's.
# Usage: bench/compare/fio.sh   (env: BENCHWATCH, BENCH_DIR, SIZE, BS, DURATION,
#                        ROUNDS, LEVELS; KEEP=1 keeps the test file;
#                        CPUS=LIST runs the randread tools under taskset -c LIST)
set -u
here=$(cd "$(dirname "$0")" && pwd)
BENCHWATCH=${BENCHWATCH:-benchwatch}
DIR=${BENCH_DIR:-/var/tmp/benchwatch-bench}
SIZE=${SIZE:-1G}
BS=${BS:-16k}
DURATION=${DURATION:-5}
ROUNDS=${ROUNDS:-3}
LEVELS=${LEVELS:-"1 8 32"}
FILE=$DIR/disk.dat
LOOP=""
PIN=()
[ -n "${CPUS:-}" ] && PIN=(taskset -c "$CPUS")

for c in fio sysbench hdparm python3 /usr/bin/time; do
        command -v "$c" > /dev/null || { echo "bench: $c not found" >&2; exit 1; }
done
mkdir -p "$DIR/sb" "$DIR/out" || exit 1
rm -f "$DIR/out/results" "$DIR/out/seq"
# the same CPU and I/O priority as fio and sysbench get (nice 0, best-effort 4)
printf '[daemon]\nnice = 0\nioprio_level = 4\n' > "$DIR/empty.conf"
cleanup() {
        [ -n "$LOOP" ] && losetup -d "$LOOP"
        (cd "$DIR/sb" && sysbench fileio --file-num=1 --file-total-size="$SIZE" cleanup > /dev/null)
        [ -n "${KEEP:-}" ] || rm -f "$FILE"
        rm -rf "$DIR/sb" "$DIR/out" "$DIR/empty.conf"
        rmdir "$DIR" 2>/dev/null
}
trap cleanup EXIT
bw() { "$BENCHWATCH" -c "$DIR/empty.conf" "$@"; }

bytes() { python3 -c "import sys; s=sys.argv[1]; m={'k':1<<10,'M':1<<20,'G':1<<30}; print(int(s[:-1])*m[s[-1]] if s[-1] in m else int(s))" "$1"; }
BS_BYTES=$(bytes "$BS")

# Each runner writes "IOPS P50_SECONDS IOS CPU_SECONDS" to stdout.
cpu_of() { awk '{ print $1 + $2 }' "$1"; }

run_bw() { # SERIES N
        local t=1 d=1
        [ "$1" = threads ] && t=$2 || d=$2
        "${PIN[@]}" /usr/bin/time -f '%U %S' -o "$DIR/out/time" \
                "$BENCHWATCH" -c "$DIR/empty.conf" run disk "path=$FILE" size="$SIZE" \
                block_size="$BS" threads=$t iodepth=$d duration="${DURATION}s" \
                --format=json > "$DIR/out/bw.json" || { echo "0 0 1 0"; return; }
        python3 - "$DIR/out/bw.json" "$(cpu_of "$DIR/out/time")" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
m = {x["name"]: x["samples"][0] for x in r["metrics"]}
s = m["benchwatch_disk_latency_seconds"]
print(m["benchwatch_disk_iops"]["value"], s["quantiles"]["0.5"], s["count"], sys.argv[2])
PY
}

run_fio() { # SERIES N
        local t=1 d=1
        [ "$1" = threads ] && t=$2 || d=$2
        "${PIN[@]}" /usr/bin/time -f '%U %S' -o "$DIR/out/time" \
                fio --name=bench --filename="$FILE" --size="$SIZE" --rw=randread \
                --bs="$BS" --direct=1 --ioengine=libaio --iodepth=$d --numjobs=$t \
                --thread --group_reporting --time_based --runtime="$DURATION" \
                --randrepeat=0 --lat_percentiles=1 \
                --output-format=json > "$DIR/out/fio.json" 2> /dev/null || { echo "0 0 1 0"; return; }
        python3 - "$DIR/out/fio.json" "$(cpu_of "$DIR/out/time")" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]["read"]
print(j["iops"], j["lat_ns"]["percentile"]["50.000000"] / 1e9, j["total_ios"], sys.argv[2])
PY
}

run_sb() { # SERIES N
        local args=(--threads=1 --file-io-mode=sync)
        [ "$1" = threads ] && args=(--threads="$2" --file-io-mode=sync)
        [ "$1" = iodepth ] && args=(--threads=1 --file-io-mode=async --file-async-backlog="$2")
        (cd "$DIR/sb" && "${PIN[@]}" /usr/bin/time -f '%U %S' -o "$DIR/out/time" \
                sysbench fileio --file-num=1 --file-total-size="$SIZE" \
                --file-test-mode=rndrd --file-block-size="$BS_BYTES" \
                --file-extra-flags=direct --file-fsync-freq=0 --time="$DURATION" \
                --percentile=50 "${args[@]}" run > "$DIR/out/sb.txt" 2>&1) || { echo "0 0 1 0"; return; }
        awk -v cpu="$(cpu_of "$DIR/out/time")" -v t="$DURATION" '
                /reads\/s:/ { iops = $2 }
                /50th percentile:/ { p50 = $3 / 1000 }
                /total number of events:/ { n = $5 }
                END { print iops, p50, n, cpu }' "$DIR/out/sb.txt"
}

. "$here/../lib/stats.sh"

echo "== preparing: benchwatch test file $FILE ($SIZE), sysbench's file"
bw run disk "path=$FILE" size="$SIZE" requests=1 > /dev/null || { echo "cannot create $FILE" >&2; exit 1; }
(cd "$DIR/sb" && sysbench fileio --file-num=1 --file-total-size="$SIZE" prepare > /dev/null) || exit 1

for series in threads iodepth; do
        for round in $(seq "$ROUNDS"); do
                for n in $LEVELS; do
                        # the order rotates every round, so drift hits all alike
                        tools=(bw fio sb fio2)
                        for k in 0 1 2 3; do
                                tool=${tools[$(( (round + k) % 4 ))]}
                                echo "$series $n $tool $round $(run_${tool%2} $series $n)" >> "$DIR/out/results"
                        done
                done
                echo "   $series round $round done" >&2
        done
done

printf '\nrandread bs=%s, %ss per run, median of %s rounds (CPU/IO in microseconds)\n' "$BS" "$DURATION" "$ROUNDS"
printf '%-8s %3s | %9s %9s %9s | %8s %8s | %11s %11s | %7s %7s %7s | %6s %6s %6s | %6s %6s %6s\n' series N "bw IOPS" "fio IOPS" "sb IOPS" \
        "IOPS/fio" "p50/fio" "bw/fio" "fio/fio" "p50 bw" "p50 fio" "p50 sb" "cpu bw" "cpu fio" "cpu sb" "CV bw" "CV fio" "CV sb"
for series in threads iodepth; do
        for n in $LEVELS; do
                declare -A v=()
                for tool in bw fio sb; do
                        rows=$(awk -v s=$series -v n=$n -v t=$tool '$1 == s && $2 == n && $3 == t' "$DIR/out/results")
                        v[$tool.iops]=$(echo "$rows" | awk '{ print $5 }' | median)
                        v[$tool.p50]=$(echo "$rows" | awk '{ print $6 * 1e6 }' | median)
                        v[$tool.cpu]=$(echo "$rows" | awk '{ print ($7 > 0 ? $8 / $7 * 1e6 : 0) }' | median)
                        v[$tool.cv]=$(echo "$rows" | awk '{ print $5 }' | cv)
                done
                # ratios of the runs made side by side in one round, median
                # over the rounds: the device's drift between rounds cancels
                ratios() { # FIELD TOOL: TOOL over fio in each round
                        awk -v s=$series -v n=$n -v f=$1 -v t=$2 '$1 == s && $2 == n && $3 == t { b[$4] = $f }
                        $1 == s && $2 == n && $3 == "fio" && $f > 0 { r[$4] = $f }
                        END { for (k in b) if (k in r) print b[k] / r[k] }' "$DIR/out/results"; }
                spread() { ratios 5 "$1" | sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.2f-%.2f", lo, hi }'; }
                v[iops.ratio]=$(ratios 5 bw | median)
                v[p50.ratio]=$(ratios 6 bw | median)
                awk -v s=$series -v n=$n -v ir="${v[iops.ratio]}" -v pr="${v[p50.ratio]}" -v bi="${v[bw.iops]}" -v fi="${v[fio.iops]}" -v si="${v[sb.iops]}" \
                    -v bs="$(spread bw)" -v fs="$(spread fio2)" \
                    -v bp="${v[bw.p50]}" -v fp="${v[fio.p50]}" -v sp="${v[sb.p50]}" \
                    -v bc="${v[bw.cpu]}" -v fc="${v[fio.cpu]}" -v sc="${v[sb.cpu]}" \
                    -v bv="${v[bw.cv]}" -v fv="${v[fio.cv]}" -v sv="${v[sb.cv]}" 'BEGIN {
                        printf "%-8s %3d | %9.0f %9.0f %9.0f | %8.3f %8.3f | %11s %11s | %7.1f %7.1f %7.1f | %6.2f %6.2f %6.2f | %5.1f%% %5.1f%% %5.1f%%\n",
                                s, n, bi, fi, si, ir, pr, bs, fs, bp, fp, sp, bc, fc, sc, bv, fv, sv }'
                unset v
        done
done
echo "(p50 in microseconds; IOPS/fio and p50/fio: median over the rounds of benchwatch over fio in the same round;"
echo " bw/fio, fio/fio: lowest-highest IOPS ratio of the rounds, fio's second run over its first in the same round;"
echo " CV: each tool's run-to-run coefficient of variation of IOPS over the rounds, fio's first runs)"

echo
echo "== seqread vs hdparm -Tt on a read-only loop device over $FILE"
if [ "$(id -u)" != 0 ] || ! LOOP=$(losetup --find --show --read-only --direct-io=on "$FILE" 2>/dev/null); then
        echo "   skipped: needs root and a free loop device"
        exit 0
fi
run_hd() { hdparm -Tt "$LOOP" 2>/dev/null | awk '/cached reads/ { c = $(NF-1) } /disk reads/ { d = $(NF-1) } END { print c, d }'; }
run_sq() {
        bw run seqread "path=$LOOP" --format=json > "$DIR/out/sq.json" || { echo "0 0"; return; }
        python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
v = {s["labels"]["source"]: s["value"] / 1048576 for m in r["metrics"] if m["name"] == "benchwatch_seqread_bytes_per_second" for s in m["samples"]}
print(v["cache"], v["disk"])' "$DIR/out/sq.json"
}
# The virtual disk's speed drifts by 2-4x within minutes here (the host
# caches it), so the two alternate which goes first and each round's pair
# gives one ratio; the median of those is the figure.
for round in $(seq "$ROUNDS"); do
        if [ $((round % 2)) = 1 ]; then hd=$(run_hd); sq=$(run_sq); else sq=$(run_sq); hd=$(run_hd); fi
        echo "$hd $sq" >> "$DIR/out/seq"
done
for f in "1 3 cached reads" "2 4 disk reads  "; do
        set -- $f
        h=$(awk -v f=$1 '{ print $f }' "$DIR/out/seq" | median)
        b=$(awk -v f=$2 '{ print $f }' "$DIR/out/seq" | median)
        r=$(awk -v h=$1 -v b=$2 '$h > 0 { print $b / $h }' "$DIR/out/seq" | median)
        printf "   %s %s: hdparm %8.0f MiB/s  benchwatch %8.0f MiB/s  ratio %.3f\n" "$3" "$4" "$h" "$b" "$r"
done
echo "   (medians of $ROUNDS rounds, the ratio of each round's pair; hdparm's MB is MiB)"
