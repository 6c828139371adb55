#!/bin/bash
# bench/compare/sysbench.sh — benchwatch's cpu, threads and memory probes side by
# side with the classic tools they reproduce.
#
# Each case runs benchwatch and the classic tool with the same parameters,
# interleaved (A B A B ...) so that a machine getting busier or cooler hurts
# both alike, and prints every pair, the median of the pair ratios
# (benchwatch / classic) and each tool's run-to-run coefficient of
# variation (the steadiness the detector sees).  For cpu, threads and block-mode memory the figure
# should match sysbench's (ratio ~1.00); the DRAM mode should reach at least
# what mbw (memcpy) and sysbench with a 1 GiB block report.
#
#   bench/compare/sysbench.sh [-r ROUNDS] [-t SECONDS] [-o FILTER] [-c]
#
# benchwatch is given a config with nice = 0 so that both run at the same
# priority.  BENCHWATCH names the benchwatch binary (default: benchwatch on PATH);
# FILTER keeps the cases whose name contains it ("cpu", "memory", "dram").
# -c compares work per CPU-second (events or bytes over the user+system time
# of the process) instead of per wall-second: on a machine shared with other
# jobs that still shows whether both do the same work per event (it cannot
# judge DRAM bandwidth or thread scaling, so those cases are left out).
# Not part of `make check`: it takes ROUNDS x 2 x SECONDS per case.
set -euo pipefail

rounds=3 secs=10 only= cpu=0
while getopts "r:t:o:ch" opt; do
        case $opt in
        r) rounds=$OPTARG ;;
        t) secs=$OPTARG ;;
        o) only=$OPTARG ;;
        c) cpu=1 ;;
        *) sed -n '2,24p' "$0"; exit 2 ;;
        esac
done
bw=${BENCHWATCH:-benchwatch}
for tool in "$bw" sysbench python3; do
        command -v "$tool" >/dev/null || { echo "$0: $tool not found" >&2; exit 2; }
done

exec python3 "$(dirname "$0")/sysbench.py" "$bw" "$rounds" "$secs" "$only" "$cpu"
