#!/bin/bash
# An orphan goes promptly even when the CPUs are busy: with both CPUs
# saturated by nice-0 work (stress-ng), the daemon is killed (-9) in the
# middle of a 30 s two-thread cpu run at nice 10, several times; each time
# its `benchwatch __child` must be gone within ORPHAN_LIMIT seconds of the
# kill (the promise is one second; the child's own grace is 0.1 s).  The
# lifetime is measured by a pidfd, not by polling from a starved shell.
# Before the fix, the death signal waited for a starved nice-10 thread and
# then a whole-second alarm: 1.05-1.98 s on a host with a web workload.
. "$top_srcdir/tests/integration/lib/lib.sh"
command -v stress-ng > /dev/null || skip "stress-ng not installed (tools/install-deps)"
python3 -c 'import os; os.pidfd_open' 2> /dev/null || skip "python3 without os.pidfd_open"
# 3 tries: before the fix 8 of 10 tries lived over a second, so 3 catch
# it 99 times in 100 (ORPHAN_TRIES=10 for a closer look)
TRIES=${ORPHAN_TRIES:-3}
LIMIT=${ORPHAN_LIMIT:-1.0}
HOGS=${ORPHAN_HOGS:-$(( $(nproc) * 24 ))}

test_daemon_section "$T" | sed 's/^nice = .*/nice = 10/' > "$T/bw.conf"
printf '[journal]\nenabled = no\n[probe c]\nplugin = cpu\nthreads = 2\nduration = 30s\ntimeout = 1min\ninterval = 1h\n' >> "$T/bw.conf"

# a process group of its own (stress-ng signals its group when it ends),
# but the same session: with autogroup scheduling another session would be
# another group, and the probe would not compete with the hogs at all
python3 -c 'import os, sys; os.setpgid(0, 0); os.execvp(sys.argv[1], sys.argv[1:])' \
        stress-ng --cpu "$HOGS" --timeout $(( TRIES * 20 + 30 ))s > "$T/stress.log" 2>&1 &
STRESS=$!
BW_PIDS="$STRESS"
child_of() { pgrep -P "$1" -f "__child --parent=$1"; }

worst=0 # in ms, as bash compares them: no process to start beside the hogs
for i in $(seq "$TRIES"); do
        "$BENCHWATCH" -c "$T/bw.conf" daemon > "$T/out" 2> "$T/err" &
        parent=$!
        BW_PIDS="$STRESS $parent"
        wait_for 20 child_of "$parent" > /dev/null || fail "no probe process: $(cat "$T/err")"
        child=$(child_of "$parent")
        BW_PIDS="$STRESS $parent $child"
        sleep 2 # well into the run: both probe threads busy
        # (from /proc: ps shows no nice for a task under SCHED_IDLE)
        [ "$(sed 's/.*) //' "/proc/$child/stat" | awk '{print $17}')" = 10 ] ||
                fail "probe not at nice 10"
        # the measuring process at nice -5 (as root), so that it starts at once
        # beside the hogs (its clock starts after the pidfd is open)
        took=$(nice -n -5 python3 - "$parent" "$child" <<'PY'
import os, select, signal, sys, time
parent, child = int(sys.argv[1]), int(sys.argv[2])
fd = os.pidfd_open(child)
t0 = time.monotonic()
os.kill(parent, signal.SIGKILL)
p = select.poll()
p.register(fd, select.POLLIN)
if not p.poll(10000):
    sys.exit("probe process %d still alive 10 s after the daemon's kill -9" % child)
print("%.3f" % (time.monotonic() - t0))
PY
) || { kill -9 "$child" 2> /dev/null; fail "try $i: cannot measure: $(tail -n 3 "$T/err")"; }
        wait "$parent" 2> /dev/null
        echo "try $i: orphaned probe process gone ${took} s after kill -9 of the daemon (CPUs busy: $HOGS stress-ng workers)"
        took_ms=$((10#${took/./}))
        [ "$took_ms" -gt "$worst" ] && worst=$took_ms
done
kill "$STRESS" 2> /dev/null; wait "$STRESS" 2> /dev/null
BW_PIDS=""
worst=$(printf '%d.%03d' $((worst / 1000)) $((worst % 1000)))
awk -v w="$worst" -v l="$LIMIT" 'BEGIN { exit !(w < l) }' ||
        fail "an orphaned probe process lived ${worst} s (limit ${LIMIT} s)"
echo "orphan_busy: ok (worst ${worst} s over $TRIES tries)"
