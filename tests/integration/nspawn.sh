#!/bin/bash
# benchwatch under a real systemd: a minimal Debian root (debootstrap,
# cached under /var/cache/benchwatch-test/nspawn-root between runs) gets
# `make install DESTDIR=...`, boots with systemd-nspawn, and systemctl and
# journalctl inside it check that the installed benchwatch.service starts
# (Type=notify: active only after READY=1), feeds the watchdog, logs results
# to the journal, reloads (and survives a bad config), stops cleanly in the
# middle of a run, and that benchwatch-verify.service runs; also
# `systemd-analyze verify` on the installed units, in the container.
# Needs root, debootstrap and systemd-container; building the root needs
# the Debian mirror once (about a minute), later runs reuse it.
. "$top_srcdir/tests/integration/lib/lib.sh"

[ "$(id -u)" = 0 ] || skip "needs root (debootstrap, systemd-nspawn)"
for c in debootstrap systemd-nspawn nsenter flock; do
        command -v $c > /dev/null || skip "$c not installed (tools/install-deps)"
done
. "$top_srcdir/tests/integration/lib/nspawn_root.sh"
ROOT=$T/root
out=$(nspawn_root_copy "$ROOT" 2>&1) || skip "$out"
echo "$out"

# ---- benchwatch installed as a package would be ---------------------------
make -s -C "$top_builddir" install DESTDIR="$ROOT" > "$T/install.log" 2>&1 \
        || fail "make install: $(tail -5 "$T/install.log")"
bin=$(cd "$ROOT" && find . -path '*/bin/benchwatch' -type f | head -n 1 | cut -c2-)
[ -n "$bin" ] || fail "make install put no bin/benchwatch in the root"
case $bin in
/tmp/*|/var/tmp/*) skip "this build's prefix ($bin) lies under a temporary directory, which a booted container mounts over (make distcheck); the test runs in the ordinary build" ;;
esac
for u in benchwatch.service benchwatch-verify.service; do
        path=$(cd "$ROOT" && find . -name "$u" -type f | head -n 1 | cut -c2-)
        [ -n "$path" ] || fail "make install put no $u in the root"
        case $path in
        /lib/systemd/system/*|/usr/lib/systemd/system/*|/etc/systemd/system/*) ;;
        *) ln -s "$path" "$ROOT/etc/systemd/system/$u" ;; # e.g. under distcheck
        esac
done
confdir=$("$ROOT$bin" --help | sed -n 's/.*(default \(.*\)\/benchwatch.conf$/\1/p')
[ -n "$confdir" ] || fail "cannot tell the config path from benchwatch --help"
mkdir -p "$ROOT$confdir"
conf() { # the installed config: [daemon] that never defers, then "$1"
        printf '[daemon]\nsplay = 0\nduty_cycle = 1\nmax_load = 0\nmax_psi_cpu = 0\nmax_psi_io = 0\nmax_psi_memory = 0\nyield = no\n%s\n' "$1" \
                > "$ROOT$confdir/benchwatch.conf.tmp" && mv "$ROOT$confdir/benchwatch.conf.tmp" "$ROOT$confdir/benchwatch.conf"
}
# with the disk plugin (built when libaio is there): libaio, O_DIRECT and
# the test file in CacheDirectory= under the sandbox
DISK=
[ -n "$(find "$ROOT" -path '*/benchwatch/disk.so')" ] && DISK="[probe d]
plugin = disk
size = 16M
duration = 1s
interval = 1h"
conf "[probe cpu]
plugin = cpu
duration = 1s
interval = 3s
$DISK"
# a short watchdog, so that pings can be seen within the test; and proof
# that the sandbox leaves the busy check its files (it would skip them)
mkdir -p "$ROOT/etc/systemd/system/benchwatch.service.d"
files=/proc/loadavg
[ -r /proc/pressure/cpu ] && files="$files /proc/pressure/cpu /proc/pressure/io /proc/pressure/memory"
printf '[Service]\nWatchdogSec=4s\nExecStartPre=/bin/cat %s\n' "$files" \
        > "$ROOT/etc/systemd/system/benchwatch.service.d/test.conf"

# ---- boot ---------------------------------------------------------------------
trap 'nspawn_stop; cleanup_test' EXIT
nspawn_boot "$ROOT" "$T/console.log" || fail "the container did not boot (above)"
c() { nspawn_in "$@"; }
echo "container booted (leader pid $LEADER)"
prop() { c systemctl show -P "$2" "$1"; }
journal() { c journalctl -q --no-pager -o cat -u "$1"; }
jgrep() { journal "$1" | grep -q -- "$2"; }

# ---- the installed units, as systemd-analyze sees them inside -------------
out=$(c systemd-analyze verify --man=no benchwatch.service benchwatch-verify.service 2>&1) \
        || fail "systemd-analyze verify in the container: $out"
[ -z "$out" ] || fail "systemd-analyze verify in the container says: $out"

# ---- start: active once READY=1, results in the journal, watchdog ---------
c systemctl start benchwatch.service || fail "start: $(journal benchwatch | tail -20)"
[ "$(prop benchwatch ActiveState)" = active ] || fail "not active: $(journal benchwatch | tail)"
pid=$(prop benchwatch MainPID)
wait_for 20 jgrep benchwatch "cpu probe 'cpu': .*events" || fail "no result in the journal: $(journal benchwatch | tail)"
[ "$(prop benchwatch StatusText)" != "" ] || fail "no STATUS="
echo "status: $(prop benchwatch StatusText)"
wd1=$(prop benchwatch WatchdogTimestampMonotonic)
wait_for 6 bash -c "[ \"\$(env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin nsenter -t $LEADER -a systemctl show -P WatchdogTimestampMonotonic benchwatch)\" != '$wd1' ]" \
        || fail "watchdog not fed (WatchdogSec=4s)"
if [ -n "$DISK" ]; then
        wait_for 30 jgrep benchwatch "disk probe 'd': " || fail "no disk result: $(journal benchwatch | tail -5)"
fi
jgrep benchwatch "failed" && fail "a run failed under the unit's sandbox: $(journal benchwatch | grep failed | head -3)"

# ---- reload: a new probe; then a bad config that is reported and ignored --
conf "[probe cpu]
plugin = cpu
duration = 1s
interval = 3s
[probe thr]
plugin = threads
duration = 1s
interval = 3s"
c systemctl reload benchwatch.service || fail "reload"
wait_for 10 jgrep benchwatch "configuration reloaded" || fail "not reloaded: $(journal benchwatch | tail -5)"
wait_for 20 jgrep benchwatch "threads probe 'thr': " || fail "added probe did not run: $(journal benchwatch | tail -5)"
conf "[probe cpu]
plugin = cpu
nonsense = 1"
c systemctl reload benchwatch.service || fail "reload (bad config)"
wait_for 10 jgrep benchwatch "reload failed, keeping the running configuration" || fail "bad config not reported: $(journal benchwatch | tail -5)"
jgrep benchwatch "$confdir/benchwatch.conf:[0-9]*: .*nonsense" || fail "bad config reported without file:line: $(journal benchwatch | tail -5)"
n=$(journal benchwatch | grep -c "threads probe 'thr': ")
wait_for 20 bash -c "[ \$(env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin nsenter -t $LEADER -a journalctl -q --no-pager -o cat -u benchwatch | grep -c \"threads probe 'thr': \") -gt $n ]" \
        || fail "the old config stopped running after a bad reload"
[ "$(prop benchwatch ActiveState)" = active ] && [ "$(prop benchwatch MainPID)" = "$pid" ] \
        || fail "daemon restarted or died on reload"
[ "$(prop benchwatch NRestarts)" = 0 ] || fail "restarted (watchdog?) $(prop benchwatch NRestarts) times"

# ---- stop in the middle of a long run ------------------------------------
conf "[probe long]
plugin = cpu
duration = 60s
timeout = 2min
interval = 1h"
c systemctl reload benchwatch.service || fail "reload (long run)"
sleep 2.5 # a run of the old config (1 s) ends, the long one starts
wait_for 10 bash -c "env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin nsenter -t $LEADER -a pgrep -f 'benchwatch __child' > /dev/null" \
        || fail "the long run did not start: $(journal benchwatch | tail -5)"
# the run gets the [daemon] priorities (nice 10, best-effort I/O level 7)
child=$(c pgrep -f 'benchwatch __child' | head -n 1)
# (from /proc: ps shows no nice for a task under SCHED_IDLE, the cpu probe's)
ni=$(c cat "/proc/$child/stat" | sed 's/.*) //' | awk '{print $17}')
[ "$ni" = 10 ] || fail "probe run has nice '$ni', not 10"
io=$(c ionice -p "$child")
[ "$io" = "best-effort: prio 7" ] || fail "probe run has I/O priority '$io'"
t0=$(date +%s.%N)
c systemctl stop benchwatch.service || fail "stop"
took=$(python3 -c "print(round($(date +%s.%N) - $t0, 2))")
echo "systemctl stop during a run took ${took}s"
python3 -c "import sys; sys.exit(0 if $took < 10 else 1)" || fail "stop took ${took}s"
[ "$(prop benchwatch ActiveState)" = inactive ] || fail "not inactive after stop: $(prop benchwatch ActiveState)"
[ "$(prop benchwatch Result)" = success ] || fail "stop result $(prop benchwatch Result): $(journal benchwatch | tail -5)"
c pgrep -f benchwatch > /dev/null && fail "benchwatch processes left: $(c pgrep -a -f benchwatch)"
jgrep benchwatch "stopping (signal TERM)" || fail "no stopping message: $(journal benchwatch | tail -15)"
jgrep benchwatch "cpu probe 'long': run interrupted by the stop" || fail "the long run was not the one stopped: $(journal benchwatch | tail -5)"
left=$(c find /var/cache/benchwatch -mindepth 1 -maxdepth 1 ! -name 'disk-d.dat' 2>/dev/null)
[ -z "$left" ] || fail "left in /var/cache/benchwatch: $left"

# ---- benchwatch-verify.service runs (no baseline yet is exit 2) ----------
conf "[probe cpu]
plugin = cpu
duration = 1s"
c systemctl start benchwatch-verify.service 2> /dev/null
st=$(prop benchwatch-verify ExecMainStatus)
case $st in
0|2) echo "benchwatch-verify.service ran, exit status $st" ;;
*) fail "benchwatch-verify exit status '$st': $(journal benchwatch-verify | tail)" ;;
esac
said=$(c journalctl -q --no-pager -o cat _SYSTEMD_UNIT=benchwatch-verify.service)
[ -n "$said" ] || fail "benchwatch-verify said nothing: $(journal benchwatch-verify)"
echo "verify said: $(echo "$said" | tail -n 3 | tr '\n' ' ')"
exit 0
