#!/bin/bash
# `benchwatch replay` and `baseline import`, as an operator uses them on a
# history of their own: the daemon's detector on a series (a step and a
# drift are flagged where they are, noise is not), table and JSON, files
# with timestamps and headers, file:line errors for bad files; a reference
# imported from a history is pinned and used; a version 1 baseline file
# (the per-run rule's) is still read and keeps its learnt level.
. "$top_srcdir/tests/integration/lib/lib.sh"

# 120 clean runs at 5% noise, then a 15% step: flagged within 8 runs of it.
python3 - > "$T/step.txt" <<'PY'
import math, random
random.seed(5)
print("# IOPS of a disk, one run a line")
for i in range(160):
    print(round((1000 if i < 120 else 850) * math.exp(random.gauss(0, 0.05)), 1))
PY
bw replay "$T/step.txt" > "$T/out" 2> "$T/err"; rc=$?
[ $rc = 1 ] || fail "replay ending in a regression: exit $rc, want 1: $(cat "$T/err")"
grep -q "reference pinned at run 100" "$T/out" || fail "replay summary: $(tail -2 "$T/out")"
entered=$(awk '$NF == "entered" { print $1 }' "$T/out")
[ -n "$entered" ] && [ "$entered" -gt 120 ] && [ "$entered" -le 128 ] ||
        fail "step at run 121 flagged at run '$entered'"
[ "$(awk '$NF == "entered"' "$T/out" | wc -l)" = 1 ] || fail "more than one alarm: $(grep entered "$T/out")"

bw replay --format=json "$T/step.txt" > "$T/out.json" || [ $? = 1 ] || fail "replay json"
json "$T/out.json" 'len(r["results"]) == 160 and r["pinned_at_run"] == 100 and r["regressions"] == 1' ||
        fail "replay json: $(head -c 300 "$T/out.json")"
json "$T/out.json" 'all(x["state"] == "learning" and x["reference"] is None for x in r["results"][:9])' ||
        fail "a verdict before the reference held 10 runs"
json "$T/out.json" 'all(x["state"] == "ok" and x["reference"] is not None for x in r["results"][9:99])' ||
        fail "no verdict from the tenth run while the reference is learnt"
json "$T/out.json" '-0.2 < r["results"][-1]["change"] < -0.1 and r["results"][-1]["state"] == "REGRESSION"' ||
        fail "change at the end: $(python3 -c "import json; print(json.load(open('$T/out.json'))['results'][-1])")"

# Latency with timestamps and a header: higher is worse; a slow drift of
# +0.5% a run from run 131 is flagged before +12%, against the pinned level.
python3 - > "$T/lat.csv" <<'PY'
import math, random
random.seed(9)
print("timestamp,value")
for i in range(200):
    level = 0.002 * (1 + 0.005 * max(0, i - 130))
    print("%d,%.9f" % (1764547200 + 600 * i, level * math.exp(random.gauss(0, 0.03))))
PY
bw replay --lower-is-better "$T/lat.csv" > "$T/lat.out"; rc=$?
[ $rc = 1 ] || fail "drift replay: exit $rc"
entered=$(awk '$NF == "entered" { print $1; exit }' "$T/lat.out")
[ -n "$entered" ] && [ "$entered" -gt 131 ] && [ "$entered" -lt 155 ] || fail "drift flagged at run '$entered'"
grep -q "^ *101 2025-12-01T16:40:00Z" "$T/lat.out" || fail "timestamps: $(sed -n 102p "$T/lat.out")"

# the same file as "higher is better": a rising latency is no regression
bw replay "$T/lat.csv" > /dev/null || fail "an improvement was flagged"

# bad files: a clear error naming file and line, exit 2
printf '100\n101\n-5\n' > "$T/neg.txt"
bw replay "$T/neg.txt" > /dev/null 2> "$T/err"; rc=$?
[ $rc = 2 ] && grep -q "neg.txt:3: a figure must be a number > 0, not '-5'" "$T/err" || fail "negative: $rc $(cat "$T/err")"
printf '1764547200,100\n101\n' > "$T/mixed.txt"
bw replay "$T/mixed.txt" > /dev/null 2> "$T/err"; rc=$?
[ $rc = 2 ] && grep -q "mixed.txt:2: no timestamp, unlike the lines before" "$T/err" || fail "mixed: $(cat "$T/err")"
printf '1764547200,100\n1764540000,101\n' > "$T/back.txt"
bw replay "$T/back.txt" > /dev/null 2> "$T/err"; rc=$?
[ $rc = 2 ] && grep -q "back.txt:2: timestamp earlier" "$T/err" || fail "back in time: $(cat "$T/err")"
printf '100\nabc\n' > "$T/word.txt"
bw replay "$T/word.txt" > /dev/null 2> "$T/err"; rc=$?
[ $rc = 2 ] && grep -q "word.txt:2: not a number: 'abc'" "$T/err" || fail "word: $(cat "$T/err")"
bw replay "$T/missing.txt" > /dev/null 2> "$T/err"; rc=$?
[ $rc = 3 ] && grep -q "cannot open '$T/missing.txt'" "$T/err" || fail "missing: exit $rc: $(cat "$T/err")"
bw replay > /dev/null 2> "$T/err"; [ $? = 2 ] && grep -q "which file" "$T/err" || fail "no file: $(cat "$T/err")"
# standard input
head -n 50 "$T/step.txt" | bw replay - | grep -q "still learning" || fail "replay from standard input"

# ---- baseline import -----------------------------------------------------
cat > "$T/bw.conf" <<CONF
[daemon]
state_dir = $T/state
cache_dir = $T/cache

[probe cpu]
plugin = cpu
CONF
KEY='benchwatch_cpu_events_per_second{max_prime="10000",threads="1"}'
"$BENCHWATCH" -c "$T/bw.conf" baseline import cpu "$T/step.txt" > "$T/out" 2> "$T/err"; rc=$?
[ $rc = 2 ] && grep -q "whole key" "$T/err" || fail "import without a key: $rc $(cat "$T/err")"
head -n 101 "$T/step.txt" > "$T/hist.txt"
"$BENCHWATCH" -c "$T/bw.conf" baseline import cpu "$T/hist.txt" --metric "$KEY" > "$T/out" 2> "$T/err" ||
        fail "import: $(cat "$T/err")"
grep -q "pinned on the last 100 of 100 run(s)" "$T/out" || fail "import said: $(cat "$T/out")"
"$BENCHWATCH" -c "$T/bw.conf" baseline show cpu > "$T/show" || fail "baseline show"
grep -F "$KEY" "$T/show" | grep -q " ok .* \(99[0-9]\|1\.00k\) " || fail "imported reference: $(cat "$T/show")"
# a family alone now names the one series
"$BENCHWATCH" -c "$T/bw.conf" baseline import cpu "$T/hist.txt" --metric benchwatch_cpu_events_per_second \
        > /dev/null 2>&1 || fail "import by family"
"$BENCHWATCH" -c "$T/bw.conf" baseline import cpu "$T/neg.txt" --metric "$KEY" > /dev/null 2> "$T/err"; rc=$?
[ $rc = 2 ] && grep -q "neg.txt:3:" "$T/err" || fail "import of a bad file: $(cat "$T/err")"
printf '1\n2\n' > "$T/two.txt"
"$BENCHWATCH" -c "$T/bw.conf" baseline import cpu "$T/two.txt" --metric "$KEY" > /dev/null 2> "$T/err"; rc=$?
[ $rc = 2 ] && grep -q "has 2 value(s); a reference needs at least" "$T/err" || fail "import of 2 values: $(cat "$T/err")"
"$BENCHWATCH" -c "$T/bw.conf" baseline import cpu "$T/hist.txt" --metric 'benchwatch_cpu_events_total' \
        > /dev/null 2> "$T/err"; rc=$?
[ $rc = 2 ] || fail "import of an untracked figure: $rc $(cat "$T/err")"
"$BENCHWATCH" -c "$T/bw.conf" baseline accept 2> "$T/err"; [ $? = 2 ] || fail "accept without a probe"

# ---- a version 1 baseline file keeps working ----------------------------
python3 - "$T/state/baseline-v1.txt" <<'PY'
import sys
body = "benchwatch-baseline 1\nprobe v1\nseries benchwatch_disk_iops{op=\"read\"}\ndirection higher\n" \
       "state 0 0 3\nvalues " + " ".join(str(40000 + 10 * (i % 5)) for i in range(20)) + "\n"
h = 0xcbf29ce484222325
for c in body.encode():
    h = ((h ^ c) * 0x100000001b3) & 0xffffffffffffffff
open(sys.argv[1], "w").write(body + "end 1 %016x\n" % h)
PY
"$BENCHWATCH" -c "$T/bw.conf" baseline show v1 > "$T/show" 2> "$T/err" || fail "v1 show: $(cat "$T/err")"
grep 'benchwatch_disk_iops{op="read"}' "$T/show" | grep -q " ok .*40\.0k " || fail "v1 file: $(cat "$T/show")"
"$BENCHWATCH" -c "$T/bw.conf" baseline accept v1 > /dev/null 2> "$T/err"; rc=$?
[ $rc = 0 ] || fail "accept on a v1 file: $(cat "$T/err")"
head -n 1 "$T/state/baseline-v1.txt" | grep -qx "benchwatch-baseline 3" || fail "not rewritten as version 3"
echo "replay: ok"
