#!/bin/bash
# lab/detector/detector.sh — the regression detector judged on many synthetic
# series, beside the detector of an earlier commit.
#
# Builds lab/detector/detsim/detsim.c against the daemon's own
# daemon/detect/detector.c (the code the daemon, `verify` and `replay`
# run), and the same program
# as it was at BASE (default 8157c2d: the detector before verdicts while
# learning, the drift test and the careful autocorrelation), feeds both the
# same series under five noise models (Gaussian, Student-t3, 2% outlier
# runs at x0.5-0.8, AR(1) phi = 0.5 and 0.3) at 3% and 6% noise, and
# prints false alarms per 10,000 clean runs, detection rates and delays of
# steps and drifts, verify's pass and fail rates, and the verdicts given
# while the reference is learnt, with the targets and whether they are
# met; the AR(1) rows are judged against the same rules handed the true
# level, noise and correlation (the oracle), and each drift row follows
# the bound of its cell: what a clairvoyant that knows the decline's
# slope and the noise flags at the same false-alarm rate
# (detsim/bound.c); where that is below 0.95 the target is 0.9 of it.
#
#   lab/detector/detector.sh [-q] [--base REV] [detsim options: --trials N
#                      --fa-trials N --fa-runs N --seed S --k K --h H
#                      --clamp C --drift D --ref N --min N --recent N
#                      --threshold T --bound-runs N --only GROUP]
#
# -q: fewer trials (a quick look; the figures move by a few percent).
# Exit status: 0 every target met, 1 some missed.  Not part of `make check`.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
tmp=$(mktemp -d /tmp/detsim.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
args=(--trials 2000 --fa-trials 500 --fa-runs 10000)
base=8157c2d
while [ $# -gt 0 ]; do
        case $1 in
        -q) args=(--trials 500 --fa-trials 100 --fa-runs 5000 --bound-runs 500000); shift ;;
        --base) base=$2; shift 2 ;;
        *) break ;;
        esac
done
cc=${CC:-cc}
$cc -O2 -Wall -Wextra -I"$src/daemon" -o "$tmp/detsim" "$here/detsim/detsim.c" \
        "$here/detsim/bound.c" "$src/daemon/detect/detector.c" -lm

# Today's: the base commit's detsim and detector, built from git (the paths
# are the base commit's: the detector was daemon/detector.c before the
# daemon's folders by layer, daemon/detect/detector.c after).
today=
if git -C "$src" cat-file -e "$base^{commit}" 2>/dev/null; then
        mkdir -p "$tmp/base/daemon" "$tmp/base/detsim"
        # each file wherever the base's tree kept it (detsim/ in whichever
        # folder of the lab or the bench it was; daemon/ or a folder of it)
        git -C "$src" ls-tree -r --name-only "$base" > "$tmp/base/tree"
        for f in daemon/detector.c daemon/detector.h detsim/detsim.c \
                 detsim/olddet.c detsim/olddet.h detsim/bound.c detsim/bound.h; do
                p=$(grep -m 1 -E "(^|/)${f%%/*}/(.*/)?${f##*/}\$" "$tmp/base/tree") || continue
                git -C "$src" show "$base:$p" > "$tmp/base/$f" 2>/dev/null || true
        done
        # a base after the folders by layer includes "detect/detector.h"
        mkdir -p "$tmp/base/daemon/detect"
        cp "$tmp/base/daemon/detector.h" "$tmp/base/daemon/detect/" 2>/dev/null || true
        # olddet.c: a frozen copy older commits' detsim was built with
        old=()
        [ -s "$tmp/base/detsim/olddet.c" ] && old=("$tmp/base/detsim/olddet.c")
        # bound.c: the drift rows' bound, a file of detsim's since 5d72b8c
        [ -s "$tmp/base/detsim/bound.c" ] && old+=("$tmp/base/detsim/bound.c")
        if $cc -O2 -w -I"$tmp/base/daemon" -I"$tmp/base/detsim" -o "$tmp/today" \
                "$tmp/base/detsim/detsim.c" "${old[@]}" \
                "$tmp/base/daemon/detector.c" -lm 2> "$tmp/base/cc.err"; then
                today="$tmp/today"
        fi
fi
if [ -z "$today" ]; then
        echo "(no build of $base: today's column left empty)" >&2
        head -n 5 "$tmp/base/cc.err" 2> /dev/null | sed 's/^/  /' >&2
fi

# Today's rows by figure, noise model and sd (its "new" column), then
# today's and the new detector side by side; rows today had not: "-".
# Options today's build does not know are left out of its run.
base_args=()
for a in "${args[@]}" "$@"; do base_args+=("$a"); done
if [ -n "$today" ]; then
        usage=$("$today" --help 2>&1 || true)
        keep=()
        skip=0
        for a in "${base_args[@]}"; do
                if [ $skip = 1 ]; then skip=0; continue; fi
                case $a in --*) grep -q -- "$a" <<< "$usage" || { skip=1; continue; } ;; esac
                keep+=("$a")
        done
        # a detsim of the olddet era ran both detectors unless told not to
        grep -q -- --new-only <<< "$usage" && keep=(--new-only "${keep[@]}")
        "$today" "${keep[@]}" > "$tmp/today.txt" || true
fi
"$tmp/detsim" "${args[@]}" "$@" > "$tmp/new.txt" && rc=0 || rc=$?
python3 "$here/detsim/side_by_side.py" "$tmp/today.txt" "$tmp/new.txt" "$base"
exit $rc
