#!/bin/bash
# bench/compare/disk-cpu.sh — what each read costs the host, benchwatch's
# disk probe beside fio: where a virtual disk serves reads about as fast as
# a CPU can ask for them, the IOPS each tool gets depend on its CPU a read
# and on how the virtual CPU takes the completions, and the disk row of
# all.sh compares those as well as the disk (docs/reports/benchmarks.md).
#
# Random 16k O_DIRECT reads of benchwatch's 1 GiB test file at queue depth
# IODEPTH, SECONDS a run, the two tools alternating, ROUNDS rounds.  Per
# run: the IOPS the tool reported, the reads the device completed
# (/proc/diskstats), and per read: the tool's user and system CPU
# (getrusage of the child, in microseconds), its voluntary context switches
# and the disk's completion interrupts (the /proc/interrupts lines whose
# name contains IRQ; virtio's "-req" by default); then the medians.
#
# Usage: bench/compare/disk-cpu.sh [ROUNDS, default 5] [SECONDS, default 3]
# Env:   BENCHWATCH, BENCHWATCH_PLUGIN_DIR, BENCH_DIR
#        (/var/tmp/benchwatch-bench), SIZE (1G), IODEPTH (8), IRQ (-req),
#        KEEP=1 keeps the test file.  Not part of `make check`; run it on a
#        quiet machine.
set -u
rounds=${1:-5}
secs=${2:-3}
here=$(cd "$(dirname "$0")" && pwd)
export BENCHWATCH=${BENCHWATCH:-benchwatch}
DIR=${BENCH_DIR:-/var/tmp/benchwatch-bench}
SIZE=${SIZE:-1G}
FILE=$DIR/disk.dat
. "$here/../lib/testfile.sh"
bench_testfile bench/compare/disk-cpu.sh diskcpu fio python3
python3 "$here/disk-cpu.py" "$rounds" "$secs" "$FILE" "$SIZE" "${IODEPTH:-8}" "$work/conf"
