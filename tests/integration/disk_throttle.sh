#!/bin/bash
# The disk probe's latency must react when the device really gets slower.
#
# A loop device over a small file stands in for a disk; a cgroup v1 blkio
# throttle (blkio.throttle.read_iops_device) on it, applied only to the
# benchwatch process (and the runner child it forks), makes it a device
# that serves 10 reads per second.  The same randread run is done outside,
# inside and again outside the throttled cgroup: IOPS must fall to the cap
# and the median latency must rise many times over.  (blk-throttle hands
# out its budget per 100 ms slice, so at 100 IOPS ten reads of each slice
# pass at once and only the tail shows the wait; at 10 IOPS every read
# waits ~100 ms, so the median shows it.)
. "$top_srcdir/tests/integration/lib/lib.sh"

. "$top_srcdir/tests/integration/lib/throttled_loop.sh"

run_disk() { # OUT [cgroup]
        local args=(run disk "path=$LOOP" mode=randread block_size=4k iodepth=1
                    threads=1 duration=2s --format=json)
        if [ -n "${2:-}" ]; then
                bash -c 'echo $$ > "$1/cgroup.procs" && shift && exec "$@"' _ \
                        "$2" "$BENCHWATCH" -c "$T/empty.conf" "${args[@]}" > "$1"
        else
                bw "${args[@]}" > "$1"
        fi || fail "run disk on $LOOP${2:+ (throttled)}: $(cat "$1")"
}

run_disk "$T/free.json"
mkdir "$CG" || fail "cannot create cgroup $CG"
echo "$DEV 10" > "$CG/blkio.throttle.read_iops_device" || fail "cannot set throttle"
run_disk "$T/slow.json" "$CG"
run_disk "$T/free2.json"

LAT=benchwatch_disk_latency_seconds
for f in free slow free2; do
        printf '%-6s IOPS %8.1f  p50 %.6f s  p99 %.6f s\n' "$f" \
                "$(json "$T/$f.json" 'value("benchwatch_disk_iops", op="read")')" \
                "$(json "$T/$f.json" "summary('$LAT', op='read')['quantiles']['0.5']")" \
                "$(json "$T/$f.json" "summary('$LAT', op='read')['quantiles']['0.99']")"
done
json "$T/slow.json" 'value("benchwatch_disk_iops", op="read") <= 12' ||
        fail "throttled IOPS above the 10/s cap"
json "$T/free.json" 'value("benchwatch_disk_iops", op="read") > 300' ||
        fail "unthrottled loop device slower than 300 IOPS: cannot compare"
for f in free free2; do
        python3 - "$T/$f.json" "$T/slow.json" <<'PY' || fail "latency did not react to the throttle ($f)"
import json, sys
q = lambda p: next(s for m in json.load(open(p))["metrics"]
                   if m["name"] == "benchwatch_disk_latency_seconds"
                   for s in m["samples"])["quantiles"]["0.5"]
free, slow = q(sys.argv[1]), q(sys.argv[2])
print("p50 throttled / free = %.1f" % (slow / free))
sys.exit(0 if slow > 5 * free and slow > 0.003 else 1)
PY
done
