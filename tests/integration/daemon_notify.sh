#!/bin/bash
# The daemon as systemd sees it, through the real sd_notify protocol: the
# test listens on NOTIFY_SOCKET (notify_listen.py) and checks READY, STATUS,
# the WATCHDOG cadence against WATCHDOG_USEC (also while a probe hangs),
# RELOADING/READY around SIGHUP with a good config (added, changed and
# removed probes take effect at once) and a bad one (file:line logged, the
# old config keeps running), STOPPING on SIGTERM in the middle of a run
# (the child's process group is gone, the daemon exits within seconds), a
# deferral when the host is busy (counted in benchwatch_probe_deferred_total)
# and, with the disk plugin, no leftover files after a SIGTERM mid-run.
. "$top_srcdir/tests/integration/lib/lib.sh"

: "${TESTPLUGIN_DIR:?run through make check}"
[ -f "$TESTPLUGIN_DIR/misbehave.so" ] || skip "no misbehave test plugin in $TESTPLUGIN_DIR"
WD_USEC=2000000
mkdir -p "$T/cfg" "$T/cache" "$T/state" "$T/proc/pressure"
CONF=$T/cfg/benchwatch.conf

python3 "$top_srcdir/tests/integration/lib/notify_listen.py" "$T/notify.sock" "$T/notify.log" &
BW_PIDS="$BW_PIDS $!"

wait_for 5 test -S "$T/notify.sock" || fail "notify listener did not start"

# The [daemon] section of every config: no splay, nothing deferred unless a
# test asks, no duty-cycle gap, directories in $T.
daemon_section() {
        cat <<EOF
[daemon]
splay = 0
duty_cycle = 1
max_load = 0
max_psi_cpu = ${1:-0}
yield = no
max_psi_io = 0
max_psi_memory = 0
cache_dir = $T/cache
state_dir = $T/state
EOF
}
# put_conf TEXT: replace the config atomically (the daemon may read it)
put_conf() {
        printf '%s\n' "$1" > "$CONF.tmp" && mv "$CONF.tmp" "$CONF"
}
start_daemon() { # PLUGIN_DIR [ENV=VALUE...]
        local dir=$1
        shift
        : > "$T/notify.log"
        env BENCHWATCH_PLUGIN_DIR="$dir" NOTIFY_SOCKET="$T/notify.sock" \
                WATCHDOG_USEC=$WD_USEC "$@" \
                "$BENCHWATCH" -v -c "$CONF" daemon --print > "$T/out" 2> "$T/err" &
        DPID=$!
        BW_PIDS="$BW_PIDS $DPID"
        wait_for 10 grep -q 'READY=1' "$T/notify.log" || fail "no READY=1: $(cat "$T/err")"
}
n_msgs() { grep -c "$1" "$T/notify.log"; }
results() { grep -c "^[a-z]* '$1': $2" "$T/out"; }
child_of() { pgrep -P "$1" | head -n 1; }
# stop_daemon SECONDS: SIGTERM, and the daemon must be gone within SECONDS
stop_daemon() {
        local start=$(date +%s.%N) rc
        kill -TERM "$DPID"
        wait_for "$1" bash -c "! kill -0 $DPID 2>/dev/null" || fail "daemon still running $1 s after SIGTERM"
        wait "$DPID"
        rc=$?
        STOP_SECONDS=$(python3 -c "print(round($(date +%s.%N) - $start, 2))")
        [ $rc = 0 ] || fail "daemon exit status $rc after SIGTERM: $(tail -5 "$T/err")"
        grep -q 'STOPPING=1' "$T/notify.log" || fail "no STOPPING=1"
}
# watchdog_ok: every gap between pings below WATCHDOG_USEC, about half of it
watchdog_ok() {
        python3 - "$T/notify.log" "$WD_USEC" <<'PY'
import sys
t = [float(l.split("\t")[0]) for l in open(sys.argv[1]) if "WATCHDOG=1" in l]
usec = int(sys.argv[2]) / 1e6
gaps = [b - a for a, b in zip(t, t[1:])]
if len(gaps) < 3:
    sys.exit("only %d watchdog pings" % len(t))
gaps.sort()
med = gaps[len(gaps) // 2]
print("watchdog: %d pings, gaps %.3f..%.3f s, median %.3f s (WATCHDOG_USEC %.1f s)"
      % (len(t), gaps[0], gaps[-1], med, usec))
if gaps[-1] >= usec or not 0.35 * usec <= med <= 0.65 * usec:
    sys.exit("bad watchdog cadence")
PY
}

# ---- start, READY, STATUS, results ----------------------------------------
put_conf "$(daemon_section)
[probe quick]
plugin = misbehave
interval = 2s
[probe slow]
plugin = misbehave
value = 1
interval = 1h"
start_daemon "$TESTPLUGIN_DIR"
head -n 1 "$T/notify.log" | grep -q 'READY=1' || fail "READY=1 is not the first message: $(head -3 "$T/notify.log")"
wait_for 10 bash -c "[ \$(grep -c \"^misbehave 'quick': ok\" '$T/out') -ge 2 ]" || fail "no quick results: $(cat "$T/out" "$T/err")"
grep -q "^misbehave 'slow': ok.*value=1\b" "$T/out" || fail "slow probe did not run at start: $(cat "$T/out")"
wait_for 5 grep -q 'STATUS=2 probe(s); [0-9]* run(s), 0 failed; last: ' "$T/notify.log" || fail "no STATUS summary: $(cat "$T/notify.log")"

# ---- SIGHUP, good config: slow changed (runs again at once), stuck added,
# ---- a hung run is killed at its deadline while the watchdog beats on ----
hups=$(n_msgs 'RELOADING=1')
put_conf "$(daemon_section)
[probe quick]
plugin = misbehave
interval = 2s
[probe slow]
plugin = misbehave
value = 2
interval = 1h
[probe stuck]
plugin = misbehave
action = hang
timeout = 2s
interval = 1h"
kill -HUP "$DPID"
wait_for 5 bash -c "[ \$(grep -c 'RELOADING=1' '$T/notify.log') -gt $hups ]" || fail "no RELOADING=1 after SIGHUP"
wait_for 5 grep -q 'configuration reloaded' "$T/err" || fail "good config not reloaded: $(tail -5 "$T/err")"
# the reload is logged before READY=1 is sent and passes the listener
ready_after_reload() { grep -A100 'RELOADING=1' "$T/notify.log" | grep -q 'READY=1'; }
wait_for 5 ready_after_reload || fail "no READY=1 after RELOADING=1"
grep -q "probe 'slow' changed" "$T/err" || fail "changed probe not noticed: $(tail -5 "$T/err")"
wait_for 10 grep -q "^misbehave 'slow': ok.*value=2\b" "$T/out" || fail "changed probe did not run again: $(cat "$T/out")"
wait_for 15 grep -q "^misbehave 'stuck': FAILED.*timed out after 2s" "$T/out" || fail "hung run not killed at its deadline: $(grep stuck "$T/out" "$T/err")"
q=$(results quick ok)
wait_for 10 bash -c "[ \$(grep -c \"^misbehave 'quick': ok\" '$T/out') -gt $q ]" || fail "no quick result after the hang"
wait_for 10 bash -c "[ \$(grep -c WATCHDOG=1 '$T/notify.log') -ge 5 ]" || fail "too few watchdog pings"
watchdog_ok || fail "watchdog cadence: $(grep WATCHDOG "$T/notify.log" | head -20)"

# ---- SIGHUP, bad config: logged with file:line, old config keeps running -
hups=$(n_msgs 'RELOADING=1')
readys=$(n_msgs 'READY=1')
put_conf "$(daemon_section)
[probe quick]
plugin = misbehave
interval = 2s
bogus = 1"
bad_line=$(grep -n '^bogus' "$CONF" | cut -d: -f1)
kill -HUP "$DPID"
wait_for 5 grep -q 'reload failed, keeping the running configuration' "$T/err" || fail "bad config not reported: $(tail -5 "$T/err")"
grep -q "$CONF:$bad_line: .*bogus" "$T/err" || fail "bad config error without file:line: $(tail -3 "$T/err")"
wait_for 5 bash -c "[ \$(grep -c 'READY=1' '$T/notify.log') -gt $readys ]" || fail "no READY=1 after a failed reload"
[ "$(n_msgs 'RELOADING=1')" -gt "$hups" ] || fail "no RELOADING=1 for the bad config"
q=$(results quick ok)
wait_for 10 bash -c "[ \$(grep -c \"^misbehave 'quick': ok\" '$T/out') -gt $q ]" || fail "quick stopped after a bad reload"
grep -q "probe 'stuck' removed" "$T/err" && fail "the bad config was applied"

# ---- SIGHUP, another state_dir: refused (the references stay in one place)
put_conf "$(daemon_section | sed "s|^state_dir = .*|state_dir = $T/state2|")
[probe quick]
plugin = misbehave
interval = 2s"
fails=$(grep -c 'reload failed' "$T/err")
kill -HUP "$DPID"
wait_for 5 bash -c "[ \$(grep -c 'reload failed' '$T/err') -gt $fails ]" || fail "a moved state_dir was not refused: $(tail -3 "$T/err")"
grep -q "state_dir: '$T/state2' is not the running daemon's '$T/state'" "$T/err" ||
        fail "a moved state_dir: $(tail -3 "$T/err")"
[ -e "$T/state2" ] && fail "the refused reload made $T/state2"
grep -q "probe 'stuck' removed" "$T/err" && fail "the config with another state_dir was applied"

# ---- SIGHUP: a textfile added shows the kept probes' latest results at
# ---- once; a probe removed then leaves it, the others stay --------------
put_conf "$(daemon_section)
[probe quick]
plugin = misbehave
interval = 2s
[probe slow]
plugin = misbehave
value = 2
interval = 1h
[textfile]
path = $T/notify.prom"
kill -HUP "$DPID"
wait_for 5 grep -q "probe 'stuck' removed" "$T/err" || fail "reload with a textfile: $(tail -5 "$T/err")"
wait_for 5 grep -q '^benchwatch_misbehave_value{.*probe="slow".*} 2$' "$T/notify.prom" ||
        fail "the kept probe's latest result not in a textfile added by a reload: $(cat "$T/notify.prom" 2>&1)"
grep -q 'probe="stuck"' "$T/notify.prom" && fail "a removed probe in the textfile: $(grep stuck "$T/notify.prom")"
grep -q '^benchwatch_host_info{' "$T/notify.prom" || fail "no host info in a textfile added by a reload"
put_conf "$(daemon_section)
[probe quick]
plugin = misbehave
interval = 2s
[textfile]
path = $T/notify.prom"
kill -HUP "$DPID"
wait_for 5 grep -q "probe 'slow' removed" "$T/err" || fail "slow not removed: $(tail -5 "$T/err")"
# the new set shows host info, then each probe: wait for the whole file
slow_gone_quick_kept() {
        ! grep -q 'probe="slow"' "$T/notify.prom" &&
                grep -q '^benchwatch_probe_success{probe="quick"} 1$' "$T/notify.prom"
}
wait_for 5 slow_gone_quick_kept ||
        fail "a removed probe stayed or the kept one left the textfile: $(cat "$T/notify.prom")"

# ---- SIGTERM in the middle of a run that honours stopping() -------------
put_conf "$(daemon_section)
[probe long]
plugin = misbehave
action = sleep
sleep = 60s
timeout = 2min
interval = 1h"
kill -HUP "$DPID"
wait_for 5 grep -q "probe 'quick' removed" "$T/err" || fail "removed probe not noticed: $(tail -5 "$T/err")"
wait_for 10 bash -c "pgrep -P $DPID > /dev/null" || fail "the long run did not start"
sleep 0.5
child=$(child_of "$DPID")
stop_daemon 5
pgrep -g "$child" > /dev/null && fail "processes of the run's group $child left: $(pgrep -a -g "$child")"
grep -q "misbehave probe 'long': run interrupted by the stop, result discarded" "$T/err" \
        || fail "the stopped run was not the long one: $(tail -3 "$T/err")"
grep -q "^misbehave 'long'" "$T/out" && fail "a run cut short by the stop was published"
echo "SIGTERM during a run: exited in ${STOP_SECONDS}s"

# ---- SIGTERM while a run ignores it: killed after the grace period ------
put_conf "$(daemon_section)
[probe stuck]
plugin = misbehave
action = hang
timeout = 10min
interval = 1h"
start_daemon "$TESTPLUGIN_DIR"
wait_for 10 bash -c "pgrep -P $DPID > /dev/null" || fail "the hung run did not start"
wait_for 10 bash -c "[ \$(grep -c WATCHDOG=1 '$T/notify.log') -ge 5 ]" || fail "too few watchdog pings"
watchdog_ok || fail "watchdog stopped while a probe hangs"
child=$(child_of "$DPID")
stop_daemon 10
pgrep -g "$child" > /dev/null && fail "hung run's group $child left: $(pgrep -a -g "$child")"
echo "SIGTERM during a hung run: exited in ${STOP_SECONDS}s"

# ---- duty cycle: a run of 1 s at duty_cycle 0.25 is followed by 3 s idle -
put_conf "$(daemon_section | sed 's/^duty_cycle = 1$/duty_cycle = 0.25/')
[probe busy]
plugin = misbehave
action = sleep
sleep = 1s
interval = 1s"
start_daemon "$TESTPLUGIN_DIR"
sleep 7
n=$(results busy ok)
stop_daemon 5
# back to back they would be 6 or 7; with the quiet time at most 2 (0-1 s, 4-5 s)
[ "$n" -ge 1 ] && [ "$n" -le 2 ] || fail "duty cycle: $n runs of 1 s in 7 s"
echo "duty cycle 0.25: $n runs of 1 s in 7 s"

# ---- a busy host defers the run, and the deferral is counted ------------
# BENCHWATCH_PROC_DIR stands in for /proc (busy.h), so the test decides
# whether the host is busy.
psi() { printf 'some avg10=%s avg60=0.00 avg300=0.00 total=1\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n' "$1" > "$T/proc/pressure/cpu.tmp" && mv "$T/proc/pressure/cpu.tmp" "$T/proc/pressure/cpu"; }
psi 80.00
put_conf "$(daemon_section 25)
[probe polite]
plugin = misbehave
interval = 4s
[textfile]
path = $T/bw.prom"
start_daemon "$TESTPLUGIN_DIR" BENCHWATCH_PROC_DIR="$T/proc"
wait_for 10 grep -q "probe 'polite' deferred, host busy: cpu pressure 80.0% > 25%" "$T/err" || fail "no deferral: $(tail -5 "$T/err")"
wait_for 10 grep -q '^benchwatch_probe_deferred_total{probe="polite",reason="cpu"} [1-9]' "$T/bw.prom" \
        || fail "deferral count not in the textfile: $(cat "$T/bw.prom" 2>/dev/null)"
grep -q "^misbehave 'polite': ok" "$T/out" && fail "ran while the host was busy"
wait_for 5 grep -q 'STATUS=.*deferred (host busy)' "$T/notify.log" || fail "STATUS does not tell deferrals"
psi 0.00
wait_for 10 grep -q "^misbehave 'polite': ok" "$T/out" || fail "deferred run not retried once the host is idle"
wait_for 5 grep -q '^benchwatch_misbehave_value{.*probe="polite"' "$T/bw.prom" || fail "result not in the textfile: $(cat "$T/bw.prom")"
n=$(sed -n 's/^benchwatch_probe_deferred_total{probe="polite",reason="cpu"} //p' "$T/bw.prom")
[ "${n:-0}" -ge 1 ] || fail "deferral count lost in the run's result: $(cat "$T/bw.prom")"
stop_daemon 5

# ---- I/O pressure defers a probe that does disk I/O, not a cpu probe -----
if [ -f "$BENCHWATCH_PLUGIN_DIR/disklat.so" ] && [ -f "$BENCHWATCH_PLUGIN_DIR/cpu.so" ]; then
        psi 0.00
        printf 'some avg10=90.00 avg60=0.00 avg300=0.00 total=1\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n' \
                > "$T/proc/pressure/io"
        put_conf "$(daemon_section 25 | sed 's/^max_psi_io = 0$/max_psi_io = 25/')
[probe c]
plugin = cpu
duration = 0.3s
interval = 2s
[probe dl]
plugin = disklat
size = 8M
duration = 0.5s
interval = 2s
[textfile]
path = $T/bw.prom"
        start_daemon "$BENCHWATCH_PLUGIN_DIR" BENCHWATCH_PROC_DIR="$T/proc"
        wait_for 15 grep -q "probe 'dl' deferred, host busy: io pressure 90.0% > 25%" "$T/err" ||
                fail "the disklat probe was not deferred for io pressure: $(tail -5 "$T/err")"
        wait_for 15 bash -c "[ \$(grep -c \"^cpu 'c': ok\" '$T/out') -ge 2 ]" ||
                fail "the cpu probe did not run beside io pressure: $(grep -E "'c'" "$T/err" "$T/out" | tail -3)"
        grep -q "probe 'c' deferred, host busy: io" "$T/err" && fail "the cpu probe was deferred for io pressure"
        grep -q "^disklat 'dl': ok" "$T/out" && fail "the disklat probe ran beside io pressure"
        stop_daemon 5
        rm -f "$T/proc/pressure/io"
        echo "io pressure 90%: disklat deferred, cpu ran $(grep -c "^cpu 'c': ok" "$T/out") times"
fi

# ---- the disk plugin: SIGTERM mid-run leaves only its reusable test file -
if [ -f "$BENCHWATCH_PLUGIN_DIR/disk.so" ]; then
        # first while the test file is being written (256M of random data)
        put_conf "$(daemon_section)
[probe d]
plugin = disk
size = 256M
duration = 60s
timeout = 2min
interval = 1h"
        start_daemon "$BENCHWATCH_PLUGIN_DIR"
        wait_for 10 bash -c "pgrep -P $DPID > /dev/null" || fail "the disk run did not start"
        sleep 0.3
        stop_daemon 5
        left=$(cd "$T/cache" && ls -A)
        [ -z "$left" ] || [ "$left" = disk-d.dat ] || fail "left in the cache dir after a stop while creating: $left"
        echo "SIGTERM while the disk test file is written: exited in ${STOP_SECONDS}s, cache dir: '$left'"
        rm -f "$T/cache/disk-d.dat"
        # then while it measures
        put_conf "$(daemon_section)
[probe d]
plugin = disk
size = 64M
duration = 60s
timeout = 2min
interval = 1h"
        start_daemon "$BENCHWATCH_PLUGIN_DIR"
        wait_for 10 bash -c "pgrep -P $DPID > /dev/null" || fail "the disk run did not start"
        wait_for 30 test -f "$T/cache/disk-d.dat" || fail "no test file: $(ls -la "$T/cache"; tail -3 "$T/err")"
        sleep 1
        child=$(child_of "$DPID")
        stop_daemon 5
        pgrep -g "$child" > /dev/null && fail "disk run's group $child left"
        left=$(cd "$T/cache" && ls -A | grep -v '^disk-d\.dat$')
        [ -z "$left" ] || fail "left in the cache dir: $left"
        echo "SIGTERM during a disk run: exited in ${STOP_SECONDS}s, cache dir: $(ls -A "$T/cache")"
else
        echo "no disk plugin in $BENCHWATCH_PLUGIN_DIR: leftover-file check skipped"
fi
exit 0
