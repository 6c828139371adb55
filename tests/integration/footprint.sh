#!/bin/bash
# What the daemon keeps in its own memory: only the plugins its
# configuration names are loaded (its probes run in processes of their own),
# and libcurl with the libraries it pulls in (OpenSSL, GnuTLS, Kerberos,
# LDAP) only when a Pushgateway or remote-write output needs it.  Checked in
# /proc/PID/maps of a running daemon: without HTTP outputs, with one, and
# after a reload that adds an http probe (loaded then, the reload good).
. "$top_srcdir/tests/integration/lib/lib.sh"

CONF=$T/bw.conf
maps() { cat "/proc/$DPID/maps"; }
mapped() { maps | grep -q "$1"; }

# start_daemon: the daemon on $CONF, once it says it started
start_daemon() {
        : > "$T/err"
        "$BENCHWATCH" -c "$CONF" daemon 2> "$T/err" &
        DPID=$!
        BW_PIDS="$BW_PIDS $DPID"
        wait_for 10 grep -q ' started: ' "$T/err" || fail "daemon did not start: $(cat "$T/err")"
}
stop_daemon() {
        kill "$DPID"
        wait "$DPID" 2> /dev/null
}

{
        test_daemon_section "$T"
        printf 'interval = 1h\n[probe cpu]\nplugin = cpu\nduration = 0.1s\n'
        printf '[textfile]\npath = %s/bw.prom\n[journal]\nenabled = no\n' "$T"
} > "$CONF"
start_daemon
mapped '/cpu\.so$' || fail "the configured plugin is not loaded: $(maps | grep '\.so' | awk '{ print $6 }' | sort -u)"
for lib in '/http\.so$' '/mysql\.so$' '/disk\.so$' libcurl libmariadb libssl libgnutls; do
        ! mapped "$lib" || fail "a daemon without HTTP outputs or such probes maps $lib"
done
anon=$(awk '/^RssAnon:/ { print $2 }' "/proc/$DPID/status")
echo "RssAnon of a daemon with one cpu probe and a textfile: $anon kB"

# reload: an http probe added: its plugin (and libcurl with it) loads now
{ cat "$CONF"; printf '[probe web]\nplugin = http\nurl = http://127.0.0.1:9/\n'; } > "$CONF.new"
mv "$CONF.new" "$CONF"
kill -HUP "$DPID"
wait_for 5 grep -q 'configuration reloaded' "$T/err" || fail "reload with an http probe: $(tail -3 "$T/err")"
mapped '/http\.so$' || fail "the http plugin of a probe added by a reload is not loaded"
# an unknown plugin: the reload is refused naming the plugins there are
{ cat "$CONF"; printf '[probe odd]\nplugin = nosuch\n'; } > "$CONF.new"
mv "$CONF.new" "$CONF"
kill -HUP "$DPID"
wait_for 5 grep -q "nosuch" "$T/err" || fail "unknown plugin not reported: $(tail -3 "$T/err")"
grep "nosuch" "$T/err" | grep -q 'memory' || fail "the message does not list the plugins there are: $(grep nosuch "$T/err")"
kill -0 "$DPID" || fail "a bad reload stopped the daemon"
stop_daemon

# a Pushgateway output: libcurl is loaded for it (nothing needs to listen)
{
        test_daemon_section "$T"
        printf 'interval = 1h\n[probe cpu]\nplugin = cpu\nduration = 0.1s\n'
        printf '[journal]\nenabled = no\n[pushgateway]\nurl = http://127.0.0.1:9\n'
} > "$CONF"
start_daemon
mapped libcurl || fail "a daemon with a Pushgateway output has no libcurl"
! mapped '/http\.so$' || fail "the http plugin is loaded without an http probe"
stop_daemon
echo "footprint: ok"
