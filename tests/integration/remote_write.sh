#!/bin/sh
# remote_write.sh — [remote_write] against the real receivers, Debian's
# Prometheus (--web.enable-remote-write-receiver) and VictoriaMetrics, on
# 127.0.0.1 with private ports and data directories, driven by the daemon
# with a fast cpu probe.  After each phase every run the daemon recorded
# (its history file: timestamp, series, value) must be in the receiver at
# its own timestamp, with exactly as many runs stored as made, and the last
# run's every series equal to the textfile's (remote_write_check.py):
#   1. Prometheus, up all along, the daemon reloaded (SIGHUP) twice;
#   2. Prometheus stopped for several runs, then started again: the
#      spooled runs arrive, in order, with their timestamps;
#   3. VictoriaMetrics, up: the same comparison through /api/v1/export;
#   4. VictoriaMetrics down while the daemon is restarted twice: the runs
#      spooled by the earlier daemons arrive once it is back;
#   5. a receiver answering 400 (a fake): logged once with the answer, each
#      run dropped and counted, never retried, the daemon goes on;
#   6. a receiver that is away and a tiny spool_max_bytes: the spool stays
#      within its bound and the dropped runs are counted.
. "${top_srcdir:?}/tests/integration/lib/lib.sh"
for c in prometheus victoria-metrics python3 curl; do
        command -v $c > /dev/null || skip "$c not installed"
done
CHECK="$top_srcdir/tests/integration/lib/remote_write_check.py"
PROM_PORT=19190
VM_PORT=18428
PROM=http://127.0.0.1:$PROM_PORT
VM=http://127.0.0.1:$VM_PORT
for p in $PROM_PORT $VM_PORT; do
        curl -s -o /dev/null "http://127.0.0.1:$p/" && skip "port $p is taken"
done

# ---- servers -------------------------------------------------------------
printf 'global:\n  scrape_interval: 1m\nscrape_configs: []\n' > "$T/prometheus.yml"
start_prom() {
        prometheus --config.file="$T/prometheus.yml" --storage.tsdb.path="$T/prom" \
                --web.listen-address=127.0.0.1:$PROM_PORT \
                --web.enable-remote-write-receiver >> "$T/prom.log" 2>&1 < /dev/null &
        prom_pid=$!
        BW_PIDS="$BW_PIDS $prom_pid"
        wait_for 30 curl -fs -o /dev/null "$PROM/-/ready" || { tail "$T/prom.log"; fail "prometheus did not start"; }
}
start_vm() {
        victoria-metrics -storageDataPath="$T/vm" -httpListenAddr=127.0.0.1:$VM_PORT \
                -search.latencyOffset=1s >> "$T/vm.log" 2>&1 < /dev/null &
        vm_pid=$!
        BW_PIDS="$BW_PIDS $vm_pid"
        wait_for 30 curl -fs -o /dev/null "$VM/health" || { tail "$T/vm.log"; fail "victoria-metrics did not start"; }
}
stop_pid() { kill "$1" 2>/dev/null; wait "$1" 2>/dev/null; }

# ---- the daemon ------------------------------------------------------------
mkdir -p "$T/state" "$T/cache"
conf() { # URL [EXTRA OPTION LINES]
        test_daemon_section "$T"
        cat <<CONF
[probe c]
plugin = cpu
interval = 1s
duration = 200ms
[textfile]
path = $T/bw.prom
[remote_write]
url = $1
instance = testhost
labels = site=t1
spool_dir = $T/spool
timeout = 2s
retry_min = 200ms
retry_max = 1s
CONF
        shift
        for l in "$@"; do echo "$l"; done
}
start_daemon() { # URL [EXTRA OPTION LINES]
        conf "$@" > "$T/bw.conf"
        "$BENCHWATCH" -v -c "$T/bw.conf" daemon >> "$T/daemon.log" 2>&1 < /dev/null &
        dpid=$!
        BW_PIDS="$BW_PIDS $dpid"
}
stop_daemon() { stop_pid "$dpid"; }
# runs the daemon has made: timestamps in its history file
runs() { awk 'NR > 1 { print $1 }' "$T/state/history-c.txt" 2>/dev/null | sort -u | wc -l; }
runs_at_least() { [ "$(runs)" -ge "$1" ]; }
wait_runs() { # N more runs than now
        local want=$(($(runs) + $1))
        wait_for 60 runs_at_least $want || fail "the daemon made $(runs) runs, want $want"
}
spooled() { find "$T/spool" -name '*.rw' 2>/dev/null | wc -l; }
spool_empty() { [ "$(spooled)" = 0 ]; }
selfstat() { awk -v n="$1" '$1 == n { print $2 }' "$T/bw.prom"; }
check() { # prom|vm URL: every run in the receiver (VM makes data searchable after a delay)
        wait_for 20 python3 "$CHECK" "$1" "$2" c "$T/state/history-c.txt" "$T/bw.prom" \
                testhost site=t1 > "$T/check.out" 2> "$T/check.err" ||
                { cat "$T/check.err"; fail "$3: the receiver does not hold every run"; }
        echo "$3: $(cat "$T/check.out")"
}

# 1. Prometheus up, the daemon reloaded twice on the way (the new sink
#    takes the spool over from the old one: no run lost or sent twice)
start_prom
start_daemon "$PROM/api/v1/write"
wait_runs 2
kill -HUP "$dpid"
wait_runs 2
kill -HUP "$dpid"
wait_runs 2
stop_daemon
[ "$(grep -c "configuration reloaded" "$T/daemon.log")" = 2 ] || fail "phase 1: the daemon did not reload twice"
spool_empty || fail "phase 1: $(spooled) run(s) left in the spool"
check prom "$PROM" "1 prometheus"
[ "$(selfstat benchwatch_remote_write_failed_total)" = 0 ] || fail "phase 1: failed requests"
# the host's info metrics ride with every run (no probe label), so a join
# with benchwatch_host_info always finds it within the query lookback
curl -sf "$PROM/api/v1/query" --data-urlencode \
        'query=count_over_time(benchwatch_host_info{job="benchwatch",instance="testhost"}[1h])' > "$T/hi.json" ||
        fail "phase 1: query benchwatch_host_info"
python3 - "$T/hi.json" "$(runs)" "$(awk -F'"' '/^benchwatch_host_info/ {for (i = 1; i < NF; i++) if ($i ~ /cpu_model=$/) print $(i + 1)}' "$T/bw.prom")" <<'PY' ||
import json, sys
r = json.load(open(sys.argv[1]))["data"]["result"]
assert len(r) == 1, r
assert "probe" not in r[0]["metric"] and r[0]["metric"].get("cpu_model", "") == sys.argv[3], r
assert int(r[0]["value"][1]) == int(sys.argv[2]), (r, sys.argv[2])
PY
        fail "phase 1: benchwatch_host_info not with every run: $(cat "$T/hi.json")"

# 2. Prometheus away for several runs, then back
start_daemon "$PROM/api/v1/write"
wait_runs 2
stop_pid "$prom_pid"
before=$(runs)
wait_runs 4
[ "$(spooled)" -ge 3 ] || fail "phase 2: only $(spooled) run(s) spooled while prometheus was away"
grep -q "remote_write: cannot send to $PROM/api/v1/write" "$T/daemon.log" || fail "phase 2: outage not logged"
start_prom
wait_for 30 spool_empty || fail "phase 2: $(spooled) run(s) still spooled with prometheus back"
grep -q "answers again" "$T/daemon.log" || fail "phase 2: the receiver's return is not logged"
stop_daemon
check prom "$PROM" "2 prometheus outage ($(( $(runs) - before )) runs since it went away)"
stop_pid "$prom_pid"

# 3. VictoriaMetrics up (a new history, so the check sees only its runs)
rm -f "$T/state/history-c.txt"
start_vm
start_daemon "$VM/api/v1/write"
wait_runs 4
stop_daemon
check vm "$VM" "3 victoria-metrics"

# 4. VictoriaMetrics away while the daemon is restarted twice
stop_pid "$vm_pid"
for round in 1 2; do
        start_daemon "$VM/api/v1/write"
        wait_runs 2
        stop_daemon
done
n=$(spooled)
[ "$n" -ge 4 ] || fail "phase 4: $n run(s) spooled over two daemons, want >= 4"
# the largest run's request: phase 6's bound holds two of them and a half
run_bytes=$(find "$T/spool" -name '*.rw' -printf '%s\n' | sort -n | tail -n 1)
grep -q "unsent run(s) stay in spool" "$T/daemon.log" || fail "phase 4: the stop does not say runs stay spooled"
start_vm
start_daemon "$VM/api/v1/write"
grep -q "unsent run(s) in spool" "$T/daemon.log" || wait_for 5 grep -q "unsent run(s) in spool" "$T/daemon.log" ||
        fail "phase 4: the start does not mention the spooled runs"
wait_for 30 spool_empty || fail "phase 4: $(spooled) run(s) still spooled with victoria-metrics back"
wait_runs 1
stop_daemon
check vm "$VM" "4 victoria-metrics, daemon restarted while it was away ($n spooled)"
stop_pid "$vm_pid"

# 5. A receiver that refuses every run with 400
python3 -u "$top_srcdir/tests/integration/lib/refusing_receiver.py" "$T/fake.seen" > "$T/fake.port" 2> "$T/fake.err" &
fake_pid=$!
BW_PIDS="$BW_PIDS $fake_pid"
wait_for 10 test -s "$T/fake.port" || fail "the fake receiver did not start"
FAKE=http://127.0.0.1:$(cat "$T/fake.port")/api/v1/write
# the bearer token as a systemd credential (LoadCredential=)
mkdir -p "$T/creds"
printf 'tok-%s\n' $$ > "$T/creds/rw-token"
: > "$T/daemon.log"
CREDENTIALS_DIRECTORY="$T/creds" start_daemon "$FAKE" "bearer_token_file = rw-token"
wait_runs 4
sleep 1
stop_daemon
n=$(wc -l < "$T/fake.seen")
refused=$(grep -c "refused a run: HTTP 400: out of bounds: sample too old" "$T/daemon.log")
[ "$refused" = 1 ] || fail "phase 5: the refusal logged $refused times, want once"
grep "refused a run" "$T/daemon.log" | grep -q "END-OF-BODY" && fail "phase 5: the whole answer was logged"
[ "$n" -ge 4 ] || fail "phase 5: the fake got $n requests for 4+ runs"
[ "$(selfstat benchwatch_remote_write_dropped_total)" -ge "$((n - 1))" ] ||
        fail "phase 5: dropped_total $(selfstat benchwatch_remote_write_dropped_total), $n refused"
# one request per run: never retried
made=$(grep -c "remote_write: probe 'c': " "$T/daemon.log")
[ "$n" = "$made" ] || fail "phase 5: $n requests for $made runs"
spool_empty || fail "phase 5: refused runs left in the spool"
grep -q "^snappy 0.1.0 benchwatch/[0-9.]* application/x-protobuf Bearer tok-$$\$" "$T/fake.seen" ||
        fail "phase 5: headers: $(head -1 "$T/fake.seen")"
grep -q "tok-$$" "$T/daemon.log" "$T/bw.prom" && fail "phase 5: the token shows in the log or textfile"
echo "5 refused: $n runs, each sent once, refusal logged once"

# 6. A receiver away and a tiny spool: the bound holds, drops are counted
stop_pid "$fake_pid"
DEAD=http://127.0.0.1:$(free_port)/api/v1/write
bound=$((run_bytes * 5 / 2))
start_daemon "$DEAD" "spool_max_bytes = $bound"
wait_runs 6
stop_daemon
bytes=$(find "$T/spool" -name '*.rw' -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }')
[ "$bytes" -le "$bound" ] || fail "phase 6: spool holds $bytes bytes, bound $bound"
[ "$(spooled)" -ge 1 ] || fail "phase 6: nothing spooled"
dropped=$(selfstat benchwatch_remote_write_dropped_total)
[ "${dropped:-0}" -gt 0 ] || fail "phase 6: dropped_total is '${dropped:-}' with a full spool"
[ "$(selfstat benchwatch_remote_write_spool_bytes)" -le "$bound" ] || fail "phase 6: spool_bytes gauge above the bound"
echo "6 tiny spool: $bytes bytes in $(spooled) file(s) (bound $bound, a run $run_bytes), dropped_total $dropped"
grep -q "spool '$T/spool' full" "$T/daemon.log" || fail "phase 6: the full spool is not logged"
echo "remote write: all phases passed"
