#!/bin/bash
# Room, not share: a 1-thread cpu probe beside a busy loop pinned to the
# last CPU (the other CPUs idle) runs and its runs count, though others
# use half of a 2-CPU host (the rule before: every run deferred or not
# counted); with a busy loop on every CPU there is no room: no probe
# process starts, the deferrals count with reason "room", and the
# textfile and `benchwatch status` say how long the probe has waited for
# a counted run and why.  The shipped [daemon] and [regression] settings
# but for the intervals.
. "$top_srcdir/tests/integration/lib/lib.sh"
. "$top_srcdir/bench/lib/neighbours.sh"

NCPU=$(nproc)
[ "$NCPU" -ge 2 ] || skip "needs 2 CPUs: a busy loop on one, the probe on another"
NEIGHBOUR_PIDS=""
trap 'neighbour_stop; cleanup_test' EXIT

cat > "$T/bw.conf" <<CONF
[daemon]
state_dir = $T/state
cache_dir = $T/cache
splay = 0
first_splay = 0
duty_cycle = 1
[journal]
enabled = no
[textfile]
path = $T/bw.prom
[probe c]
plugin = cpu
duration = 0.5s
interval = 1s
CONF
prom() { sed -n "s/^$1 //p" "$T/bw.prom" 2>/dev/null; }
child_of() { pgrep -P "$1" -f "__child --parent=$1"; }
# counted and not counted runs so far, from the history
runs() { cat "$T/state/history-c.txt" 2>/dev/null |
        awk -v c="$1" '$2 == c && /events_per_second/ { n++ } END { print n + 0 }'; }
counted() { runs 1; }
uncounted() { runs 0; }

neighbour_start busy1
"$BENCHWATCH" -c "$T/bw.conf" daemon > "$T/out" 2> "$T/err" &
dpid=$!
BW_PIDS="$dpid"
enough() { [ "$(counted)" -ge 6 ]; }
wait_quietly 40 enough || {
        grep -q "cpu pressure" "$T/err" && skip "the host is busy by itself: $(grep -m1 'cpu pressure' "$T/err")"
        # the busy loop leaves NCPU - 1 idle; less than that by half a CPU,
        # measured here from /proc/stat with the daemon stopped, is others'
        # work (a build beside the test)
        kill "$dpid" && wait "$dpid"
        BW_PIDS=""
        stat0=$(head -n 1 /proc/stat)
        sleep 2
        idle=$(idle_cpus_between "$stat0" "$(head -n 1 /proc/stat)")
        awk -v i="$idle" -v n="$NCPU" 'BEGIN { exit !(i < n - 1.5) }' &&
                skip "the host is busy by itself: $idle of $NCPU CPUs idle beside the busy loop"
        fail "beside a busy loop on CPU $((NCPU - 1)): $(counted) runs counted, $(uncounted) not: $(grep -E 'deferred|not counted' "$T/err" | tail -3)"
}
c=$(counted) u=$(uncounted)
echo "beside $NEIGHBOUR_TEXT: $c runs counted, $u not, $(grep -c deferred "$T/err") deferrals"
[ "$u" -le "$c" ] || fail "more runs not counted ($u) than counted ($c): $(grep 'not counted' "$T/err" | tail -2)"
# the history is written before the textfile: wait for the textfile
last_try_counted() {
        [ "$(prom 'benchwatch_probe_waiting_since_timestamp_seconds{probe="c",reason="none"}')" != "" ]
}
wait_quietly 5 last_try_counted ||
        fail "the textfile does not say the last try counted: $(grep waiting "$T/bw.prom")"
neighbour_stop

# every CPU busy: no room, no probe process
neighbour_start full
sleep 1
ROOM='benchwatch_probe_deferred_total{probe="c",reason="room"}'
r0=$(prom "$ROOM")
started=""
room_deferred() { [ "$(prom "$ROOM")" -ge $(( ${r0:-0} + 2 )) ]; }
for _ in $(seq 100); do
        p=$(child_of "$dpid") && started="$started $p"
        room_deferred && break
        sleep 0.1
done
room_deferred || fail "no deferral for room beside $NEIGHBOUR_TEXT: $(tail -3 "$T/err")"
# a run already under way when the loops started may finish; none starts after
p=$(child_of "$dpid") && fail "a probe process ($p) started with every CPU busy: $(tail -3 "$T/err")"
grep -q "probe 'c' deferred, host busy: no room: [0-9.]* of $NCPU CPUs idle" "$T/err" ||
        fail "the deferral does not say why: $(grep deferred "$T/err" | tail -2)"
[ -n "$(prom 'benchwatch_probe_waiting_since_timestamp_seconds{probe="c",reason="room"}')" ] ||
        fail "the textfile does not say the probe waits for room: $(grep waiting "$T/bw.prom")"
"$BENCHWATCH" -c "$T/bw.conf" status > "$T/status" 2>&1
grep -q "c: no counted run for .*: no room for it on the host's CPUs" "$T/status" ||
        fail "status does not say why the probe waits: $(cat "$T/status")"
"$BENCHWATCH" -c "$T/bw.conf" status --format=json > "$T/status.json" 2>&1
json "$T/status.json" 'r["probes"][0]["waiting"]["reason"] == "room"' ||
        fail "status --format=json: $(cat "$T/status.json")"
echo "beside $NEIGHBOUR_TEXT: deferred for room ($(grep -m1 -o "no room: [^;]*" "$T/err"))"

# A restart keeps the wait: the daemon after it says the probe has waited
# since the same moment (else one that keeps restarting never shows as
# not measuring); a probe a reload adds waits from the reload on.
since=$(prom 'benchwatch_probe_waiting_since_timestamp_seconds{probe="c",reason="room"}')
kill "$dpid" && wait "$dpid"
rm -f "$T/bw.prom"
"$BENCHWATCH" -c "$T/bw.conf" daemon > "$T/out" 2> "$T/err2" &
dpid=$!
BW_PIDS="$dpid"
waits_again() { [ -n "$(prom 'benchwatch_probe_waiting_since_timestamp_seconds{probe="c",reason="room"}')" ]; }
wait_quietly 20 waits_again || fail "no deferral for room after the restart: $(tail -3 "$T/err2")"
again=$(prom 'benchwatch_probe_waiting_since_timestamp_seconds{probe="c",reason="room"}')
[ "$again" = "$since" ] || fail "the restart started the wait afresh: since $since before, $again after"
reload_at=$(date +%s.%N)
printf '[probe c2]\nplugin = cpu\nduration = 0.5s\ninterval = 1s\n' >> "$T/bw.conf"
kill -HUP "$dpid"
c2_waits() { [ -n "$(prom 'benchwatch_probe_waiting_since_timestamp_seconds{probe="c2",reason="room"}')" ]; }
wait_quietly 20 c2_waits || fail "the probe the reload added shows no wait: $(tail -3 "$T/err2")"
c2=$(prom 'benchwatch_probe_waiting_since_timestamp_seconds{probe="c2",reason="room"}')
awk -v w="$c2" -v t="$reload_at" 'BEGIN { exit !(w >= t - 1) }' ||
        fail "the probe the reload added waits since $c2, before the reload at $reload_at"
echo "restart: waiting since $again as before; reload: c2 waiting since $c2 (reload at ${reload_at%.*})"
# with the daemon gone, status says the reason is its last try's
kill "$dpid" && wait "$dpid"
BW_PIDS=""
"$BENCHWATCH" -c "$T/bw.conf" status > "$T/status" 2>&1
grep -q "c: no counted run for .*: no room for it on the host's CPUs (at its last try; the daemon is not running)" \
        "$T/status" || fail "status without the daemon: $(cat "$T/status")"
# after a stop of over 3 hours the time the daemon was down is no wait:
# the last try 4 hours back, the wait starts with the new daemon
old_try=$(awk '$1 == "wait" && $2 == "c" { print $4 }' "$T/state/status.txt")
[ -n "$old_try" ] || fail "no wait line for c in status.txt: $(cat "$T/state/status.txt")"
awk -v t="$(($(date +%s) - 4 * 3600))" '$1 == "wait" && $2 == "c" { $4 = t } { print }' \
        "$T/state/status.txt" > "$T/status.new" && mv "$T/status.new" "$T/state/status.txt"
rm -f "$T/bw.prom"
started_at=$(date +%s.%N)
"$BENCHWATCH" -c "$T/bw.conf" daemon > "$T/out" 2> "$T/err3" &
dpid=$!
BW_PIDS="$dpid"
wait_quietly 20 waits_again || fail "no deferral for room after the long stop: $(tail -3 "$T/err3")"
fresh=$(prom 'benchwatch_probe_waiting_since_timestamp_seconds{probe="c",reason="room"}')
awk -v w="$fresh" -v t="$started_at" 'BEGIN { exit !(w >= t - 1) }' ||
        fail "after a 4-hour stop the wait kept its start: since $fresh, the daemon started at $started_at"
echo "after a 4-hour stop: waiting since the new start ($fresh)"
echo "room: ok"
