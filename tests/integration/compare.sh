#!/bin/bash
# `benchwatch run A B`: a SAN-versus-local-disk comparison, side by
# side.  Two disk probes on two devices — a test file on the root
# filesystem, and a loop device read directly (mode=randread) that a cgroup
# v1 blkio throttle (blkio.throttle.read_iops_device, as disk_throttle.sh)
# holds to 200 reads per second.  The table has a column per probe, the
# rows of a disk report (IOPS, MiB/s, latency min/avg/p95/p99/max per op)
# in people's units and the parameters that differ; the throttled probe's
# IOPS are near the throttle and far below the other's; the table's figures
# agree with the JSON's; --format=json carries both results.  A failing
# probe reads FAILED in its column, the others still run, exit status 1;
# probes of two plugins give the union of their rows; one probe keeps the
# usual report.
. "$top_srcdir/tests/integration/lib/lib.sh"

. "$top_srcdir/tests/integration/lib/throttled_loop.sh"
CAP=200
mkdir "$CG" || fail "cannot create cgroup $CG"
echo "$DEV $CAP" > "$CG/blkio.throttle.read_iops_device" || fail "cannot set throttle"
: > "$T/foreign.dat" # a file benchwatch did not create: that probe fails

{
        test_daemon_section "$T"
        printf '[probe root]\nplugin = disk\nmode = randread\nblock_size = 4k\n'
        printf 'size = 64M\nduration = 2s\n'
        printf '[probe slow]\nplugin = disk\npath = %s\nmode = randread\n' "$LOOP"
        printf 'block_size = 4k\nduration = 2s\n'
        printf '[probe broken]\nplugin = disk\npath = %s/foreign.dat\n' "$T"
        printf 'size = 1M\nduration = 1s\n'
        printf '[probe cpu]\nplugin = cpu\nevents = 200\nmax_prime = 2000\n'
} > "$T/cmp.conf"
# The whole command in the throttled cgroup: only the loop device is capped.
bwcg() {
        bash -c 'echo $$ > "$1/cgroup.procs" && shift && exec "$@"' _ \
                "$CG" "$BENCHWATCH" -c "$T/cmp.conf" "$@"
}

bwcg run root slow > "$T/table" 2> "$T/err" || fail "run root slow: $(cat "$T/err")"
cat "$T/table"
bwcg run root slow --format=json > "$T/cmp.json" 2> "$T/err" || fail "json: $(cat "$T/err")"

# The table, cell by cell: columns end where the probe names end (cells
# are right-aligned), the row title is the text before the first column.
TABLE_PY=$top_srcdir/tests/integration/lib/compare_table.py

python3 - "$TABLE_PY" "$T/table" "$T/cmp.json" "$CAP" <<'PY' || fail "table: $(cat "$T/table")"
import json, sys
exec(open(sys.argv[1]).read())
names, rows = table(sys.argv[2])
cap = float(sys.argv[4])
assert names == ["root", "slow"], names
assert rows["plugin"] == {"root": "disk", "slow": "disk"}, rows["plugin"]
assert "path" in rows and rows["path"]["slow"].startswith("/dev/loop"), rows.get("path")
assert "mode" not in rows and "block_size" not in rows, "parameters that do not differ shown"
want = ["read IOPS", "read MiB/s"] + ["read latency " + s for s in ("min", "avg", "p95", "p99", "max")]
for w in want:
    assert w in rows, "no row %r in %s" % (w, list(rows))
assert rows["run"]["root"].startswith("ok") and rows["run"]["slow"].startswith("ok")
assert "e+0" not in open(sys.argv[2]).read()
iops = {n: number(rows["read IOPS"][n]) for n in names}
print("IOPS root %.0f, slow %.0f (cap %.0f)" % (iops["root"], iops["slow"], cap))
assert 0.6 * cap <= iops["slow"] <= 1.2 * cap, "throttled IOPS not near the cap"
assert iops["root"] > 5 * iops["slow"], "root disk not far faster than the throttled device"
# MiB/s is IOPS x 4 KiB, in the table's own figures
for n in names:
    mib = number(rows["read MiB/s"][n])
    assert abs(mib - iops[n] * 4096 / 1048576) <= 0.01 * mib + 0.01, (n, mib, iops[n])
    lat = [number(rows["read latency " + s][n]) for s in ("min", "avg", "p95", "p99", "max")]
    assert lat[0] <= lat[1] <= lat[4] and lat[0] <= lat[2] <= lat[3] <= lat[4], (n, lat)
# the JSON: both results, as `run`'s usual JSON each
j = json.load(open(sys.argv[3]))
res = {r["probe"]: r for r in j["results"]}
assert list(res) == ["root", "slow"] and all(r["success"] and r["plugin"] == "disk" for r in res.values())
def fig(r, name, **labels):
    return next(s for m in r["metrics"] if m["name"] == name for s in m["samples"]
                if all(s["labels"].get(k) == v for k, v in labels.items()))
jiops = {n: fig(res[n], "benchwatch_disk_iops", op="read")["value"] for n in names}
assert 0.6 * cap <= jiops["slow"] <= 1.2 * cap and jiops["root"] > 5 * jiops["slow"], jiops
PY

# The table and the JSON are two runs (one invocation prints one format),
# but the throttle fixes the slow probe's figures, so its table cells must
# agree with the JSON's; that a cell is exactly the JSON's figure of the
# same result (avg = mean, p95 = quantile 0.95 ...) is test_compare's.
python3 - "$TABLE_PY" "$T/table" "$T/cmp.json" <<'PY' || fail "table and JSON disagree"
import json, sys
exec(open(sys.argv[1]).read())
names, rows = table(sys.argv[2])
r = next(r for r in json.load(open(sys.argv[3]))["results"] if r["probe"] == "slow")
s = next(s for m in r["metrics"] if m["name"] == "benchwatch_disk_iops" for s in m["samples"])
t = number(rows["read IOPS"]["slow"])
assert abs(t - s["value"]) <= 0.15 * s["value"], (t, s["value"])
lat = next(s for m in r["metrics"] if m["name"] == "benchwatch_disk_latency_seconds"
           for s in m["samples"])
t = number(rows["read latency avg"]["slow"])
assert abs(t - lat["mean"]) <= 0.3 * lat["mean"], (t, lat["mean"])
PY

# A failing probe: FAILED in its column, the others ran, exit status 1;
# two plugins: the union of their rows, "-" where a probe has none.
bw() { "$BENCHWATCH" -c "$T/cmp.conf" "$@"; }
bw run cpu broken > "$T/fail" 2> "$T/err"; rc=$?
cat "$T/fail"
[ $rc = 1 ] || fail "a failed probe among several: exit $rc, want 1 ($(cat "$T/err"))"
python3 - "$TABLE_PY" "$T/fail" <<'PY' || fail "failed/mixed table: $(cat "$T/fail")"
import sys
exec(open(sys.argv[1]).read())
names, rows = table(sys.argv[2])
assert names == ["cpu", "broken"], names
assert rows["plugin"] == {"cpu": "cpu", "broken": "disk"}
assert rows["run"]["cpu"].startswith("ok") and rows["run"]["broken"].startswith("FAILED")
assert rows["cpu events/s"]["broken"] == "FAILED" and number(rows["cpu events/s"]["cpu"]) > 0
assert "cpu latency p95" in rows
assert "was not created by" in open(sys.argv[2]).read()
PY
bw run cpu broken --format=json > "$T/fail.json" 2> /dev/null; [ $? = 1 ] || fail "json exit status"
json "$T/fail.json" '[x["success"] for x in r["results"]] == [True, False]' || fail "failed probe in JSON"
bw run cpu root > "$T/mixed" 2> /dev/null || fail "mixed plugins"
python3 - "$TABLE_PY" "$T/mixed" <<'PY' || fail "mixed rows: $(cat "$T/mixed")"
import sys
exec(open(sys.argv[1]).read())
names, rows = table(sys.argv[2])
assert rows["cpu events/s"]["root"] == "-" and rows["disk read IOPS"]["cpu"] == "-", rows
PY

# One probe: today's report, unchanged.
bw run cpu > "$T/one" 2> /dev/null || fail "one probe"
grep -q "^benchwatch .*: probe 'cpu' (plugin cpu)$" "$T/one" && grep -q "^Figures:" "$T/one" ||
        fail "one probe's report changed: $(cat "$T/one")"
bw run cpu --format=json > "$T/one.json" 2> /dev/null || fail "one probe json"
json "$T/one.json" 'r["probe"] == "cpu" and "results" not in r' || fail "one probe's JSON changed"
# Every probe is checked before the first runs: a typo is a usage error.
bw run cpu root nosuch 2> "$T/err" > /dev/null; [ $? = 2 ] &&
        grep -q "disk probe 'root': command line: 'nosuch' is not of the form NAME=VALUE" "$T/err" ||
        fail "a word that is no probe after the second: $(cat "$T/err")"
bw run cpu root size=1k 2> "$T/err" > /dev/null; [ $? = 2 ] && grep -q "probe 'root'" "$T/err" ||
        fail "a bad parameter of the second probe: $(cat "$T/err")"
echo "compare: ok"
