#!/bin/bash
# bench/compare/memlat.sh — benchwatch's memory latency mode beside an independent
# pointer chase, and the cache steps beside the cache sizes in /sys.
#
# lmbench (lat_mem_rd) is not in Debian, so the reference is a small C
# program written here, sharing no code with the plugin: it shuffles the
# line order with Fisher-Yates and links the lines in that order (the
# plugin runs Sattolo's algorithm in place), first-touches with memset, and
# reports the median of seven timed laps.  Like the plugin it chases one
# pointer per `stride` bytes in random order over a 2 MiB aligned buffer
# asked for transparent huge pages, so both measure the same thing.
#
#   bench/compare/memlat.sh [-r ROUNDS] [-t MS] [-s MS] [-S STRIDE] [-n]
#
# 1. Comparison: at 16K, 256K, 4M, 32M, 256M and the L1d, L2 and LLC sizes,
#    ROUNDS rounds of benchwatch then the reference (interleaved), MS
#    milliseconds each (default 3 rounds of 1000 ms); ns per load of both,
#    their medians and minima and the ratios benchwatch / reference (should
#    be ~1.00).
# 2. Sweep: both at sizes from 4K to 512M in steps of 1.5x and 4/3x, one
#    round of -s MS (default 500); then, for each cache level, the size at
#    which the latency has climbed half-way (geometrically) from the plateau
#    below the cache (a quarter of its size) to the one above, which should
#    fall near the cache's size ("no step" when the latency above is not
#    1.5x the one below: a cache that does not show as a level, as a VM's
#    L3 shared with busy neighbours).  -n skips the sweep.
#
# BENCHWATCH names the benchwatch binary (default: benchwatch on PATH; for a
# build tree also set BENCHWATCH_PLUGIN_DIR=plugins/.libs).  CC compiles the
# reference (default cc).  Not part of `make check`.
set -euo pipefail

rounds=3 ms=1000 sweep_ms=500 stride=64 sweep=1
while getopts "r:t:s:S:nh" opt; do
        case $opt in
        r) rounds=$OPTARG ;;
        t) ms=$OPTARG ;;
        s) sweep_ms=$OPTARG ;;
        S) stride=$OPTARG ;;
        n) sweep=0 ;;
        *) sed -n '2,30p' "$0"; exit 2 ;;
        esac
done
bw=${BENCHWATCH:-benchwatch}
cc=${CC:-cc}
for tool in "$bw" "$cc" python3; do
        command -v "$tool" >/dev/null || { echo "$0: $tool not found" >&2; exit 2; }
done

tmp=$(mktemp -d /tmp/bw-memlat.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
printf '[daemon]\nnice = 0\n' > "$tmp/nice0.conf"

# the reference: an independent pointer chase (memlat_chase.c, beside this)
"$cc" -O2 -o "$tmp/chase" "$(dirname "$0")/memlat_chase.c"

exec python3 "$(dirname "$0")/memlat.py" "$bw" "$tmp" "$rounds" "$ms" "$sweep_ms" "$stride" "$sweep"
