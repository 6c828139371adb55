#!/bin/bash
# pushgateway.sh — the Pushgateway and textfile sinks against a real
# prometheus-pushgateway on 127.0.0.1:19091.
#
# Hand-built results are published through the real sinks by the test
# driver (tests/unit/test_sink drive ...), which also dumps what it
# published; the gateway's /metrics and /api/v1/metrics must then hold
# exactly those series and values.  Checked: a 400 answer (a conflicting
# metric type pushed by someone else) is reported with the gateway's words
# and the push lands once the conflict is gone; protobuf and text pushes
# give the same series; a gateway stopped and restarted mid-run receives the
# latest result of every probe without restarting the pusher; `promtool
# check metrics` accepts the textfile and the gateway's /metrics;
# `push --delete` removes the groups; a gateway that never answers holds a
# stop one timeout, not one a probe; TLS with a client certificate and
# basic auth work (127.0.0.1:19093), and a wrong password is reported.
set -u

PORT=19091
GW=http://127.0.0.1:$PORT
builddir=${top_builddir:-.}
srcdir=${top_srcdir:-.}
DRIVER=$builddir/tests/unit/test_sink
COMPARE=$srcdir/tests/integration/lib/pushgateway-compare.py

for tool in prometheus-pushgateway promtool curl python3; do
        command -v $tool >/dev/null ||
                { echo "SKIP: $tool is not installed (tools/install-deps)"; exit 77; }
done
[ -x "$DRIVER" ] || { echo "SKIP: $DRIVER is not built (make check builds it)"; exit 77; }
if curl -s -o /dev/null "$GW/-/ready"; then
        echo "SKIP: something already listens on 127.0.0.1:$PORT"; exit 77
fi

tmp=$(mktemp -d /tmp/bw-pushgateway.XXXXXX)
GW_PID= A_PID= B_PID= D_PID=
cleanup() {
        for p in $A_PID $B_PID $D_PID $GW_PID; do
                kill "$p" 2>/dev/null && wait "$p" 2>/dev/null
        done
        rm -rf "$tmp"
}
trap cleanup EXIT

fail() {
        echo "FAIL: $*"
        for f in "$tmp"/*.err "$tmp/gateway.log"; do
                [ -s "$f" ] && { echo "--- $f"; tail -20 "$f"; }
        done
        exit 1
}

start_gateway() {
        prometheus-pushgateway --web.listen-address=127.0.0.1:$PORT \
                --persistence.file= >>"$tmp/gateway.log" 2>&1 &
        GW_PID=$!
        for _ in $(seq 100); do
                curl -s -o /dev/null "$GW/-/ready" && return 0
                sleep 0.1
        done
        fail "the pushgateway did not start"
}

stop_gateway() {
        kill "$GW_PID" && wait "$GW_PID" 2>/dev/null
        GW_PID=
}

# start_driver NAME ARGS...: the driver reads commands from fd (A: 3, B: 4)
start_driver() {
        local name=$1; shift
        mkfifo "$tmp/$name.in"
        "$DRIVER" drive "$@" <"$tmp/$name.in" >"$tmp/$name.out" 2>"$tmp/$name.err" &
        eval "${name}_PID=$!"
        : >"$tmp/$name.out"
}

# cmd NAME FD COMMAND: send a command, wait for its acknowledgement
cmd() {
        local name=$1 fd=$2 n
        shift 2
        n=$(wc -l <"$tmp/$name.out")
        echo "$*" >&"$fd"
        for _ in $(seq 300); do
                [ "$(wc -l <"$tmp/$name.out")" -gt "$n" ] && return 0
                sleep 0.05
        done
        fail "driver $name did not answer '$*'"
}

# wait_for SECONDS COMMAND...: until COMMAND succeeds (its last output shown on failure)
wait_for() {
        local limit=$1 out
        shift
        for _ in $(seq $((limit * 5))); do
                out=$("$@" 2>&1) && return 0
                sleep 0.2
        done
        echo "$out"
        return 1
}

fetch() { curl -sf "$GW/metrics" >"$tmp/gw.txt" && curl -sf "$GW/api/v1/metrics" >"$tmp/gw.json"; }

# gateway_has DUMP INSTANCE: /metrics and the API hold exactly DUMP's series
gateway_has() {
        fetch &&
        python3 "$COMPARE" metrics "$1" "$tmp/gw.txt" job=benchwatch instance="$2" dc=lab &&
        python3 "$COMPARE" api "$1" "$tmp/gw.json" job=benchwatch instance="$2" dc=lab
}

common="pushgateway.url=$GW/ pushgateway.labels=dc=lab pushgateway.retry_min=100ms
        pushgateway.retry_max=500ms pushgateway.connect_timeout=1s pushgateway.timeout=3s"

start_gateway

# ---- a 400 answer: someone pushed benchwatch_cpu_events_total as a gauge ----
printf '# TYPE benchwatch_cpu_events_total gauge\nbenchwatch_cpu_events_total 1\n' |
        curl -sf -X PUT --data-binary @- "$GW/metrics/job/intruder" >/dev/null ||
        fail "cannot push the conflicting metric"
# shellcheck disable=SC2086
start_driver A $common pushgateway.instance=host-pb "textfile.path=$tmp/benchwatch.prom"
exec 3>"$tmp/A.in"
cmd A 3 publish a 100
wait_for 10 grep -q "cannot push probe 'a' to $GW/metrics/job/benchwatch/instance/host-pb/probe/a/dc/lab: HTTP 400: .*inconsistent with existing metrics.*benchwatch_cpu_events_total.*is not a \(GAUGE\|COUNTER\)" "$tmp/A.err" ||
        fail "the 400 answer was not reported with the gateway's reason"
sleep 1.5
[ "$(grep -c "HTTP 400" "$tmp/A.err")" = 1 ] || fail "the 400 answer was logged more than once"
curl -sf -X DELETE "$GW/metrics/job/intruder" || fail "cannot delete the conflicting group"

# ---- every value and label arrives (protobuf) ----
cmd A 3 publish b 7 fail
cmd A 3 publish odd/probe 3.25
cmd A 3 dump "$tmp/want-1.prom"
wait_for 10 gateway_has "$tmp/want-1.prom" host-pb ||
        fail "the gateway does not hold what was pushed (protobuf)"
grep -q 'probe="odd/probe"' "$tmp/gw.txt" || fail "probe name with '/' lost"
grep -q 'path="/tmp/a \\"b\\"\\\\c\\nd"' "$tmp/gw.txt" || fail "escaped label value changed"
echo "ok: protobuf push: $(grep -c 'instance="host-pb"' "$tmp/gw.txt") series equal"

# ---- the text format gives the same series ----
# shellcheck disable=SC2086
start_driver B $common pushgateway.instance=host-text pushgateway.format=text
exec 4>"$tmp/B.in"
cmd B 4 publish a 100
cmd B 4 publish b 7 fail
cmd B 4 publish odd/probe 3.25
cmd B 4 dump "$tmp/want-text.prom"
wait_for 10 gateway_has "$tmp/want-text.prom" host-text ||
        fail "the gateway does not hold what was pushed (text)"
python3 "$COMPARE" same "$tmp/gw.txt" "$tmp/gw.txt" instance=host-pb instance=host-text ||
        fail "protobuf and text pushes differ"
echo "ok: text push gives the same series"
cmd B 4 quit
exec 4>&-
wait "$B_PID" || fail "driver B failed"
B_PID=

curl -sf "$GW/metrics" | promtool check metrics || fail "promtool rejects the gateway's /metrics"

# ---- the gateway goes away and comes back, empty ----
stop_gateway
cmd A 3 publish a 555
cmd A 3 publish odd/probe 9
wait_for 10 grep -q "cannot push probe '.*Couldn't connect\|cannot push probe '.*onnection refused" "$tmp/A.err" ||
        fail "the unreachable gateway was not reported"
sleep 1
[ "$(grep -c "onnect" "$tmp/A.err")" = 1 ] || fail "the down gateway was logged more than once"
start_gateway
cmd A 3 dump "$tmp/want-2.prom"
wait_for 10 gateway_has "$tmp/want-2.prom" host-pb ||
        fail "the latest results did not arrive after the gateway came back"
grep -q "answers again" "$tmp/A.err" || fail "recovery not logged"
echo "ok: after a gateway restart every probe's latest result arrived"

# ---- push --delete ----
cmd A 3 delete odd/probe
grep -q '^ok delete' "$tmp/A.out" || fail "delete failed: $(tail -1 "$tmp/A.out")"
# the gateway answers 202 and deletes after: poll
group_gone() { fetch; ! grep -q "probe=\"$1\"" "$tmp/gw.txt"; }
wait_for 5 group_gone odd/probe || fail "the deleted group is still there"
grep -q 'instance="host-pb".*probe="a"' "$tmp/gw.txt" || fail "delete removed too much"
echo "ok: delete"

# ---- the textfile: every probe's latest result, valid for node_exporter ----
cmd A 3 quit
exec 3>&-
wait "$A_PID" || fail "driver A failed"
A_PID=
cmp "$tmp/want-2.prom" "$tmp/benchwatch.prom" || fail "the textfile differs from the published results"
[ "$(stat -c %a "$tmp/benchwatch.prom")" = 644 ] || fail "textfile mode is not 0644"
promtool check metrics <"$tmp/benchwatch.prom" || fail "promtool rejects the textfile"
echo "ok: textfile"

# ---- the real daemon with a real cpu probe, if built ----
if [ -x "${BENCHWATCH:-}" ] && [ -e "${BENCHWATCH_PLUGIN_DIR:-}/cpu.so" ]; then
        stop_gateway
        start_gateway # empty: the driver's made-up help texts would conflict
        cat >"$tmp/bw.conf" <<CONF
[daemon]
interval = 2s
splay = 0
duty_cycle = 1
max_load = 0
max_psi_cpu = 0
yield = no
max_psi_io = 0
max_psi_memory = 0
state_dir = $tmp/state
cache_dir = $tmp/cache
[probe cpu-e2e]
plugin = cpu
duration = 200ms
max_prime = 2000
[pushgateway]
url = $GW
instance = host-daemon
labels = dc=lab
retry_min = 100ms
retry_max = 500ms
[textfile]
path = $tmp/daemon.prom
[journal]
enabled = no
CONF
        "$BENCHWATCH" --config "$tmp/bw.conf" daemon >"$tmp/daemon.out" 2>"$tmp/daemon.err" &
        D_PID=$!
        # the textfile and the gateway hold the same run's figures
        wait_for 20 gateway_has "$tmp/daemon.prom" host-daemon ||
                fail "the daemon's figures did not reach the gateway"
        promtool check metrics <"$tmp/daemon.prom" || fail "promtool rejects the daemon's textfile"
        curl -sf "$GW/metrics" | promtool check metrics ||
                fail "promtool rejects the gateway's /metrics with the daemon's figures"
        echo "ok: daemon: the gateway holds what the textfile holds"
        stop_gateway
        stamp() { grep '^benchwatch_probe_last_run_timestamp_seconds' "$tmp/daemon.prom"; }
        before=$(stamp)
        ran_again() { [ "$(stamp)" != "$before" ]; }
        wait_for 20 ran_again || fail "the daemon did not run the probe again"
        start_gateway
        wait_for 20 gateway_has "$tmp/daemon.prom" host-daemon ||
                fail "the daemon's latest figures did not arrive after the gateway restart"
        echo "ok: daemon: latest figures arrived after a gateway restart"

        # the groups the daemon's configuration no longer has are deleted:
        # a probe removed at a reload, then every old group when a restart
        # changes the instance; the others stay
        groups() {
                curl -sf "$GW/api/v1/metrics" | python3 -c 'import json, sys
for g in json.load(sys.stdin)["data"]:
    print(",".join("%s=%s" % kv for kv in sorted(g["labels"].items())))' | sort | tr '\n' ' '
        }
        groups_are() { [ "$(groups)" = "$1" ]; }
        G="dc=lab,instance=host-daemon,job=benchwatch"
        printf '[probe cpu-b]\nplugin = cpu\nduration = 200ms\nmax_prime = 2000\n' >>"$tmp/bw.conf"
        kill -HUP "$D_PID"
        wait_for 20 groups_are "$G $G,probe=cpu-b $G,probe=cpu-e2e " ||
                fail "a reload adding cpu-b: groups $(groups)"
        python3 - "$tmp/bw.conf" <<'PY'
import re, sys
path = sys.argv[1]
text = open(path).read()
text = re.sub(r"\[probe cpu-e2e\]\n[^\[]*", "", text) # the section, to the next
open(path, "w").write(text)
PY
        grep -q '^\[probe cpu-e2e\]' "$tmp/bw.conf" && fail "the test did not remove cpu-e2e"
        kill -HUP "$D_PID"
        wait_for 20 groups_are "$G $G,probe=cpu-b " ||
                fail "a reload removing cpu-e2e: groups $(groups)"
        grep -q "pushgateway: deleted $GW/metrics/job/benchwatch/instance/host-daemon/probe/cpu-e2e/dc/lab: no probe of the configuration pushes there any more" \
                "$tmp/daemon.err" || fail "the deletion was not logged: $(tail -5 "$tmp/daemon.err")"
        echo "ok: daemon: a reload that removed probe cpu-e2e deleted its group"
        # a reload that fails after the gateway's sink was made (the remote
        # write's password file is read then) touches no group and no list
        cp "$tmp/bw.conf" "$tmp/bw.good"
        cp "$tmp/state/pushgateway-groups" "$tmp/groups.before"
        sed -i 's/^instance = host-daemon$/instance = host-elsewhere/' "$tmp/bw.conf"
        printf '[remote_write]\nurl = http://127.0.0.1:9/api/v1/write\npassword_file = %s\n' \
                "$tmp/no-such-password" >>"$tmp/bw.conf"
        kill -HUP "$D_PID"
        wait_for 10 grep -q "reload failed, keeping the running configuration" "$tmp/daemon.err" ||
                fail "the reload did not fail: $(tail -3 "$tmp/daemon.err")"
        sleep 2 # a deletion would have been the new sink's first act
        groups_are "$G $G,probe=cpu-b " || fail "a failed reload changed the groups: $(groups)"
        cmp -s "$tmp/groups.before" "$tmp/state/pushgateway-groups" ||
                fail "a failed reload rewrote the list: $(cat "$tmp/state/pushgateway-groups")"
        grep -q "at another gateway\|host-elsewhere" "$tmp/daemon.err" &&
                fail "a failed reload spoke of groups: $(grep -m2 'gateway' "$tmp/daemon.err")"
        cp "$tmp/bw.good" "$tmp/bw.conf"
        echo "ok: daemon: a reload that failed deleted nothing and kept the list"
        kill "$D_PID" && wait "$D_PID"
        sed -i 's/^instance = host-daemon$/instance = host-daemon2/' "$tmp/bw.conf"
        "$BENCHWATCH" --config "$tmp/bw.conf" daemon >"$tmp/daemon.out" 2>>"$tmp/daemon.err" &
        D_PID=$!
        G2="dc=lab,instance=host-daemon2,job=benchwatch"
        wait_for 20 groups_are "$G2 $G2,probe=cpu-b " ||
                fail "a restart with another instance: groups $(groups)"
        echo "ok: daemon: a restart with another instance deleted the old instance's groups"
        kill "$D_PID" && wait "$D_PID"
        D_PID=
        "$BENCHWATCH" --config "$tmp/bw.conf" push --delete >/dev/null ||
                fail "benchwatch push --delete failed"
        wait_for 5 groups_are "" || fail "push --delete left groups: $(groups)"
        echo "ok: benchwatch push --delete"
else
        echo "skipped the daemon end-to-end part: \$BENCHWATCH or the cpu plugin not built"
fi

# ---- TLS with a client certificate and basic auth (a second gateway) ----
if ! command -v openssl >/dev/null || ! command -v htpasswd >/dev/null; then
        echo "skipped TLS/basic auth: openssl or htpasswd (apache2-utils) missing"
        exit 0
fi
stop_gateway

# A gateway that accepts and never answers: the last round at a stop (or a
# reload) has one timeout in all, not one a probe (4 probes took 4 s here)
python3 -c 'import socket, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", 19095)); s.listen(64); time.sleep(60)' &
D_PID=$!
sleep 0.5
t0=$(date +%s.%N)
printf 'publish a 1\npublish b 2\npublish c 3\npublish d 4\nquit\n' |
        "$DRIVER" drive pushgateway.url=http://127.0.0.1:19095 pushgateway.timeout=1s \
        >/dev/null 2>"$tmp/silent.err"
t1=$(date +%s.%N)
kill "$D_PID"; wait "$D_PID" 2>/dev/null; D_PID=
awk -v a="$t0" -v b="$t1" 'BEGIN { printf "a silent gateway: the sink stopped %.2f s after its start\n", b - a; exit !(b - a < 3) }' ||
        fail "the last round at a stop took a timeout a probe"

PORT=19093
GW=https://127.0.0.1:$PORT
t=$tmp/tls
mkdir "$t" && (
        cd "$t" &&
        openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=bw-test-ca \
                -keyout ca.key -out ca.crt &&
        openssl req -newkey rsa:2048 -nodes -subj /CN=127.0.0.1 -keyout server.key \
                -out server.csr &&
        printf 'subjectAltName=IP:127.0.0.1\n' >san.ext &&
        openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial \
                -days 1 -extfile san.ext -out server.crt &&
        openssl req -newkey rsa:2048 -nodes -subj /CN=benchwatch -keyout client.key \
                -out client.csr &&
        openssl x509 -req -in client.csr -CA ca.crt -CAkey ca.key -CAcreateserial \
                -days 1 -out client.crt
) >/dev/null 2>&1 || fail "cannot make test certificates"
printf 'very s3cret pw\n' >"$t/pw"
cat >"$t/web.yml" <<WEB
tls_server_config:
  cert_file: $t/server.crt
  key_file: $t/server.key
  client_auth_type: RequireAndVerifyClientCert
  client_ca_file: $t/ca.crt
basic_auth_users:
  bw: '$(htpasswd -nbB bw 'very s3cret pw' | cut -d: -f2)'
WEB
prometheus-pushgateway --web.listen-address=127.0.0.1:$PORT --persistence.file= \
        --web.config.file="$t/web.yml" >>"$tmp/gateway.log" 2>&1 &
GW_PID=$!
curl_tls() { curl -sf --cacert "$t/ca.crt" --cert "$t/client.crt" --key "$t/client.key" -u 'bw:very s3cret pw' "$@"; }
for _ in $(seq 100); do curl_tls -o /dev/null "$GW/-/ready" && break; sleep 0.1; done
tls="pushgateway.url=$GW pushgateway.instance=host-tls pushgateway.ca_file=$t/ca.crt
     pushgateway.cert_file=$t/client.crt pushgateway.key_file=$t/client.key
     pushgateway.username=bw pushgateway.retry_min=100ms pushgateway.retry_max=500ms"
# shellcheck disable=SC2086
printf 'publish tls 5\nsleep 0.5\nquit\n' |
        "$DRIVER" drive $tls "pushgateway.password_file=$t/pw" >/dev/null 2>"$tmp/tls.err"
curl_tls "$GW/metrics" | grep -q '^benchwatch_cpu_events_per_second{.*instance="host-tls".*probe="tls"} 5$' ||
        fail "nothing arrived over TLS with basic auth"
printf 'wrong\n' >"$t/pw2"
# shellcheck disable=SC2086
printf 'publish tls 6\nsleep 0.5\nquit\n' |
        "$DRIVER" drive $tls "pushgateway.password_file=$t/pw2" >/dev/null 2>"$tmp/tls-bad.err"
grep -q "cannot push probe 'tls' to $GW/.*HTTP 401: Unauthorized" "$tmp/tls-bad.err" ||
        fail "a wrong password was not reported"
grep -q "s3cret\|wrong" "$tmp"/*.err && fail "a password reached the log"
echo "ok: TLS with client certificate and basic auth"
exit 0
