#!/bin/sh
# secrets.sh — secrets given through files (the Pushgateway's and mysql's
# password_file) and secret parameters (http's header) never show up where
# others can read them: not in the command line (/proc/PID/cmdline) or the
# environment (/proc/PID/environ) of the daemon or of any probe child, not
# in the log, the journal, the textfile, the baselines or the JSON output.
# The secrets are proven to be used (the fake gateway receives the basic
# auth password, the web server the header), so the test cannot pass by
# never reading them.  Also: files benchwatch creates are not writable by
# group or others, and the disk test file is private (0600).
. "${top_srcdir:?}/tests/integration/lib/lib.sh"
command -v python3 > /dev/null || skip "python3 not installed"

PGPW="pg-S3cret-$$-pw"
MYPW="my-S3cret-$$-pw"
HDR="hdr-S3cret-$$-tok"
printf '%s\n' "$PGPW" > "$T/pg.pw"
printf '%s\n' "$MYPW" > "$T/my.pw"
chmod 600 "$T/pg.pw" "$T/my.pw"
umask 022

# A fake Pushgateway that records the basic auth credentials, a web server
# that records the X-Token header, and a "MySQL server" that accepts
# connections and says nothing (the probe child waits there, its password
# read, until its timeout).
python3 -u "$top_srcdir/tests/integration/lib/secret_catcher.py" "$T/seen" > "$T/ports" 2> "$T/fake.err" &
BW_PIDS="$BW_PIDS $!"
# python starts in well under a second; a host busy with a sanitizer build
# may take several
for i in $(seq 300); do [ -s "$T/ports" ] && break; sleep 0.1; done
read -r PG_PORT MY_PORT WEB_PORT < "$T/ports" || fail "fake servers did not start"

mkdir -p "$T/state" "$T/cache" "$T/tf"
cat > "$T/bw.conf" <<CONF
[daemon]
state_dir = $T/state
cache_dir = $T/cache
splay = 0
duty_cycle = 1
max_psi_cpu = 0
yield = no
max_psi_io = 0
max_psi_memory = 0
[probe c]
plugin = cpu
interval = 1s
duration = 200ms
[probe m]
plugin = mysql
interval = 1s
timeout = 2s
host = 127.0.0.1
port = $MY_PORT
user = bw
password_file = $T/my.pw
[probe w]
plugin = http
interval = 1s
url = http://127.0.0.1:$WEB_PORT/
header = X-Token: $HDR
requests = 5
concurrency = 1
[pushgateway]
url = http://127.0.0.1:$PG_PORT
username = bw
password_file = $T/pg.pw
[textfile]
path = $T/tf/benchwatch.prom
CONF

"$BENCHWATCH" -c "$T/bw.conf" check-config > "$T/check.out" 2>&1 ||
        { cat "$T/check.out"; fail "check-config"; }
"$BENCHWATCH" -c "$T/bw.conf" daemon --print > "$T/daemon.out" 2> "$T/daemon.err" &
DPID=$!
BW_PIDS="$BW_PIDS $DPID"
start=$(date +%s)

# Every 50 ms for 8 s: the command line and environment of the daemon and
# of every process below it.
descendants() {
        for c in $(cat /proc/"$1"/task/*/children 2>/dev/null); do
                echo "$c"
                descendants "$c"
        done
}
samples=0
end=$(( $(date +%s) + 8 ))
while [ "$(date +%s)" -lt "$end" ]; do
        kill -0 "$DPID" 2>/dev/null || { cat "$T/daemon.err"; fail "the daemon died"; }
        for p in $DPID $(descendants "$DPID"); do
                [ "$p" != "$DPID" ] && samples=$((samples + 1))
                for f in cmdline environ; do
                        tr '\0' '\n' 2>/dev/null < /proc/"$p"/$f > "$T/proc.$f" || continue
                        for s in "$PGPW" "$MYPW" "$HDR"; do
                                grep -qF -- "$s" "$T/proc.$f" &&
                                        fail "a secret is in /proc/$p/$f ($(tr '\0' ' ' < /proc/"$p"/cmdline))"
                        done
                done
        done
        sleep 0.05
done
kill -TERM "$DPID"
wait "$DPID"
[ "$samples" -gt 0 ] || fail "never saw a probe child to inspect"

# The secrets were used: the gateway got the password, the server the header.
grep -qxF "bw:$PGPW" "$T/seen" ||
        { cat "$T/seen" "$T/daemon.err"; fail "the gateway never got the password"; }
grep -qxF "hdr $HDR" "$T/seen" || fail "the web server never got the secret header"
grep -q "'m'" "$T/daemon.out" "$T/daemon.err" || fail "the mysql probe never ran"

# ... and are nowhere else.
for s in "$PGPW" "$MYPW" "$HDR" "$(printf 'bw:%s' "$PGPW" | base64)"; do
        for f in "$T/check.out" "$T/daemon.out" "$T/daemon.err" "$T/tf/benchwatch.prom" "$T"/state/*; do
                [ -f "$f" ] && grep -qF -- "$s" "$f" && fail "a secret is in $f"
        done
done
if command -v journalctl > /dev/null && journalctl -n 0 > /dev/null 2>&1; then
        journalctl --since "@$start" -o export 2> /dev/null > "$T/journal" || :
        for s in "$PGPW" "$MYPW" "$HDR"; do
                grep -qF -- "$s" "$T/journal" && fail "a secret is in the journal"
        done
fi

# The output of `run` leaves the secret parameter out, in every format.
for fmt in json table prometheus; do
        bw run http "url=http://127.0.0.1:$WEB_PORT/" "header=X-Token: $HDR" \
                requests=3 concurrency=1 --format=$fmt > "$T/run.$fmt" 2>&1 ||
                { cat "$T/run.$fmt"; fail "run http --format=$fmt"; }
        grep -qF -- "$HDR" "$T/run.$fmt" && fail "the secret header is in --format=$fmt output"
done
bw run mysql host=127.0.0.1 port=1 "password_file=$T/my.pw" --format=json > "$T/run.my" 2>&1
grep -qF -- "$MYPW" "$T/run.my" && fail "the mysql password is in the output"

# Modes of what benchwatch created: nothing writable by group or others.
bad=$(find "$T/state" "$T/cache" "$T/tf" -newer "$T/bw.conf" -perm /022 ! -type l)
[ -z "$bad" ] || { ls -la $bad; fail "writable by group or others: $bad"; }
bw run disk "path=$T/cache/d.dat" size=1M duration=200ms > /dev/null 2>&1 || fail "run disk"
[ "$(stat -c %a "$T/cache/d.dat")" = 600 ] ||
        fail "disk test file mode $(stat -c %a "$T/cache/d.dat")"
echo "no secret in argv, environ, log, journal, textfile, baselines or output" \
     "($samples child samples); modes: $(cd "$T" && stat -c '%n %a' tf/* state/* 2>/dev/null | tr '\n' ' ')"
