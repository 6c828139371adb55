#!/bin/bash
# lab/device/run.sh — the measurements owed to the GPU host (16 CPUs, an
# H200, Ubuntu 24.04, no package repositories), as one prepared script:
# the device machine's time is short (15 minutes a session, start-up
# included), so each part is bounded and writes under $OUT as it goes.
#   busy     the built-in probes beside busy loops on 0, 4, 8, 12 and 15 of
#            16 CPUs (bench/cost/busy-host.sh, BUSY_SECONDS a phase, 45;
#            BUSY_NEIGHBOURS="none busy1" tries it on 2 CPUs):
#            runs done and counted, figures against alone (issue 43)
#   compare  the classic tools side by side where they were carried
#            (bench/compare/all.sh, the cpu, memory and disk rows; issue 45)
#   gpu      the gpu plugin beside PyTorch and a GPU neighbour
#            (lab/gpu/device.sh; issue 46)
# Prepare on the build host, from the root of a built tree:
#   lab/device/run.sh --collect    the libraries the GPU host lacks (ldd
#                                  of benchwatch, its plugins, sysbench,
#                                  fio, stress-ng) into .device-libs/, the
#                                  tools into .device-bin/, both packed in
#                                  .device-pack.tar.xz (27 MB: the tree that
#                                  travels may hold 64 MiB, and fio alone
#                                  needs 96 MB of Ceph, Gluster and ICU)
# then carry benchwatch, plugins/.libs and .device-pack.tar.xz with the
# tree (the pack is unpacked there on the first run), and run there
#   lab/device/run.sh [gpu] [busy] [compare]     (default: all three)
# One part a call: a call may run 10 minutes, and a session has 15 all
# told.  gpu first (nothing of issue 46 has been measured on a GPU), then
# busy with BUSY_SECONDS fitted to what is left (5 phases, about
# 5 x (BUSY_SECONDS + 10) s), then compare.
set -u
top=$(pwd)
[ -x "$top/benchwatch" ] || { echo "run.sh: run from the root of a built tree" >&2; exit 2; }
TOOLS="sysbench fio stress-ng"
if [ "${1:-}" = --collect ]; then
        mkdir -p "$top/.device-libs" "$top/.device-bin"
        for t in $TOOLS; do cp -L "$(command -v "$t")" "$top/.device-bin/" || exit 1; done
        ldd "$top/benchwatch" "$top"/plugins/.libs/*.so "$top"/.device-bin/* |
                awk '/=> \// { print $3 }' | sort -u |
                grep -Ev '/(libc|libm|libdl|librt|libpthread|libresolv|ld-linux[^/]*|libgcc_s|libstdc\+\+)\.so' |
                while read -r lib; do cp -L "$lib" "$top/.device-libs/"; done
        tar -C "$top" -cf - .device-libs .device-bin | xz -T0 -6 > "$top/.device-pack.tar.xz" ||
                exit 1
        du -sh "$top/.device-libs" "$top/.device-bin" "$top/.device-pack.tar.xz"
        exit 0
fi
# python3 where xz is missing (the GPU host has python3: PyTorch)
if [ ! -d "$top/.device-libs" ] && [ -f "$top/.device-pack.tar.xz" ]; then
        if command -v xz > /dev/null; then
                xz -dc "$top/.device-pack.tar.xz" | tar -C "$top" -xf -
        else
                python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' \
                        "$top/.device-pack.tar.xz" "$top"
        fi || exit 1
fi
OUT=${OUT:-$top/device-out}
mkdir -p "$OUT"
exec > >(tee -a "$OUT/run.log") 2>&1
# the carried libraries for benchwatch and the carried tools; not for the
# gpu part, whose torch and nvidia-smi need the host's own (device.sh
# gives benchwatch only those the host lacks)
host_libs=${LD_LIBRARY_PATH:-}
export LD_LIBRARY_PATH=$top/.device-libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=$top/.device-bin:$PATH
export BENCHWATCH_PLUGIN_DIR=$top/plugins/.libs
PARTS=${*:-gpu busy compare}
echo "== $(date -u +%FT%TZ) $(hostname): $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
# Each part writes under $OUT/PART, packed at its end into $OUT/PART.tar.xz:
# at most 8 files come back from a call, and run.log has every line.
for part in $PARTS; do
        dir=$OUT/$part
        mkdir -p "$dir"
        case $part in
        busy)
                WORK=$dir/work BENCH_DIR=$dir timeout 540 bench/cost/busy-host.sh \
                        "${BUSY_SECONDS:-45}" ${BUSY_NEIGHBOURS:-none busy4 busy8 busy12 busy15} \
                        > "$dir/busy.txt" 2>&1
                cat "$dir/busy.txt" ;;
        compare)
                BENCHWATCH=$top/benchwatch BENCH_DIR=$dir ROWS="cpu memory disk" timeout 400 \
                        bench/compare/all.sh 7 > "$dir/compare.txt" 2>&1
                cat "$dir/compare.txt" ;;
        gpu)
                LD_LIBRARY_PATH=$host_libs OUT=$dir timeout 500 lab/gpu/device.sh 7 ;;
        *) echo "run.sh: unknown part '$part' (busy, compare, gpu)"; rmdir "$dir"; continue ;;
        esac
        # the test files stay behind (cache: a disk probe's 1 GiB); python3
        # packs where xz is missing, as it unpacks above
        if command -v xz > /dev/null; then
                tar -C "$OUT" --exclude=cache --exclude="*.dat" -cJf "$OUT/$part.tar.xz" "$part"
        else
                python3 -c 'import os, sys, tarfile
skip = lambda t: None if os.path.basename(t.name) == "cache" or t.name.endswith(".dat") else t
with tarfile.open(sys.argv[1], "w:xz") as tar: tar.add(sys.argv[2], sys.argv[3], filter=skip)' \
                        "$OUT/$part.tar.xz" "$dir" "$part"
        fi && rm -rf "$dir"
done
echo "== done $(date -u +%FT%TZ)"
