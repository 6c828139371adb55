#!/bin/bash
# bench/compare/disk-offsets.sh — what the device was asked to do by one
# benchwatch disk run and one fio run of the same work, from the kernel's
# block tracepoints (perf record -a block:block_rq_issue,block_rq_complete),
# beside what each tool counted.
#
# Random 16k O_DIRECT reads of benchwatch's 1 GiB test file at queue depth
# IODEPTH, SECONDS each: benchwatch (and with BEFORE_PLUGIN_DIR another
# build's plugins), fio as a user types it (its random map: every block
# once a pass) and fio --norandommap (offsets drawn with replacement).  Per
# run: the tool's I/O count and IOPS; the reads the device got in the file;
# how many distinct blocks they touched and the most reads of one block;
# the chi-square of their spread over the file's sixteenths; the device's
# service time (issue to completion) by how many reads ago the same block
# was last read (a cache beneath that holds part of the file shows as
# faster re-reads at short distance); the share of reads within 1 MiB of
# one of the 8 issued just before, and the service time of those and the
# others (whether fio's random map, handing a taken pick the next free
# block, sends late reads of a pass near each other); completions per
# 250 ms (the window each tool counts, and its edges).
#
# Usage: bench/compare/disk-offsets.sh [SECONDS, default 3]   (root: perf -a)
# Env:   BENCHWATCH, BENCHWATCH_PLUGIN_DIR, BEFORE_PLUGIN_DIR, BENCH_DIR
#        (/var/tmp/benchwatch-bench), SIZE (1G), IODEPTH (8), KEEP=1
set -u
secs=${1:-3}
here=$(cd "$(dirname "$0")" && pwd)
BENCHWATCH=${BENCHWATCH:-benchwatch}
DIR=${BENCH_DIR:-/var/tmp/benchwatch-bench}
SIZE=${SIZE:-1G}
depth=${IODEPTH:-8}
FILE=$DIR/disk.dat
. "$here/../lib/testfile.sh"
bench_testfile bench/compare/disk-offsets.sh offsets perf fio filefrag python3
filefrag -v "$FILE" > "$work/extents"
# the disk the block tracepoints name, and where the file system starts on it
majmin=$(stat -c '%Hd:%Ld' "$FILE")
start=0
if [ -e "/sys/dev/block/$majmin/partition" ]; then
        start=$(cat "/sys/dev/block/$majmin/start")
        majmin=$(cat "/sys/dev/block/$majmin/../dev")
fi

trace() { # NAME COMMAND...: the command's own output, then the device's view
        local name=$1
        shift
        perf record -q -a -o "$work/$name.data" -e block:block_rq_issue \
                -e block:block_rq_complete "$@" > "$work/$name.out" 2> /dev/null
        perf script -i "$work/$name.data" > "$work/$name.trace" 2> /dev/null
        echo "== $name: $(python3 - "$work/$name.out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
if "jobs" in d:
    r = d["jobs"][0]["read"]
    print("counted %d I/Os, %.0f IOPS over %d ms" % (r["total_ios"], r["iops"], r["runtime"]))
else:
    m = {x["name"]: x["samples"][0] for x in d["metrics"]}
    print("counted %d I/Os, %.0f IOPS" % (m["benchwatch_disk_latency_seconds"]["count"],
                                         m["benchwatch_disk_iops"]["value"]))
PY
)"
        python3 "$here/disk-offsets.py" "$work/extents" "${majmin/:/,}" "$start" "$work/$name.trace"
}
bw() { # NAME PLUGIN_DIR
        BENCHWATCH_PLUGIN_DIR=$2 trace "$1" "$BENCHWATCH" -c "$work/conf" run disk \
                "path=$FILE" size="$SIZE" mode=randread block_size=16k iodepth="$depth" \
                duration="${secs}s" --format=json
}
fio_() { # NAME [FIO OPTIONS]
        local name=$1
        shift
        trace "$name" fio --name=offsets --filename="$FILE" --size="$SIZE" --rw=randread \
                --bs=16k --direct=1 --ioengine=libaio --iodepth="$depth" --time_based \
                --runtime="$secs" --output-format=json "$@"
}

echo "$(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg); $FILE on $majmin, ${secs} s runs"
bw benchwatch "${BENCHWATCH_PLUGIN_DIR:-}"
[ -n "${BEFORE_PLUGIN_DIR:-}" ] && bw before "$BEFORE_PLUGIN_DIR"
fio_ fio
fio_ fio-norandommap --norandommap
