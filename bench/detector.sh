#!/bin/bash
# bench/detector.sh — the regression detector judged on many synthetic
# series, beside the detector benchwatch had before (bench/detsim/).
#
# Builds bench/detsim/detsim.c against the daemon's own daemon/detector.c
# (the code the daemon, `verify` and `replay` run) and a frozen copy of the
# old per-run rule (bench/detsim/olddet.c), feeds both the same series
# under four noise models (Gaussian, Student-t3, 2% outlier runs at
# x0.5-0.8, AR(1) phi = 0.5) at 3% and 6% noise, each series learning its
# reference from its own first runs, and prints false alarms per 10,000
# clean runs, detection rates and delays of steps and drifts, and verify's
# pass and fail rates, with the targets and whether they are met.
#
#   bench/detector.sh [-q] [detsim options: --trials N --fa-trials N --fa-runs N
#                      --seed S --k K --h H --clamp C --ref N --recent N --threshold T]
#
# -q: fewer trials (a quick look; the figures move by a few percent).
# Exit status: 0 every target met, 1 some missed.  Not part of `make check`.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/.." && pwd)
tmp=$(mktemp -d /tmp/detsim.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
args=(--trials 2000 --fa-trials 500 --fa-runs 10000)
if [ "${1:-}" = -q ]; then
        args=(--trials 500 --fa-trials 100 --fa-runs 5000)
        shift
fi
${CC:-cc} -O2 -Wall -Wextra -I"$src/daemon" -o "$tmp/detsim" "$here/detsim/detsim.c" \
        "$here/detsim/olddet.c" "$src/daemon/detector.c" -lm
"$tmp/detsim" "${args[@]}" "$@"
