#!/bin/bash
# Yielding during a run: CPU hogs started in the middle of a 5 s cpu run
# keep its threads from the CPU, and the run stops within a second
# (measured from the hogs' start to the probe process's exit), counted as
# deferred with reason cpu (not a failure, no figures); the retry without
# the hogs runs to its end and is counted.  `benchwatch run --yield`
# yields the same way; plain `run` does not.
#
# The host is shared and noisy.  The hogs (3 per CPU) run at nice -5 as
# root (nice 0 otherwise) beside the daemon's probe under SCHED_IDLE and
# `run`'s at nice 0: its thread waits for a CPU 75-90% of the time it
# wants one, over the half the yield takes.  A control run that yields
# anyway on a host that busy by itself is a skip, not a failure.  The
# test's own polling uses shell builtins only, so it adds little.
#
# A run due while the hogs already run is deferred before it starts: the
# daemon looks for half a second, finds no idle CPU for the probe's thread
# (no room), and starts no probe process.
. "$top_srcdir/tests/integration/lib/lib.sh"

NCPU=$(nproc)
if [ "$(id -u)" = 0 ]; then HOG_NICE=-5; else HOG_NICE=0; fi
HOGS=""
stop_hogs() { for p in $HOGS; do kill "$p" 2>/dev/null; done; for p in $HOGS; do wait "$p" 2>/dev/null; done; HOGS=""; }
start_hogs() { for _ in $(seq $((3 * NCPU))); do nice -n "$HOG_NICE" sha256sum /dev/zero & HOGS="$HOGS $!"; done; }
trap 'stop_hogs; cleanup_test' EXIT
# a pipe nobody writes to: `read -t` on it is a sleep without a fork
mkfifo "$T/never" && exec 9<> "$T/never"

test_daemon_section "$T" | sed "s/^yield = no\$/yield = yes\nyield_io = 0\nyield_memory = 0/" > "$T/bw.conf"
cat >> "$T/bw.conf" <<CONF
[journal]
enabled = no
[textfile]
path = $T/bw.prom
[probe c]
plugin = cpu
duration = 5s
interval = 8s
timeout = 1min
CONF

# gone PID: no such process, or a zombie (builtins only: no fork per poll)
gone() {
        local pid comm state
        read -r pid comm state _ 2>/dev/null < "/proc/$1/stat" || return 0
        [ "$state" = Z ]
}
child_of() { pgrep -P "$1" -f "__child --parent=$1"; }
prom() { sed -n "s/^$1 //p" "$T/bw.prom" 2>/dev/null; }
DEFERRED_CPU='benchwatch_probe_deferred_total{probe="c",reason="cpu"}'
DEFERRED_ROOM='benchwatch_probe_deferred_total{probe="c",reason="room"}'

# yield_latency PARENT: starts the hogs 2 s into the run of PARENT's probe
# process; $lat is how long that process lived after them
yield_latency() {
        local child t0 t1
        wait_for 10 child_of "$1" > /dev/null || fail "no probe process: $(tail -3 "$T/err")"
        child=$(child_of "$1")
        sleep 2
        gone "$child" && skip "the host is busy by itself: the run ended before the hog started ($(cat "$T/err" "$T"/run.json 2>/dev/null | grep -o 'yielded[^"]*' | head -1))"
        t0=$EPOCHREALTIME
        start_hogs
        local limit=$(( ${t0%.*} + 9 ))
        while ! gone "$child" && [ "${EPOCHREALTIME%.*}" -lt "$limit" ]; do
                read -rt 0.02 -u 9 || :
        done
        t1=$EPOCHREALTIME
        lat=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
}

# `run` yields only when asked
"$BENCHWATCH" -c "$T/bw.conf" run c --yield --format=json > "$T/run.json" 2> "$T/err" &
rpid=$!
BW_PIDS="$rpid"
yield_latency "$rpid"
stop_hogs
wait "$rpid"
rc=$?
BW_PIDS=""
echo "run --yield: stopped ${lat} s after the hogs started, exit $rc"
[ "$rc" = 1 ] || fail "run --yield: exit $rc, want 1"
json "$T/run.json" '"yielded to other work" in r["error"]' || fail "run --yield: $(cat "$T/run.json")"
"$BENCHWATCH" -c "$T/bw.conf" run c duration=3s --format=json > "$T/run2.json" 2> "$T/err" &
rpid=$!
BW_PIDS="$rpid"
wait_for 10 child_of "$rpid" > /dev/null || fail "run: no probe process"
start_hogs
wait "$rpid" || fail "plain run (no --yield) did not complete beside the hogs: $(cat "$T/run2.json")"
stop_hogs
BW_PIDS=""
json "$T/run2.json" 'r["success"]' || fail "plain run beside the hogs"

"$BENCHWATCH" -c "$T/bw.conf" daemon --print > "$T/out" 2> "$T/err" &
dpid=$!
BW_PIDS="$dpid"
yield_latency "$dpid"
echo "daemon: cpu run stopped ${lat} s after $((3 * NCPU)) hogs started"
stop_hogs
awk -v l="$lat" 'BEGIN { exit !(l < 1.0) }' || fail "the run went on ${lat} s after the hog started (want < 1 s)"
wait_for 5 grep -q "probe 'c' deferred.*yielded to other work: the host's work kept the probe's threads waiting for a CPU [0-9]*% of the time" "$T/err" ||
        fail "no yield logged: $(tail -3 "$T/err")"
deferred_cpu_is() { [ "$(prom "$DEFERRED_CPU")" = "$1" ]; }
wait_for 5 deferred_cpu_is 1 || fail "yield not counted as deferred (cpu): $(grep deferred "$T/bw.prom")"
grep -q '^benchwatch_cpu_events_per_second' "$T/bw.prom" && fail "figures of the yielded run published"
grep -q "^cpu 'c': FAILED" "$T/out" && fail "the yielded run counted as a failure: $(cat "$T/out")"

# the retry, without the hog, runs to its end and is counted
wait_for 40 grep -q "^cpu 'c': ok" "$T/out" || {
        n=$(prom "$DEFERRED_CPU")
        [ "${n:-0}" -gt 1 ] && skip "the host is busy by itself: the control run yielded too ($n times): $(grep yielded "$T/err" | tail -1)"
        fail "no successful run after the hog stopped: $(tail -3 "$T/err")"
}
wait_for 5 grep -q '^benchwatch_cpu_events_per_second{' "$T/bw.prom" || fail "the retry's figures not published"
[ "$(prom 'benchwatch_probe_success{probe="c"}')" = 1 ] || fail "the retry is not a success"
dur=$(prom 'benchwatch_probe_duration_seconds{probe="c"}')
awk -v d="$dur" 'BEGIN { exit !(d >= 4.9) }' || fail "the retry did not run its 5 s: $dur"
kill "$dpid"
wait "$dpid"
BW_PIDS=""

# a run due while the hogs run: deferred in the look, no probe process
# (the textfile of the daemon before goes: its counts are not this one's)
rm -f "$T/bw.prom"
deferred_room() { local n; n=$(prom "$DEFERRED_ROOM"); [ "${n:-0}" -ge 1 ]; }
start_hogs
read -rt 0.5 -u 9 || :
stat0=$(head -n 1 /proc/stat)
"$BENCHWATCH" -c "$T/bw.conf" daemon --print > "$T/out" 2> "$T/err" &
dpid=$!
BW_PIDS="$dpid"
LOOKED="probe 'c' deferred, host busy: no room: [0-9.]* of $NCPU CPUs idle, the probe keeps 1.00 busy and needs [0-9.]* idle"
started=""
for _ in $(seq 100); do
        started=$(child_of "$dpid") && break
        grep -q "$LOOKED" "$T/err" && break
        read -rt 0.05 -u 9 || :
done
# The look counts idle CPUs as each CPU's idle share of the time /proc/stat
# says it was given (steal left out): if even with 6 hogs the CPUs had
# 0.8 of one idle by that measure, the host did not look full, by the
# daemon's own measure, and the premise failed, not the daemon.
if [ -n "$started" ]; then
        idle=$(idle_cpus_between "$stat0" "$(head -n 1 /proc/stat)")
        awk -v i="$idle" 'BEGIN { exit !(i >= 0.8) }' &&
                skip "host not full: beside the hogs its CPUs had $idle of one idle while the look ran"
        fail "a probe process ($started) started beside the hogs, with $idle CPUs idle: $(tail -3 "$T/err")"
fi
grep -q "$LOOKED" "$T/err" || fail "the run due beside the hogs not deferred before its start: $(tail -3 "$T/err")"
wait_for 5 deferred_room || fail "the deferral before the run not counted (room): $(grep deferred "$T/bw.prom")"
stop_hogs
echo "daemon: a run due beside the hogs deferred before it started: $(grep -o "$LOOKED" "$T/err" | head -1)"
wait_for 40 grep -q "^cpu 'c': ok" "$T/out" || fail "no run after the hogs stopped: $(tail -3 "$T/err")"
kill "$dpid"
wait "$dpid"
BW_PIDS=""

echo "yield: ok"
