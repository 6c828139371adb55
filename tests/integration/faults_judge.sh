#!/bin/bash
# faults_judge.sh — the fault campaign's judge (tests/faults/faults.py report)
# on a made-up kept directory holding the cases the hour of faults (issue
# 31) misjudged, against a stand-in Prometheus (tests/integration/lib/
# faults_judge.py says what each case is).  Checked: a garbage write that
# came after its run's result hit nothing, nor did a stop logged 5 ms
# before its run's result was journaled, while a stopped run that
# succeeded a second later is still a breach; two runs at one millisecond (a clock
# stepped back) are "shared", not a wrong value; runs dropped and counted
# by daemons killed since are counted dropped (each daemon's counter, not
# the last textfile's), runs still in the spool at the end are not lost; a
# regression that `benchwatch replay` still raises
# without any run near a fault is not the faults' doing, one carried by
# the runs after nginx came back is; a run's timestamp is read on the real
# clock in the order the runs came (one after a jump back is not taken for
# one made during the jump) and, where that is not enough (two jumps), by
# the journal's results; db's transactions/s of the hour, which move with
# the host's load, keep their verdicts when replay's reference spans the
# daemon's, and so do disk's latencies of the hour of seed 3232, whose
# reference learnt no more after its first verdict at the 16th run.  The
# old judge reported 2 fault-hit successes, 1 wrong value, 5 runs lost (0
# counted) and every verdict as a breach; the judge of 1f9cdfc took db's
# verdicts for the faults', that of 4312755 disk's.
. "$top_srcdir/tests/integration/lib/lib.sh"
PY=$top_srcdir/tests/faults/faults.py
export FAULTS_DIR=$top_srcdir/tests/faults BENCHWATCH
python3 "$top_srcdir/tests/integration/lib/faults_judge.py" "$T/kept" > "$T/port" 2> "$T/judge.err" &
BW_PIDS="$BW_PIDS $!"
wait_for 30 test -s "$T/port" || fail "the stand-in did not start: $(cat "$T/judge.err")"
port=$(cat "$T/port")
python3 "$PY" report "$T/kept" "$T/kept/state" "http://127.0.0.1:$port" 1 1200 > "$T/report" 2>&1
rc=$?
cat "$T/report"
[ $rc = 1 ] || fail "report exited $rc, not 1 (the stopped run that succeeded is a breach)"
has() { grep -q -- "$1" "$T/report" || fail "the report lacks: $1"; }
lacks() { ! grep -q -- "$1" "$T/report" || fail "the report says: $(grep -- "$1" "$T/report")"; }
has "fault-hit runs counted as success 1 (lost with their daemon 0; faults that came after their run's result, nothing hit 2)"
has "stop_child at 41 s: cpu run succeeded"
lacks "garbage at 31 s"
lacks "stop_child at 51 s"
has "remote write: lost 3, counted dropped 3 (all daemons), wrong values 0, unexplained 0; runs sharing a timestamp with another (clock stepped back; one sample) 1; still spooled at the end (sent at the next start) 2"
lacks "lost by remote write"
grep 'benchwatch_cpu_latency_seconds.*verdict' "$T/report" | grep -q -- "-> not the faults' doing" ||
        fail "cpu's verdicts, with no fault near, taken for the faults'"
grep 'benchwatch_http_latency_seconds.*verdict' "$T/report" | grep -q -- "-> the faults' doing" ||
        fail "web's verdicts, carried by the runs after nginx came back, not taken for the faults'"
grep 'benchwatch_mysql_transactions_per_second.*verdict' "$T/report" | grep -q -- "-> not the faults' doing" ||
        fail "db's verdicts of the hour, on runs far from any fault, taken for the faults'"
grep 'benchwatch_disk_latency_seconds.*verdict' "$T/report" | grep -q -- "-> not the faults' doing" ||
        fail "disk's latency verdicts of the hour of seed 3232, entered on its 16th run, taken for the faults'"
has "made by the faults 1, raised without any run near a fault too 3; runs counted in a reference while a fault held their probe 0"
echo "ok: the judge's cases"
