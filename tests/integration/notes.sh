#!/bin/bash
# A probe's notes in the journal: each line with its priority, and a note
# its last run said too at debug level, not at every run (notes.h).
#
# The daemon as systemd runs it (JOURNAL_STREAM set, lines "<N>...") and
# --verbose, a memory-latency probe whose every run notes the same set-up
# ("latency mode: the buffer of 1M, 0.0x the 32M last-level cache ...", or
# that the cache is unknown): said at notice level once, then at debug; a
# changed configuration (another size) says its new note at once; `run`
# outside the journal says it every time.
. "$top_srcdir/tests/integration/lib/lib.sh"

conf() { # conf SIZE
        test_daemon_section "$T" > "$T/bw.conf"
        printf '\n[probe lat]\nplugin = memory\nmode = latency\nsize = %s\n' "$1" >> "$T/bw.conf"
        printf 'duration = 0.2s\ninterval = 1s\n' >> "$T/bw.conf"
}
runs() { grep -c "^<[0-9]>memory probe 'lat': latency: " "$T/daemon.err"; }
daemon_runs() { # daemon_runs N: the daemon until N runs logged, then stopped
        JOURNAL_STREAM=0:0 "$BENCHWATCH" -c "$T/bw.conf" --verbose daemon \
                > /dev/null 2>> "$T/daemon.err" &
        dpid=$!
        BW_PIDS=$dpid
        # each run's buffer note follows its figures' line: those are counted
        wait_for 60 sh -c "[ \$(grep -c \"^<[0-9]>memory probe 'lat': latency mode: .*buffer of \" '$T/daemon.err') -ge $1 ]" ||
                fail "fewer than $1 runs in 60 s: $(tail -3 "$T/daemon.err")"
        kill "$dpid"
        wait "$dpid"
        BW_PIDS=""
}
note="memory probe 'lat': latency mode: "

conf 1M
daemon_runs 3
said() { grep "^<$1>$note.*buffer of $2" "$T/daemon.err" | wc -l; } # said PRIORITY SIZE
[ "$(said 5 1M)" = 1 ] || fail "the note at notice level $(said 5 1M) times, want 1: $(grep "$note" "$T/daemon.err")"
[ "$(said 7 1M)" -ge 2 ] || fail "the repeated note not at debug level: $(grep "$note" "$T/daemon.err")"
grep -q "^$note.*buffer of 1M" "$T/state/notes-lat.txt" || fail "notes-lat.txt: $(cat "$T/state/notes-lat.txt")"
grep -v '^<[0-7]>' "$T/daemon.err" && fail "a line without a priority"

# another size: its note is new, so said at once, and the old one is
# forgotten by the first run that does not say it
: > "$T/daemon.err"
conf 512k
daemon_runs 2
[ "$(said 5 512k)" = 1 ] || fail "the changed note: $(grep "$note" "$T/daemon.err")"
grep -q "buffer of 1M" "$T/state/notes-lat.txt" && fail "the old note kept: $(cat "$T/state/notes-lat.txt")"

# outside the journal every line is said, as a report
for _ in 1 2; do
        env -u JOURNAL_STREAM "$BENCHWATCH" -c "$T/bw.conf" run lat 2>&1 > /dev/null |
                grep -q "^$note.*buffer of 512k" || fail "run did not say the note"
done
exit 0
