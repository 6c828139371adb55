#!/bin/bash
# `benchwatch sweep` through the CLI: one run per level, the table, the
# JSON with a knee that is one of the levels, a well-formed SVG plot, the
# Prometheus output carrying each level as a label, and clear errors.
. "$top_srcdir/tests/integration/lib.sh"

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
echo "sweep: ok"
