#!/bin/bash
# bench/compare/threads-loop.sh — sysbench threads, benchwatch's threads
# probe and the bare operation (threads_loop.c: lock, sched_yield, unlock,
# nothing around it) side by side, to tell which tool spends more than the
# operation where the two disagree (all.sh's threads row).
#
# Each round runs every contender once for SECONDS (1 thread, 1000 yields,
# 8 locks: all.sh's row), the order rotating from round to round; the bare
# loop runs once per PAGES value, touching that many extra 4 KiB pages a
# round (0: the operation alone; more: how much this host charges for the
# memory a loop touches between system calls).  Prints every round, then
# each contender's events/s as a ratio to sysbench's of the same round:
# the median, and the lowest and highest.
#
# Usage: bench/compare/threads-loop.sh [ROUNDS, default 9] [SECONDS, default 3]
# Env:   BENCHWATCH (default benchwatch; from a build tree also
#        BENCHWATCH_PLUGIN_DIR=plugins/.libs), PAGES ("0 8"), CC (cc).
# Run it on a quiet machine; not part of `make check`.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
BW=${BENCHWATCH:-benchwatch}
rounds=${1:-9} secs=${2:-3} pages=${PAGES:-0 8}
for t in sysbench "${CC:-cc}"; do
        command -v "$t" > /dev/null || { echo "threads-loop.sh: needs $t" >&2; exit 1; }
done
work=$(mktemp -d /tmp/threads-loop.XXXXXX)
trap 'rm -rf "$work"' EXIT
"${CC:-cc}" -O2 -o "$work/loop" "$here/threads_loop.c" -lpthread

run_one() {
        case $1 in
        sysbench)
                sysbench threads --threads=1 --thread-yields=1000 --thread-locks=8 \
                        --time="$secs" run |
                        awk '/total number of events/ { e = $NF }
                             /total time/ { sub("s", "", $NF); t = $NF }
                             END { if (t > 0) printf "%.3f\n", e / t }' ;;
        benchwatch)
                "$BW" run threads threads=1 yields=1000 locks=8 duration="${secs}s" 2>&1 |
                        awk '/events_per_second:/ { print $2 }' ;;
        bare+*) "$work/loop" "$secs" 1000 8 "${1#bare+}" ;;
        esac
}

who=(sysbench benchwatch)
for p in $pages; do who+=("bare+$p"); done
echo "$(date '+%F %H:%M'), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg);" \
     "$rounds rounds of ${secs}-s runs, events/s; bare+N: the bare loop touching N pages a round"
for ((r = 0; r < rounds; r++)); do
        line="round $((r + 1)):"
        declare -A got=()
        for ((i = 0; i < ${#who[@]}; i++)); do
                w=${who[$(((i + r) % ${#who[@]}))]}
                got[$w]=$(run_one "$w")
                [ -n "${got[$w]}" ] || { echo "threads-loop.sh: $w printed no figure" >&2; exit 1; }
        done
        for w in "${who[@]}"; do line+="  $w ${got[$w]}"; done
        echo "$line"
        for w in "${who[@]:1}"; do
                echo "$w $(awk -v a="${got[$w]}" -v b="${got[sysbench]}" 'BEGIN { printf "%.4f", a / b }')" \
                        >> "$work/ratios"
        done
        unset got
done
echo
echo "| contender | events/s / sysbench's, median | lowest .. highest | rounds |"
echo "|---|--:|---|--:|"
for w in "${who[@]:1}"; do
        awk -v w="$w" '$1 == w { print $2 }' "$work/ratios" | sort -g |
                awk -v w="$w" '{ v[NR] = $1 }
                     END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
                           printf "| %s | %.3f | %.2f .. %.2f | %d |\n", w, m, v[1], v[NR], NR }'
done
