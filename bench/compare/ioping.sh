#!/bin/bash
# bench/compare/ioping.sh — benchwatch's disklat probe side by side with `ioping -D`,
# then its cost and noise side by side with the saturating disk probe.
#
# The disklat plugin claims to reproduce ioping -D: one 4 KiB O_DIRECT read
# at a random offset of a file, at queue depth 1, every 1/RATE seconds,
# timed from the pread to its return, the first read left out.  Part 1
# measures that claim: on the same test file, at the same rate and for the
# same time, benchwatch and ioping take turns round by round (the order
# alternating, so drift on a shared machine hits both alike); ioping runs
# twice in a round, so the spread of ioping/ioping shows how far ioping
# lands from itself.  ioping's per-request times come from its raw output
# (-p 1: one line per request, its time in column 6), the p50 is their
# median; benchwatch's from its JSON.  Target: p50 ratio within +-5%.
#
# Part 2 puts the two disk probes of the built-in configuration side by
# side: today's (`disk`: 5 s of saturating 16k random reads at qd1 over
# 1 GiB) and disklat (5 s at RATE reads a second), interleaved, ROUNDS2
# runs each, plus an idle pause of the same length.  Per run: reads (from
# the figures), bytes read from the device (rusage's block inputs, which
# count O_DIRECT reads: /proc/PID/io read_bytes of the run and its child),
# CPU seconds (user + system of the run and its child) and the steal the
# host saw meanwhile (/proc/stat, all CPUs); per hour at the built-in
# interval (PER_HOUR runs).  Then the run-to-run noise of each probe's p50
# and p99 (coefficient of variation over the runs), which sets the smallest
# latency rise the detector can see in a few runs.
#
# Usage: bench/compare/ioping.sh  (env: BENCHWATCH, BENCH_DIR, SIZE, RATE, DURATION,
#                          ROUNDS, ROUNDS2, PER_HOUR, PARTS="1 2"; KEEP=1
#                          keeps the test file)
set -u
here=$(cd "$(dirname "$0")" && pwd)
BENCHWATCH=${BENCHWATCH:-benchwatch}
DIR=${BENCH_DIR:-/var/tmp/benchwatch-bench}
SIZE=${SIZE:-1G}
RATE=${RATE:-100}
DURATION=${DURATION:-5}
ROUNDS=${ROUNDS:-12}
ROUNDS2=${ROUNDS2:-16}
PER_HOUR=${PER_HOUR:-2}
PARTS=${PARTS:-"1 2"}
FILE=$DIR/disk.dat

for c in ioping python3 /usr/bin/time; do
        command -v "$c" > /dev/null || { echo "bench: $c not found" >&2; exit 1; }
done
mkdir -p "$DIR/out" || exit 1
# the CPU and I/O priority ioping gets (nice 0, best-effort 4)
printf '[daemon]\nnice = 0\nioprio_level = 4\n' > "$DIR/empty.conf"
cleanup() {
        [ -n "${KEEP:-}" ] || rm -f "$FILE"
        rm -rf "$DIR/out" "$DIR/empty.conf"
        rmdir "$DIR" 2>/dev/null
}
trap cleanup EXIT
. "$here/../lib/stats.sh"

# p50 of a benchwatch JSON report's latency summary: FIGURE [QUANTILE]
bw_q() {
        python3 - "$DIR/out/bw.json" "$1" "${2:-0.5}" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
m = {x["name"]: x["samples"][0] for x in r["metrics"]}
print(m[sys.argv[2]]["quantiles"][sys.argv[3]])
PY
}

run_bw() { # prints the p50 in seconds
        "$BENCHWATCH" -c "$DIR/empty.conf" run disklat "path=$FILE" size="$SIZE" \
                rate="$RATE" duration="${DURATION}s" --format=json \
                > "$DIR/out/bw.json" || { echo nan; return; }
        bw_q benchwatch_disklat_latency_seconds
}

run_ioping() { # prints the p50 in seconds
        ioping -D -q -p 1 -i "$(awk -v r="$RATE" 'BEGIN { printf "%dus", 1e6 / r }')" \
                -w "${DURATION}s" "$FILE" > "$DIR/out/ioping.txt" 2>&1 || { echo nan; return; }
        awk '{ print $6 / 1e9 }' "$DIR/out/ioping.txt" | median
}

echo "== preparing: test file $FILE ($SIZE)"
"$BENCHWATCH" -c "$DIR/empty.conf" run disklat "path=$FILE" size="$SIZE" \
        duration=100ms > /dev/null || { echo "cannot create $FILE" >&2; exit 1; }

part1() {
        echo "== part 1: p50 of 4k O_DIRECT reads at $RATE/s for ${DURATION}s," \
             "benchwatch disklat vs ioping -D, $ROUNDS rounds"
        printf '%5s %12s %12s %12s %9s %9s\n' round bw_p50_us ioping_us ioping2_us \
                bw/iop iop2/iop
        : > "$DIR/out/r1"
        for i in $(seq 1 "$ROUNDS"); do
                if [ $((i % 2)) = 1 ]; then
                        b=$(run_bw); a=$(run_ioping); c=$(run_ioping)
                else
                        a=$(run_ioping); c=$(run_ioping); b=$(run_bw)
                fi
                awk -v i="$i" -v a="$a" -v b="$b" -v c="$c" 'BEGIN {
                        printf "%5d %12.1f %12.1f %12.1f %9.3f %9.3f\n", i,
                                b * 1e6, a * 1e6, c * 1e6, b / a, c / a }' |
                        tee -a "$DIR/out/r1"
        done
        for col in 5 6; do
                name=$([ $col = 5 ] && echo "benchwatch/ioping" || echo "ioping/ioping")
                m=$(awk -v c=$col '{ print $c }' "$DIR/out/r1" | median)
                lo=$(awk -v c=$col '{ print $c }' "$DIR/out/r1" | sort -g | head -1)
                hi=$(awk -v c=$col '{ print $c }' "$DIR/out/r1" | sort -g | tail -1)
                printf '%-18s p50 ratio: median %.3f (%+.1f%%), range %.3f..%.3f\n' \
                        "$name" "$m" "$(awk -v m="$m" 'BEGIN { print (m - 1) * 100 }')" "$lo" "$hi"
        done
}

steal() { awk '/^cpu / { print $9 }' /proc/stat; }

# One run of a probe: prints "READS BYTES CPU_S STEAL_PCT P50_S P99_S"
cost_run() { # disk|disklat|idle
        local s0 s1 t0 t1
        s0=$(steal); t0=$(date +%s.%N)
        case $1 in
        disk)   /usr/bin/time -f '%U %S %I' -o "$DIR/out/time" "$BENCHWATCH" \
                        -c "$DIR/empty.conf" run disk "path=$FILE" size="$SIZE" \
                        duration="${DURATION}s" --format=json > "$DIR/out/bw.json" ;;
        disklat) /usr/bin/time -f '%U %S %I' -o "$DIR/out/time" "$BENCHWATCH" \
                        -c "$DIR/empty.conf" run disklat "path=$FILE" size="$SIZE" \
                        rate="$RATE" duration="${DURATION}s" --format=json > "$DIR/out/bw.json" ;;
        idle)   /usr/bin/time -f '%U %S %I' -o "$DIR/out/time" sleep "$DURATION"
                echo '{"metrics": []}' > "$DIR/out/bw.json" ;;
        esac
        s1=$(steal); t1=$(date +%s.%N)
        python3 - "$DIR/out/bw.json" "$1" "$DIR/out/time" "$s0" "$s1" "$t0" "$t1" \
                "$(nproc)" "$(getconf CLK_TCK)" <<'PY'
import json, sys
js, kind, tf, s0, s1, t0, t1, ncpu, hz = sys.argv[1:]
m = {x["name"]: x["samples"] for x in json.load(open(js))["metrics"]}
u, s, blocks = open(tf).read().split()[-3:]
steal = 100 * (int(s1) - int(s0)) / float(hz) / ((float(t1) - float(t0)) * int(ncpu))
if kind == "idle":
    print(0, int(blocks) * 512, float(u) + float(s), steal, "nan", "nan")
    sys.exit()
lat = m["benchwatch_%s_latency_seconds" % kind][0]
reads = lat["count"] + (1 if kind == "disklat" else 0)
print(reads, int(blocks) * 512, float(u) + float(s), steal,
      lat["quantiles"]["0.5"], lat["quantiles"]["0.99"])
PY
}

part2() {
        echo "== part 2: cost and noise, disk (built-in today: 16k randread qd1," \
             "${DURATION}s, saturating) vs disklat ($RATE/s, ${DURATION}s) vs idle," \
             "$ROUNDS2 rounds interleaved"
        : > "$DIR/out/disk"; : > "$DIR/out/disklat"; : > "$DIR/out/idle"
        for i in $(seq 1 "$ROUNDS2"); do
                if [ $((i % 2)) = 1 ]; then order="disk disklat idle"
                else order="idle disklat disk"; fi
                for k in $order; do cost_run $k >> "$DIR/out/$k"; done
        done
        printf '%-8s %10s %10s %9s %8s %10s %8s %10s %8s\n' probe reads/h MB/h \
                CPU_s/h steal% p50_us p50_cv% p99_us p99_cv%
        for k in disk disklat idle; do
                f=$DIR/out/$k
                rd=$(awk '{ print $1 }' "$f" | median)
                by=$(awk '{ print $2 }' "$f" | median)
                cpu=$(awk '{ print $3 }' "$f" | median)
                st=$(awk '{ print $4 }' "$f" | median)
                if [ $k = idle ]; then p50=0; c50=-; p99=0; c99=-
                else
                        p50=$(awk '{ print $5 }' "$f" | median); c50=$(awk '{ print $5 }' "$f" | cv)
                        p99=$(awk '{ print $6 }' "$f" | median); c99=$(awk '{ print $6 }' "$f" | cv)
                fi
                awk -v k=$k -v h="$PER_HOUR" -v rd="$rd" -v by="$by" -v cpu="$cpu" \
                    -v st="$st" -v p50="$p50" -v c50="$c50" -v p99="$p99" -v c99="$c99" 'BEGIN {
                        printf "%-8s %10d %10.1f %9.3f %8.2f %10.1f %8s %10.1f %8s\n", k,
                                rd * h, by * h / 1e6, cpu * h, st, p50 * 1e6, c50, p99 * 1e6, c99 }'
        done
        echo "(medians of the runs; per hour at $PER_HOUR runs an hour; steal: % of all" \
             "CPUs' time during the run, host-wide)"
}

for p in $PARTS; do "part$p"; done
