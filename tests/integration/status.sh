#!/bin/bash
# `benchwatch status` beside a real daemon: before any run, while the
# reference is being learnt (runs held, when the first verdict is due),
# once it is pinned (verdict, pinned since, next run), after the daemon
# stopped, with a probe whose runs fail (exit 1, the reason shown), and
# with a baseline file it cannot read (exit 3, the file left alone).
. "$top_srcdir/tests/integration/lib/lib.sh"

# runs of 0.6 s at a duty cycle of 0.5: 1.2 s or more apart, not the 1-s
# interval, and status says when the first verdict is due by that
test_daemon_section "$T" | sed 's/^duty_cycle = 1$/duty_cycle = 0.5/' > "$T/bw.conf"
grep -qx 'duty_cycle = 0.5' "$T/bw.conf" || fail "no duty_cycle line to change"
cat >> "$T/bw.conf" <<CONF
first_splay = 0

[regression]
reference_runs = 5
min_runs = 5
# this test's runs count even on a VM whose CPU is being stolen or
# taken by the test's own status commands (it tests what status shows,
# not which runs count: room.sh and verify_early.sh do)
max_steal = 1
max_run_delay = 1

[probe cpu]
plugin = cpu
max_prime = 2000
duration = 0.6s
interval = 1s
timeout = 30s

[journal]
enabled = no

[textfile]
path = $T/bw.prom
CONF

status() { "$BENCHWATCH" -c "$T/bw.conf" status "$@"; }
# runs held by probe $1 >= $2 (read while the daemon runs)
held_at_least() {
        status --format=json > "$T/s.json" 2> /dev/null
        python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); p=[p for p in r["probes"] if p["name"]==sys.argv[2]][0]; sys.exit(0 if p["reference"]["runs"] >= int(sys.argv[3]) else 1)' \
                "$T/s.json" "$1" "$2"
}
# check_json FILE CODE: run the statements of CODE with r the parsed FILE
check_json() {
        python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); exec(sys.argv[2])' "$1" "$2"
}
# counted runs of cpu in its history (one series: each run once)
history_counted() {
        awk 'NR > 1 && $2 == 1 && $6 ~ /^benchwatch_cpu_events_per_second/ { n++ } END { print n + 0 }' \
                "$T/state/history-cpu.txt"
}

# No daemon yet: learning, nothing run, exit 0.
status > "$T/out" 2> "$T/err"; rc=$?
[ $rc = 0 ] || fail "status before any run: exit $rc: $(cat "$T/err")"
grep -q "has not run" "$T/out" || fail "status before any run: $(cat "$T/out")"
grep -Eq '^cpu +never +- +0/0 +0/5 +learning' "$T/out" || fail "status before any run: $(cat "$T/out")"

# Learning: stopped after two counted runs or more, fewer than five.
daemon_start "$T"
wait_quietly 60 held_at_least cpu 2 || fail "no 2 runs in 60s: $(tail -3 "$T/daemon.err")"
daemon_stop
status --format=json > "$T/s.json" || fail "status while learning: exit $?"
held=$(history_counted)
[ "$held" -ge 2 ] || fail "history holds $held counted runs"
if [ "$held" -lt 5 ]; then
        check_json "$T/s.json" "
p = r['probes'][0]
assert p['name'] == 'cpu' and p['plugin'] == 'cpu', p
assert p['reference']['runs'] == $held, (p['reference'], $held)
assert p['reference']['pinned'] is False and p['verdict'] == 'learning', p
assert p['last_run']['ok'] is True and p['last_run']['counted'] is True, p
# due: the last run's time + (min_runs - held) x the mean period, here
# the last run's time over the duty cycle (status.txt's 11th field)
took = float([l.split()[10] for l in open('$T/state/status.txt') if l.startswith('probe cpu ')][0])
assert 0.6 <= took < 1.5, took
assert abs(p['first_verdict_due'] - (p['last_run']['time'] + (5 - $held) * took / 0.5)) < 0.01, (p, took)
assert r['daemon']['running'] is False and p['next_run'] is None, r['daemon']
assert r['problems'] == 0 and r['exit'] == 0, r" || fail "status while learning: $(cat "$T/s.json")"
fi
status > "$T/out" || fail "status while learning: exit $?"
grep -q "daemon: NOT RUNNING" "$T/out" || fail "stopped daemon not said: $(cat "$T/out")"

# Pinned: a verdict, the reference's date, the next run; exit 0.
daemon_start "$T"
wait_quietly 60 held_at_least cpu 5 || fail "no reference after 60s: $(tail -3 "$T/daemon.err")"
sleep 0.5
status --format=json > "$T/s.json"; rc=$?
[ $rc = 0 ] || fail "status with a reference: exit $rc: $(cat "$T/s.json")"
check_json "$T/s.json" "
p = r['probes'][0]
assert p['reference']['runs'] == 5 and p['reference']['pinned'] is True, p['reference']
assert p['reference']['pinned_since'] > 1.7e9, p['reference']
assert p['verdict'] == 'ok' and p['first_verdict_due'] is None, p
assert p['change'] is not None and p['change_lo'] <= p['change'] <= p['change_hi'], p
assert r['daemon']['running'] is True and p['next_run'] is not None, r
tf = [s for s in r['sinks'] if s['name'] == 'textfile'][0]
assert tf['path'] == '$T/bw.prom' and tf['last_write'] is not None, tf" || fail "status with a reference: $(cat "$T/s.json")"
status > "$T/out" || fail "status with a reference: exit $?"
grep -Eq '^cpu +[0-9]+s ago ok +yes +0/0 +5/5 since 20[0-9-]+ +ok ' "$T/out" ||
        fail "status table with a reference: $(cat "$T/out")"
grep -q "daemon: running (pid $dpid" "$T/out" || fail "running daemon not said: $(cat "$T/out")"
daemon_stop

# A probe that fails: its directory goes away once the daemon started.
# Its name is longer than the table's probe column was wide.
mkdir "$T/gone"
cat >> "$T/bw.conf" <<CONF

[probe disk-in-a-gone-dir]
plugin = disk
path = $T/gone/bw.dat
size = 4M
duration = 0.2s
interval = 1s
CONF
daemon_start "$T"
sleep 0.3
rm -rf "$T/gone"
failing() { status > /dev/null 2>&1; [ $? = 1 ]; }
wait_for 60 failing || fail "status never said the disk probe fails: $(status 2>&1)"
status > "$T/out"; rc=$?
[ $rc = 1 ] || fail "status with a failing probe: exit $rc"
grep -Eq '^disk-in-a-gone-dir +[0-9]+s ago FAILED' "$T/out" || fail "failing probe: $(cat "$T/out")"
grep -q "disk-in-a-gone-dir: last run failed: .*gone" "$T/out" || fail "no reason: $(cat "$T/out")"
# every row's columns under the header's, the long name's too
python3 - "$T/out" <<'PY' || fail "status columns not aligned: $(cat "$T/out")"
import sys
lines = open(sys.argv[1]).read().splitlines()
col = next(l for l in lines if l.startswith("probe ")).index("last run")
rows = [l for l in lines if l.startswith(("cpu ", "disk-in-a-gone-dir "))]
assert len(rows) == 2 and all(r[col - 1] == " " and r[col] != " " for r in rows), rows
PY
status --format=json > "$T/s.json"; rc=$?
[ $rc = 1 ] || fail "status --format=json with a failing probe: exit $rc"
check_json "$T/s.json" "
d = [p for p in r['probes'] if p['name'] == 'disk-in-a-gone-dir'][0]
assert d['last_run']['ok'] is False and 'gone' in d['last_run']['why'], d
assert r['problems'] == 1 and r['exit'] == 1, r" || fail "status with a failing probe: $(cat "$T/s.json")"
daemon_stop

# A baseline file this benchwatch cannot read (a newer one's): status says
# so, exit 3, shows every probe still, and leaves the file for the daemon
base=$T/state/baseline-cpu.txt
[ -f "$base" ] || fail "no $base"
cp "$base" "$T/base.orig"
sed -i '1s/.*/benchwatch-baseline 99/' "$base"
cp "$base" "$T/base.bad"
status > "$T/out" 2> "$T/err"; rc=$?
[ $rc = 3 ] || fail "status with an unreadable baseline: exit $rc: $(cat "$T/err")"
grep -q "baseline file '$base' has format version 99.*the daemon moves it aside" "$T/err" ||
        fail "unreadable baseline not said: $(cat "$T/err")"
grep -Eq '^cpu ' "$T/out" && grep -Eq '^disk-in-a-gone-dir ' "$T/out" ||
        fail "status with an unreadable baseline: $(cat "$T/out")"
cmp -s "$base" "$T/base.bad" && [ -z "$(ls "$T/state" | grep corrupt)" ] ||
        fail "status moved or changed the baseline file: $(ls "$T/state")"
cp "$T/base.orig" "$base"

status --format=xml > /dev/null 2>&1; rc=$?
[ $rc = 2 ] || fail "status --format=xml: exit $rc, want 2"
echo "status: ok"
