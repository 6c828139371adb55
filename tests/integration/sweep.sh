#!/bin/bash
# `benchwatch sweep` through the CLI: one run per level, the table, the
# JSON with a knee that is one of the levels, a well-formed SVG plot, the
# Prometheus output carrying each level as a label, and clear errors; and
# a disk sweep (random 16k O_DIRECT reads, more and more threads)
# on a small file: its columns (IOPS, MiB/s, avg and 95th
# percentile latency per level) and the knee marked on the row the
# definition picks.
. "$top_srcdir/tests/integration/lib/lib.sh"

bw sweep cpu threads=1,2 events=200 max_prime=3000 --format=json > "$T/s.json" 2> "$T/err" || fail "sweep: $(cat "$T/err")"
json "$T/s.json" 'r["param"] == "threads" and [l["level"] for l in r["levels"]] == ["1", "2"]' || fail "levels"
json "$T/s.json" 'all(l["success"] and l["throughput"] > 0 and l["latency"]["p95"] > 0 for l in r["levels"])' || fail "figures"
json "$T/s.json" 'r["knee"] in ("1", "2")' || fail "knee"
json "$T/s.json" 'r["throughput_metric"] == "benchwatch_cpu_events_per_second"' || fail "throughput metric"

bw sweep cpu threads=1,2 events=100 max_prime=3000 --plot="$T/s.svg" > "$T/table" 2> /dev/null || fail "sweep table"
grep -q "events_per_second" "$T/table" && grep -q "<- knee" "$T/table" || fail "table: $(cat "$T/table")"
python3 -c "import sys, xml.etree.ElementTree as E; t = E.parse(sys.argv[1]); assert 'knee' in open(sys.argv[1]).read()" "$T/s.svg" \
        || fail "plot is not a well-formed SVG with a knee"

bw sweep cpu threads=1,2 events=50 --format=prometheus > "$T/s.prom" || fail "prometheus"
[ "$(grep -c '^benchwatch_cpu_events_per_second{' "$T/s.prom")" = 2 ] || fail "one series per level: $(grep events_per_second "$T/s.prom")"

bw sweep cpu nosuch=1,2 2> "$T/err"; [ $? = 2 ] && grep -q "no parameter 'nosuch'" "$T/err" || fail "unknown sweep parameter"
bw sweep cpu threads 2> "$T/err"; [ $? = 2 ] || fail "malformed levels"
bw sweep cpu threads=1,0 events=10 2> "$T/err"; [ $? = 2 ] && grep -q "out of range" "$T/err" || fail "bad level: $(cat "$T/err")"
# a bad last level stops the sweep before its first level runs
bw sweep cpu threads=1,x duration=30s 2> "$T/err"; [ $? = 2 ] && grep -q "'x' is not an integer" "$T/err" &&
        ! grep -q "threads=1 \.\.\." "$T/err" || fail "bad last level: $(cat "$T/err")"
# a mode without the throughput figure levels are ranked by: said, not ranked by zeros
bw sweep memory size=1M,2M mode=latency duration=0.2s > "$T/lat.table" 2> "$T/err"
[ $? = 2 ] && grep -q "reports no benchwatch_memory_bytes_per_second" "$T/err" &&
        ! grep -q knee "$T/lat.table" || fail "sweep of a mode without throughput: $(cat "$T/err" "$T/lat.table")"
# latencies shown in a unit that keeps digits: a memory block's event takes
# nanoseconds, which would print as 0.000 ms
bw sweep memory threads=1,2 duration=0.2s > "$T/mem.table" 2> "$T/err" || fail "memory sweep: $(cat "$T/err")"
python3 - "$T/mem.table" <<'PY' || fail "memory sweep table: $(cat "$T/mem.table")"
import sys
lines = [l.split() for l in open(sys.argv[1]) if l.strip()]
head = next(i for i, l in enumerate(lines) if l[:1] == ["threads"])
assert lines[head][-3:] in (["avg(us)", "p95(us)", "p99(us)"], ["avg(ns)", "p95(ns)", "p99(ns)"]), lines[head]
for r in lines[head + 1:]:
    assert float(r[-3 if r[-1] != "knee" else -5]) >= 0.01, r
PY
# A disk sweep, small: its columns, one knee, on the right row.
test_daemon_section "$T" > "$T/disk.conf"
"$BENCHWATCH" -c "$T/disk.conf" sweep disk threads=1,4,16 mode=randread block_size=16k \
        size=32M duration=1s > "$T/disk.table" 2> "$T/err" || fail "disk sweep: $(cat "$T/err")"
cat "$T/disk.table"
python3 - "$T/disk.table" <<'PY' || fail "disk sweep table: $(cat "$T/disk.table")"
import sys
lines = [l for l in open(sys.argv[1]).read().split("\n") if l.strip()]
head = next(i for i, l in enumerate(lines) if l.split()[:1] == ["threads"])
assert lines[head].split() == ["threads", "iops", "MiB/s", "avg(ms)", "p95(ms)", "p99(ms)"], lines[head]
rows = [l.split() for l in lines[head + 1:]]
assert [r[0] for r in rows] == ["1", "4", "16"], rows
iops = [float(r[1]) for r in rows]
for r, v in zip(rows, iops):
    mib, avg, p95 = float(r[2]), float(r[3]), float(r[4])
    assert v > 0 and abs(mib - v * 16384 / 1048576) <= 0.01 * mib + 0.01, r
    assert 0 < avg and 0 < p95 <= float(r[5]), r
knee = [i for i, r in enumerate(rows) if r[-2:] == ["<-", "knee"]]
assert len(knee) == 1, "not one knee: %s" % rows
# sweep.h's knee without a target: the lowest level within 5% of the best
want = next(i for i, v in enumerate(iops) if v >= 0.95 * max(iops))
assert knee[0] == want, "knee on %s, want %s" % (rows[knee[0]][0], rows[want][0])
PY
"$BENCHWATCH" -c "$T/disk.conf" sweep disk threads=1,2 size=32M duration=0.5s --format=json \
        > "$T/disk.json" 2> "$T/err" || fail "disk sweep json: $(cat "$T/err")"
json "$T/disk.json" 'all(abs(l["bytes_per_second"] - 16384 * l["throughput"]) < 1e-6 * l["bytes_per_second"] + 1 for l in r["levels"])' ||
        fail "disk sweep JSON: bytes_per_second per level"
echo "sweep: ok"
