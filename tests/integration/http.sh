#!/bin/bash
# http.sh — `benchwatch run http` through the CLI against real nginx,
# haproxy and squid on 127.0.0.1 (tests/integration/lib/http_servers.sh starts
# them, in three topologies over two squids).
#
# Checks what a user sees: request counts agree with the servers' access
# logs, labels carry concurrency/keepalive/method/target and never the URL
# or a secret header, 404/500 are non-2xx (and status failures only with
# expect_status; a run of nothing else fails), a backend stopped mid-run behind haproxy shows as 503s, a
# refused port, an unresolvable host and a silent server fail cleanly with
# exit 1 and a clear error, a slow backend shows in the latency quantiles.
set -u
: "${BENCHWATCH:?}" "${top_srcdir:?}"
[ -x "$BENCHWATCH" ] || { echo "SKIP: $BENCHWATCH not built"; exit 77; }
. "$top_srcdir/tests/integration/lib/http_servers.sh"
http_servers_start || exit $?

fail=0
bad() { echo "FAIL: $*" >&2; fail=1; }

# run OUT ARGS...: benchwatch run http ARGS --format=json > OUT.json; $rc
run() {
        out=$HTTP_DIR/$1
        shift
        "$BENCHWATCH" run http "$@" --format=json > "$out.json" 2> "$out.err"
        rc=$?
}

# get OUT METRIC [LABEL=VALUE] [FIELD]: a sample's value (or field / quantile)
get() {
        python3 - "$HTTP_DIR/$1.json" "$2" "${3:-}" "${4:-value}" <<'EOF'
import json, sys
doc = json.load(open(sys.argv[1]))
name, sel, field = "benchwatch_http_" + sys.argv[2], sys.argv[3], sys.argv[4]
for m in doc["metrics"]:
    if m["name"] != name:
        continue
    for s in m["samples"]:
        if sel and s["labels"].get(sel.split("=")[0]) != sel.split("=")[1]:
            continue
        v = s["quantiles"][field[2:]] if field.startswith("q=") else s[field]
        print(v)
        sys.exit(0)
sys.exit("no sample %s{%s}" % (name, sel))
EOF
}

# n requests, exit 0, as many in the access log
before=$(http_access_count front)
run plain url=http://127.0.0.1:$HTTP_FRONT_PORT/index.html requests=1000 \
    concurrency=10 target=front header="Authorization: Bearer SEKRIT-TOKEN"
[ "$rc" = 0 ] || bad "plain run: exit $rc: $(cat "$HTTP_DIR/plain.err")"
[ "$(get plain complete_requests)" = 1000 ] || bad "plain: complete_requests"
[ $(($(http_settled_count front $((before + 1000))) - before)) = 1000 ] || bad "plain: access log"
[ "$(get plain failed_requests reason=connect)" = 0 ] || bad "plain: failures"
python3 - "$HTTP_DIR/plain.json" <<'EOF' || bad "plain: labels"
import json, sys
doc = json.load(open(sys.argv[1]))
for m in doc["metrics"]:
    if not m["name"].startswith("benchwatch_http_"):
        continue
    for s in m["samples"]:
        l = s["labels"]
        assert l["concurrency"] == "10" and l["keepalive"] == "yes", l
        assert l["method"] == "GET" and l["target"] == "front", l
        assert "url" not in l, l
EOF
grep -q SEKRIT "$HTTP_DIR"/plain.* && bad "the secret header was printed"

# keep-alive off, counted the same way
before=$(http_access_count front)
run noka url=http://127.0.0.1:$HTTP_FRONT_PORT/index.html requests=200 \
    concurrency=4 keepalive=no
[ "$rc" = 0 ] && [ "$(get noka complete_requests)" = 200 ] || bad "keepalive=no"
[ $(($(http_settled_count front $((before + 200))) - before)) = 200 ] || bad "keepalive=no: access log"

# 404 and 500 are non-2xx; failures only with expect_status, and a run
# with no status it allows fails (it measured another page than meant)
run e404 url=http://127.0.0.1:$HTTP_FRONT_PORT/404 requests=100
[ "$rc" = 0 ] && [ "$(get e404 non_2xx_responses)" = 100 ] &&
    [ "$(get e404 failed_requests reason=status)" = 0 ] || bad "404 non-2xx"
run e500 url=http://127.0.0.1:$HTTP_FRONT_PORT/500 requests=100 expect_status=2xx
[ "$rc" = 1 ] && [ "$(get e500 non_2xx_responses)" = 100 ] &&
    [ "$(get e500 failed_requests reason=status)" = 100 ] &&
    grep -q "had a status expect_status allows (100 responses, 100 of them non-2xx)" \
        "$HTTP_DIR/e500.err" || bad "500 status failures: rc $rc, $(cat "$HTTP_DIR/e500.err")"

# haproxy balances over both backends
b1=$(http_access_count b1) b2=$(http_access_count b2)
run hap url=http://127.0.0.1:$HTTP_HAPROXY_PORT/index.html requests=600 concurrency=6
http_settled_count b1 $((b1 + 200)) >/dev/null
d2=$(($(http_settled_count b2 $((b2 + 600 - $(http_access_count b1) + b1))) - b2))
d1=$(($(http_access_count b1) - b1))
[ "$rc" = 0 ] && [ $((d1 + d2)) = 600 ] && [ $d1 -ge 200 ] && [ $d2 -ge 200 ] ||
    bad "haproxy: $d1 + $d2 logged for 600 requests"

# the three topologies over the two squids: every request reaches
# a squid (their access logs), shared between both, and is counted once by
# the front nginx where there is one
for topo in $HTTP_TOPOLOGIES; do
        name=${topo%%:*} port=${topo##*:}
        front=; [ "$name" = nginx ] && front=lb; [ "$name" = nginx-haproxy ] && front=lbh
        b1=$(http_access_count b1) b2=$(http_access_count b2)
        f0=$([ -n "$front" ] && http_access_count $front)
        run "topo-$name" url=http://127.0.0.1:$port/index.html method=HEAD requests=300 \
            concurrency=10 keepalive=no target=$name
        http_settled_count b1 $((b1 + 100)) >/dev/null
        d2=$(($(http_settled_count b2 $((b2 + 300 - $(http_access_count b1) + b1))) - b2))
        d1=$(($(http_access_count b1) - b1))
        [ "$rc" = 0 ] && [ "$(get "topo-$name" complete_requests)" = 300 ] &&
            [ "$(get "topo-$name" non_2xx_responses)" = 0 ] || bad "$name: exit $rc, $(cat "$HTTP_DIR/topo-$name.err")"
        [ $((d1 + d2)) = 300 ] && [ $d1 -ge 100 ] && [ $d2 -ge 100 ] || bad "$name: squids logged $d1 + $d2 of 300"
        [ -z "$front" ] || [ $(($(http_settled_count $front $((f0 + 300))) - f0)) = 300 ] ||
            bad "$name: the front nginx logged $(($(http_access_count $front) - f0)) of 300"
        grep -q ' HEAD http://origin/index.html ' "$HTTP_DIR/b1.access.log" || bad "$name: squid did not log the HEADs"
done

# a slow backend shows in the quantiles
run slow url=http://127.0.0.1:$HTTP_FRONT_PORT/slow duration=1s
python3 -c "import sys; sys.exit(not float(sys.argv[1]) >= $HTTP_SLOW_DELAY)" \
    "$(get slow latency_seconds '' q=0.5)" || bad "slow backend not in the median"

# clean errors, exit 1, quickly
t0=$(date +%s)
run refused url=http://127.0.0.1:$HTTP_REFUSED_PORT/
[ "$rc" = 1 ] && grep -q '"error":"cannot connect to 127.0.0.1:18089: Connection refused"' \
    "$HTTP_DIR/refused.json" || bad "refused port: exit $rc"
run nohost url=http://no-such-host.invalid/
[ "$rc" = 1 ] && grep -q "cannot resolve host 'no-such-host.invalid'" \
    "$HTTP_DIR/nohost.json" || bad "unresolvable host: exit $rc"
run silent url=http://127.0.0.1:$HTTP_SILENT_PORT/ duration=1s timeout=300ms
[ "$rc" = 1 ] && grep -q '"error":"no response from 127.0.0.1:18084 within 0.3s' \
    "$HTTP_DIR/silent.json" || bad "silent server: exit $rc"
[ $(($(date +%s) - t0)) -le 8 ] || bad "error cases took too long"

# credentials in the URL authenticate, and the URL (a secret) is not echoed
run creds url=http://bw:pa55word@127.0.0.1:$HTTP_FRONT_PORT/private requests=10
[ "$rc" = 0 ] && [ "$(get creds non_2xx_responses)" = 0 ] || bad "basic auth"
run nocreds url=http://bw:wrong@127.0.0.1:$HTTP_FRONT_PORT/private requests=10
[ "$(get nocreds non_2xx_responses)" = 10 ] || bad "wrong password not a 401"
grep -q -e pa55word -e wrong "$HTTP_DIR"/creds.* "$HTTP_DIR"/nocreds.* &&
    bad "the url's password was printed"

# a backend stopped mid-run behind haproxy: its share becomes 503s
( sleep 0.7; http_stop_server b1 ) &
stopper=$!
run stop url=http://127.0.0.1:$HTTP_HAPROXY_PORT/index.html duration=1.5s \
    expect_status=2xx
wait $stopper
s=$(get stop failed_requests reason=status)
[ "$rc" = 0 ] && [ "$s" -gt 0 ] && [ "$s" = "$(get stop non_2xx_responses)" ] ||
    bad "stopped backend: $s status failures"

# the table reads like ab's summary, with the same figures as the JSON
"$BENCHWATCH" run http url=http://127.0.0.1:$HTTP_FRONT_PORT/index.html requests=300 \
        concurrency=3 > "$HTTP_DIR/table.txt" 2>&1 || bad "table run failed"
for want in "Concurrency Level:      3" "Complete requests:      300" \
        "Failed requests:        0" "Requests per second:" "[ms] (mean, across all concurrent requests)" \
        "Transfer rate:" "Percentage of the requests served within a certain time (ms)" \
        "(longest request)"; do
        grep -qF -- "$want" "$HTTP_DIR/table.txt" || bad "ab-like table lacks '$want': $(cat "$HTTP_DIR/table.txt")"
done
# ab: Time per request (mean) = concurrency x the time per request across all
python3 - "$HTTP_DIR/table.txt" <<'PY' || bad "time per request lines disagree"
import re, sys
t = open(sys.argv[1]).read()
rps = float(re.search(r"Requests per second:\s+([\d.]+)", t).group(1))
per = [float(x) for x in re.findall(r"Time per request:\s+([\d.]+)", t)]
assert abs(per[1] - 1000 / rps) <= 0.002 * per[1] + 0.001, per
assert abs(per[0] - 3 * per[1]) <= 0.002 * per[0] + 0.003, per
PY

[ $fail = 0 ] && echo "http.sh: all checks passed"
exit $fail
