#!/bin/bash
# Nothing left running, nothing left behind: when the daemon (or
# `benchwatch run`) dies in the middle of a run — kill -9 or a normal
# SIGTERM stop — its `benchwatch __child` is gone within a second (3 s while it
# writes a test file: one killed then was seen still exiting after 1 s) and no
# half-made test file stays in the cache directory.  Cases: a disk probe
# preparing a large test file, and a cpu probe in the middle of a long run.
# (Outside systemd: no unit's control group would clean up after us.)
. "$top_srcdir/tests/integration/lib/lib.sh"

# the test file is 2 GiB: it must be on a disk, not in memory
CACHE="$T/cache"
if [ "$(stat -f -c %T "$T")" = tmpfs ]; then
        CACHE=$(mktemp -d "$top_builddir/bwtest-cache.XXXXXX") || fail "no cache dir"
        trap 'rm -rf "$CACHE"; cleanup_test' EXIT
fi
mkdir -p "$CACHE"
[ "$(stat -f -c %T "$CACHE")" != tmpfs ] || skip "no disk-backed directory for a 2 GiB test file"
[ "$(df -P -k "$CACHE" | awk 'NR == 2 { print $4 }')" -gt $((3 * 1024 * 1024)) ] ||
        skip "less than 3 GiB free in $CACHE"

write_conf() { # PLUGIN PARAMS...
        test_daemon_section "$T" | sed "s|^cache_dir = .*|cache_dir = $CACHE|" > "$T/bw.conf"
        printf '[journal]\nenabled = no\n[probe p]\nplugin = %s\ninterval = 1h\ntimeout = 5min\n' "$1" >> "$T/bw.conf"
        shift
        for kv in "$@"; do echo "$kv" >> "$T/bw.conf"; done
}
# gone PID: no such process, or only a zombie waiting for init to reap it
gone() { [ ! -e "/proc/$1" ] || [ "$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null)" = Z ]; }
# the probe process of parent PID, once it has started
child_of() { pgrep -P "$1" -f "__child --parent=$1"; }
leftovers() { ls -A "$CACHE"; }
# preparing: the test file is still unnamed (O_TMPFILE) or a hidden
# temporary, and its final name does not exist yet
preparing() {
        [ ! -e "$CACHE/disk-p.dat" ] && [ ! -e "$CACHE/disk-disk.dat" ] && gone_not "$1" &&
                ls -l "/proc/$1/fd" 2>/dev/null | grep -q "$CACHE/"
}
gone_not() { ! gone "$1"; }

# start_bg CMD...: runs CMD in the background; $parent is its pid and
# $child that of its probe process, a second into the run
start_bg() {
        "$@" > "$T/out" 2> "$T/err" &
        parent=$!
        BW_PIDS="$parent"
        wait_for 10 child_of "$parent" > /dev/null || fail "$*: no probe process: $(cat "$T/err")"
        child=$(child_of "$parent")
        BW_PIDS="$parent $child"
        sleep 1
}

# kill_and_check SIGNAL WHAT [BOUND]: SIGNAL to $parent, then within
# BOUND seconds (1) the probe process is gone and the cache directory
# holds nothing.  A probe killed while it writes its unnamed test file was
# seen still exiting (state R) a second later on a slow disk, most likely
# the kernel freeing the file's dirty pages: 3 s there.
kill_and_check() {
        local t0 t1 bound=${3:-1}
        t0=$(date +%s.%N)
        kill "-$1" "$parent"
        wait_for "$bound" gone "$child" || fail "$2: probe process $child still there $bound s after SIG$1: $(grep -E '^(State|SigPnd|ShdPnd)' "/proc/$child/status" 2>/dev/null | tr '\n' ' ')"
        t1=$(date +%s.%N)
        awk -v what="$2" -v sig="$1" -v a="$t0" -v b="$t1" \
                'BEGIN { printf "%s: probe process gone %.2f s after SIG%s\n", what, b - a, sig }'
        wait "$parent" 2>/dev/null
        BW_PIDS=""
        [ -z "$(leftovers)" ] || fail "$2: left behind in $CACHE: $(leftovers)"
}

DAEMON=("$BENCHWATCH" -c "$T/bw.conf" daemon --print)

for sig in KILL TERM; do
        write_conf disk size=2G duration=1s
        start_bg "${DAEMON[@]}"
        preparing "$child" || fail "daemon, disk: not preparing its test file a second in (too fast a disk?): $(leftovers)"
        kill_and_check "$sig" "daemon, disk probe preparing its file" 3

        write_conf cpu duration=60s
        start_bg "${DAEMON[@]}"
        kill_and_check "$sig" "daemon, cpu probe mid-run"
done

write_conf cpu
start_bg "$BENCHWATCH" -c "$T/bw.conf" run disk size=2G duration=1s --format=json
preparing "$child" || fail "run, disk: not preparing its test file a second in: $(leftovers)"
kill_and_check KILL "benchwatch run disk, preparing its file" 3
start_bg "$BENCHWATCH" -c "$T/bw.conf" run cpu duration=60s --format=json
kill_and_check KILL "benchwatch run cpu, mid-run"

# and the normal end of a run is still a result: the file stays for reuse
"$BENCHWATCH" -c "$T/bw.conf" run disk size=16M duration=0.2s --format=json > "$T/ok.json" ||
        fail "disk run: $(cat "$T/ok.json")"
[ -e "$CACHE/disk-disk.dat" ] || fail "the complete test file was not kept"
"$BENCHWATCH" -c "$T/bw.conf" cleanup disk > /dev/null 2>&1 || fail "cleanup disk"
[ -z "$(leftovers)" ] || fail "cleanup left: $(leftovers)"
echo "cleanup: ok"
