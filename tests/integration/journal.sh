#!/bin/bash
# journal.sh — the [journal] sink's entries, read back with journalctl.
#
# In the system journal or a private journald's (journald.sh).  The syslog
# fallback is covered by tests/unit/test_sink.
set -u

builddir=${top_builddir:-.}
DRIVER=$(cd "$builddir" && pwd)/tests/unit/test_sink
[ -x "$DRIVER" ] || { echo "SKIP: $DRIVER is not built"; exit 77; }
. "${top_srcdir:-.}/tests/integration/lib/journald.sh"

probe=jt$$
printf 'publish %s 42\npublish %s-bad 3 fail\nquit\n' "$probe" "$probe" |
        "$DRIVER" drive journal.enabled=yes >/dev/null || { echo "FAIL: driver"; exit 1; }

field() { # field PROBE NAME: the value of NAME in PROBE's newest entry
        journalctl --no-pager -o export -n 1 BENCHWATCH_PROBE="$1" 2>/dev/null |
                sed -n "s/^$2=//p"
}
for _ in $(seq 50); do
        [ -n "$(field "$probe-bad" MESSAGE)" ] && break
        sleep 0.1
done

fails=0
expect() { # expect PROBE NAME VALUE
        local got
        got=$(field "$1" "$2")
        [ "$got" = "$3" ] || { echo "FAIL: $1 $2: got '$got', want '$3'"; fails=$((fails + 1)); }
}
expect "$probe" MESSAGE "cpu probe '$probe': 42.0 events/s, p95 0.0407 ms"
expect "$probe" PRIORITY 6
expect "$probe" BENCHWATCH_PLUGIN cpu
expect "$probe" BENCHWATCH_SUCCESS 1
expect "$probe" BENCHWATCH_DURATION 0.420000
expect "$probe" BENCHWATCH_PARAM_MAX_PRIME 10000
expect "$probe" BENCHWATCH_CPU_EVENTS_PER_SECOND 42
expect "$probe" BENCHWATCH_CPU_EVENTS_TOTAL 420
expect "$probe" BENCHWATCH_CPU_LATENCY_SECONDS_MAX 4.3e-05
expect "$probe-bad" PRIORITY 4
expect "$probe-bad" BENCHWATCH_SUCCESS 0
expect "$probe-bad" BENCHWATCH_ERROR "cannot open '/x': No such \"file\""
[ $fails = 0 ] || exit 1
echo "ok: journal entries read back${JPID:+ (private journald)}"
