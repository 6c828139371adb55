#!/bin/bash
# A daemon whose state_dir does not exist yet makes it, whatever sinks it
# has: with [remote_write] (whose spool lives in state_dir) as without.
# check-config said OK and the daemon then refused to start ("cannot use
# spool_dir .../remote-write: No such file or directory"): both must agree.
# The receiver is a closed port on 127.0.0.1: the runs wait in the spool.
# Started again on that state_dir, the daemon removes the temporary files a
# kill -9 between a write's create and its rename left (an hour of faults
# found status.txt.tmp-* piling up there), and nothing else.
. "$top_srcdir/tests/integration/lib/lib.sh"

for with_rw in no yes; do
        S="$T/$with_rw/not/yet"
        test_daemon_section "$T/$with_rw" | sed "s|^state_dir = .*|state_dir = $S|" > "$T/bw.conf"
        cat >> "$T/bw.conf" <<CONF
first_splay = 0

[probe c]
plugin = cpu
max_prime = 2000
duration = 0.2s
interval = 1s

[journal]
enabled = no
CONF
        [ $with_rw = yes ] && printf '[remote_write]\nurl = http://127.0.0.1:9/api/v1/write\n' >> "$T/bw.conf"
        "$BENCHWATCH" -c "$T/bw.conf" check-config > "$T/out" 2>&1 || fail "check-config ($with_rw): $(cat "$T/out")"
        [ ! -e "$S" ] || fail "check-config created $S"
        "$BENCHWATCH" -c "$T/bw.conf" daemon > "$T/daemon.out" 2> "$T/daemon.err" &
        dpid=$!
        BW_PIDS="$dpid"
        ran() { [ -s "$S/history-c.txt" ] || ! kill -0 "$dpid" 2> /dev/null; }
        wait_for 30 ran || fail "no run in 30s with remote_write=$with_rw: $(cat "$T/daemon.err")"
        kill -0 "$dpid" 2> /dev/null || fail "daemon with remote_write=$with_rw exited: $(cat "$T/daemon.err")"
        [ -d "$S" ] || fail "$S not created"
        if [ $with_rw = yes ]; then
                spooled() { ls "$S/remote-write/"*.rw > /dev/null 2>&1; }
                wait_for 10 spooled || fail "no run spooled in $S/remote-write: $(cat "$T/daemon.err")"
        fi
        kill "$dpid"
        wait "$dpid"
        rc=$?
        BW_PIDS=""
        [ $rc = 0 ] || fail "daemon with remote_write=$with_rw: exit $rc: $(cat "$T/daemon.err")"
done

# $S is the last loop's, with the probe's history and the spool
for f in status.txt.tmp-Ab3xYz history-c.txt.tmp-0Qr9sT baseline-c.txt.tmp-kL2mN4; do
        echo "half of a file" > "$S/$f"
done
echo "an operator's note" > "$S/notes.tmp-keep"
mkdir "$S/dir.tmp-aBcDeF"
"$BENCHWATCH" -c "$T/bw.conf" daemon > "$T/daemon.out" 2> "$T/daemon.err" &
dpid=$!
BW_PIDS="$dpid"
left() { ls "$S" | grep -E '\.tmp-[A-Za-z0-9]{6}$' | grep -v '^dir\.'; }
cleaned() { [ -z "$(left)" ] || ! kill -0 "$dpid" 2> /dev/null; }
wait_for 10 cleaned || fail "temporary files left after a restart: $(left)"
kill -0 "$dpid" 2> /dev/null || fail "daemon restarted on $S exited: $(cat "$T/daemon.err")"
[ -f "$S/notes.tmp-keep" ] && [ -d "$S/dir.tmp-aBcDeF" ] ||
        fail "a file or directory that is no temporary file of a write was removed"
# the files go before the line that says so
wait_for 5 grep -q "removed 3 temporary file(s) an interrupted write left in '$S'" "$T/daemon.err" ||
        fail "the removal is not logged: $(cat "$T/daemon.err")"
kill "$dpid"
wait "$dpid" || fail "daemon restarted on $S: exit $?: $(cat "$T/daemon.err")"
BW_PIDS=""
echo "state_dir: created by the daemon with and without [remote_write];" \
     "an interrupted write's temporary files removed at the next start"
