#!/bin/bash
# spool_full.sh — a run completed while the state directory's file system
# is full survives a kill -9 of the daemon.  An hour of faults
# lost two runs in remote write, counted nowhere: with the file system full
# (ENOSPC) and the receiver away, the spool kept runs in memory only, and
# a kill -9 then took them.  Now the daemon keeps a reserve file in
# state_dir (util/reserve.h), released at the first ENOSPC so that the
# spool files and history lines of the next runs still reach the disk.
# Here: state_dir on a 4 MiB tmpfs, a cpu probe every second, remote write
# to a port nobody listens on; once the reserve is there, the file system
# filled to ENOSPC, five runs more, kill -9.  Checked: the reserve was
# released, every run the spool held (its gauge in the textfile, which is
# off the full file system) is a file on disk, each a whole request, and
# a new daemon finds them all.  On the old code the runs after the fill are
# in memory only, and fewer files than runs are left.
. "$top_srcdir/tests/integration/lib/lib.sh"
[ "$(id -u)" = 0 ] || skip "needs root to mount a small tmpfs"
MNT=$T/fs
trap 'mountpoint -q "$MNT" && umount "$MNT"; cleanup_test' EXIT
mkdir -p "$MNT" "$T/cache"
mount -t tmpfs -o size=4m tmpfs "$MNT" || skip "cannot mount a tmpfs"
port=$(free_port) ||
        skip "python3 cannot find a free port"
{
        test_daemon_section "$T" | sed "s|^state_dir = .*|state_dir = $MNT/state|"
        cat <<CONF
[probe c]
plugin = cpu
interval = 1s
duration = 0.1s
[textfile]
path = $T/bw.prom
[remote_write]
url = http://127.0.0.1:$port/api/v1/write
instance = t
timeout = 1s
retry_min = 100ms
retry_max = 500ms
CONF
} > "$T/bw.conf"
start() {
        "$BENCHWATCH" -c "$T/bw.conf" daemon >> "$T/daemon.log" 2>&1 < /dev/null &
        dpid=$!
        BW_PIDS="$BW_PIDS $dpid"
}
gauge() { awk '/^benchwatch_remote_write_spool_runs / { print $2 }' "$T/bw.prom" 2>/dev/null; }
files() { ls "$MNT/state/remote-write" | grep -c '\.rw$'; }
start
spooled() { [ "$(gauge)" -ge 2 ] 2>/dev/null; }
wait_for 30 spooled || fail "no run spooled: $(tail -5 "$T/daemon.log")"
reserved() { [ -f "$MNT/state/.reserve" ]; }
wait_for 5 reserved && had=yes || had=no
i=0
while dd if=/dev/zero of="$MNT/fill.$i" bs=64k count=64 status=none 2>/dev/null; do i=$((i + 1)); done
before=$(gauge)
more() { [ "$(gauge)" -ge $((before + 5)) ] 2>/dev/null; }
wait_for 30 more || fail "fewer than 5 runs spooled after the fill: $(gauge) (from $before); $(tail -5 "$T/daemon.log")"
kill -KILL "$dpid"
wait "$dpid" 2>/dev/null
held=$(gauge) on_disk=$(files)
echo "runs spooled: $held (textfile gauge at the last run), files on disk after the kill -9: $on_disk"
[ $had = yes ] || echo "no reserve file in state_dir before the fill"
[ -f "$MNT/state/.reserve" ] && fail "the reserve was not released on a full file system"
[ "$on_disk" -ge "$held" ] ||
        fail "$((held - on_disk)) run(s) of the full file system lost with the daemon: $held spooled, $on_disk on disk; $(grep -c 'keeping it in memory' "$T/daemon.log") kept in memory"
for f in "$MNT"/state/remote-write/*.rw; do
        python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); import faults; d = open(sys.argv[2], "rb").read(); sys.exit(1 if faults.check_spool(d) else 0)' \
                "$top_srcdir/tests/faults" "$f" || fail "torn spool file $f"
done
# the campaign's judge reads them as runs still spooled (faults.py)
n=$(python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); import faults; print(len(faults.spooled_runs(sys.argv[2])))' \
        "$top_srcdir/tests/faults" "$MNT/state")
[ "$n" = "$on_disk" ] || fail "faults.py spooled_runs read $n runs of $on_disk files"
# freed, a new daemon sends nothing (nobody listens) but finds every run
rm -f "$MNT"/fill.*
start
found() { grep -q "$on_disk unsent run(s) in spool" "$T/daemon.log"; }
wait_for 15 found || fail "the new daemon did not find the $on_disk spooled runs: $(grep 'unsent run' "$T/daemon.log")"
kill "$dpid"
wait "$dpid" 2>/dev/null
grep -q "unsent run(s) stay in spool" "$T/daemon.log" || fail "the stopped daemon left no spool: $(tail -3 "$T/daemon.log")"
echo "ok: $on_disk runs on disk after the kill -9, found by the next daemon"
