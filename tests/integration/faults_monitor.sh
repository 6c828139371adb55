#!/bin/bash
# faults_monitor.sh — the fault campaign's orphan watch (tests/faults/faults.py
# monitor) counts what it should.  The 20-minute campaign counted an orphan
# that lived 1.02 s while no daemon died: the only probe process then was a
# stopped one, whose daemon was up all along.  A scan of /proc is not
# atomic, so an orphan is now one whose parent, read again on its own, is
# not a daemon, and its end is its /proc entry gone, not a scan that missed
# it.  Here, with stand-ins (bash scripts run as `benchwatch daemon` and
# `benchwatch __child`): no orphan while the daemon lives; after a kill -9
# of it, one orphan whose life is the time until the test kills it (0.6 s),
# naming its new parent; daemon_parent() and child_alive() on live and
# dead processes; the daemon's remote-write dropped counter read from a
# textfile it wrote, not from its predecessor's (a "state" in the monitor
# once hid it: the probe process's state letter shadowed the directory).
. "$top_srcdir/tests/integration/lib/lib.sh"
PY=$top_srcdir/tests/faults/faults.py
[ -f "$PY" ] || skip "no $PY"
[ -r "/proc/$$/ns/pid" ] || skip "cannot read /proc/$$/ns/pid"
cat > "$T/__child" <<'EOF'
sleep 60 & wait
EOF
cat > "$T/daemon" <<'EOF'
(exec -a benchwatch bash __child) & wait
EOF
cd "$T" || fail "cd $T"
(exec -a benchwatch bash daemon) &
dpid=$!
BW_PIDS="$BW_PIDS $dpid"
child() { pgrep -P "$dpid" -f '^benchwatch __child'; }
wait_for 5 child > /dev/null || fail "the stand-in daemon started no child"
cpid=$(child)
BW_PIDS="$BW_PIDS $cpid"
# the remote-write dropped counter of the textfile: a predecessor's file
# (older than the daemon) is not this daemon's count, its own is
mkdir -p "$T/state"
echo "benchwatch_remote_write_dropped_total 9" > "$T/state/benchwatch.prom"
touch -d '-60 sec' "$T/state/benchwatch.prom"
python3 "$PY" monitor $$ "$T/mon.jsonl" "$T/state" &
mpid=$!
BW_PIDS="$BW_PIDS $mpid"
sleep 1.5
echo "benchwatch_remote_write_dropped_total 7" > "$T/state/benchwatch.prom"
# the monitor reads the counter every 5 s
own_dropped_seen() { grep '"ev": "dropped"' "$T/mon.jsonl" | grep "\"pid\": $dpid," | grep -q '"n": 7'; }
wait_for 15 own_dropped_seen
grep '"ev": "dropped"' "$T/mon.jsonl" | grep -q '"n": 9' &&
        fail "the predecessor's dropped count taken for the daemon's: $(cat "$T/mon.jsonl")"
grep '"ev": "dropped"' "$T/mon.jsonl" | grep "\"pid\": $dpid," | grep -q '"n": 7' ||
        fail "the daemon's dropped count not read: $(grep -v orphan "$T/mon.jsonl")"
# other benchwatch processes on this host may be seen too: only ours count
grep '"ev": "orphan' "$T/mon.jsonl" | grep -q "\"pid\": $cpid," &&
        fail "an orphan while its daemon lives: $(cat "$T/mon.jsonl")"
# the functions on their own, the daemon alive
python3 - "$PY" $$ "$dpid" "$cpid" alive <<'PY' || fail "daemon_parent/child_alive with the daemon alive"
import importlib.util, os, sys
spec = importlib.util.spec_from_file_location("faults", sys.argv[1])
f = importlib.util.module_from_spec(spec)
spec.loader.exec_module(f)
ns = os.readlink("/proc/%s/ns/pid" % sys.argv[2])
d, c = int(sys.argv[3]), int(sys.argv[4])
start = f.proc_stat(c)[2]
assert f.daemon_parent(ns, d) is None, f.daemon_parent(ns, d)
assert f.child_alive(c, start)
assert not f.child_alive(c, start + 1)  # another process with that pid
PY
t_kill=$(date +%s.%N)
kill -KILL "$dpid"
wait "$dpid" 2>/dev/null
sleep 0.6
kill -KILL "$cpid"
t_orphan_killed=$(date +%s.%N)
orphan_seen() { grep '"ev": "orphan' "$T/mon.jsonl" | grep -q "\"pid\": $cpid,"; }
wait_for 5 orphan_seen
kill -TERM "$mpid"
wait "$mpid" 2>/dev/null
between=$(python3 -c "print($t_orphan_killed - $t_kill)")
python3 - "$PY" $$ "$dpid" "$cpid" "$T/mon.jsonl" "$between" <<'PY' || fail "after the daemon's kill: $(cat "$T/mon.jsonl")"
import importlib.util, json, os, sys
spec = importlib.util.spec_from_file_location("faults", sys.argv[1])
f = importlib.util.module_from_spec(spec)
spec.loader.exec_module(f)
ns = os.readlink("/proc/%s/ns/pid" % sys.argv[2])
d, c = int(sys.argv[3]), int(sys.argv[4])
assert f.daemon_parent(ns, d) == "pid %d gone" % d, f.daemon_parent(ns, d)
ev = [json.loads(l) for l in open(sys.argv[5])]
orphans = [e for e in ev if e["ev"].startswith("orphan") and e["pid"] == c]
assert len(orphans) == 1 and orphans[0]["ev"] == "orphan", orphans
# killed 0.6 s after its daemon (as this shell measured it, slower under
# load); the watch looks ten times a second
assert 0.3 <= orphans[0]["lived"] <= float(sys.argv[6]) + 0.4, (orphans[0], sys.argv[6])
print("orphan seen: lived %.3f s, parent: %s" % (orphans[0]["lived"], orphans[0]["parent"]))
PY
exit 0
