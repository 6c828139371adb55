#!/bin/bash
# lab/fleet/fleet-sim.sh — the cohort rules at fleet scale, on real receivers:
# 1,000 and 10,000 simulated hosts remote-written into Prometheus and into
# VictoriaMetrics, the shipped rules evaluated by Prometheus and by vmalert.
#
# 1. Record: a real `benchwatch daemon` runs the built-in configuration's
#    probes (cpu, threads, memory, memory-latency, disk; same parameters,
#    1-second intervals, references pinned after 4 runs so the textfile has
#    every series a settled host sends) for RECORD seconds; its textfile
#    gives each host's series and labels, its history files the run-to-run
#    noise of the runs it counted (lab/fleet/fleetsim/fleetsim.c says how).
# 2. For each size and receiver, lab/fleet/fleetsim/fleetsim.c, linked against
#    the daemon's own remote-write encoder and HTTP client, sends the runs
#    of every host, one request per run as the daemon does, from one
#    sender.  Hosts have one of four CPU models and one of three disk
#    models; 1% have disks 15% slower (DISK_SLOW), 1% the CPU of the next
#    slower model while labelled as their own.
# 3. Time runs SPEEDUP (10) times faster than on a real fleet, everywhere
#    at once: the probes' built-in intervals (10 to 30 min), every `for:`
#    and every range ([24h]) of the rules (30m becomes 3 min, a day 2.4
#    hours), the receivers' lookback (the README's 1h for remote-written
#    figures becomes 6 min), the rules' evaluation interval (EVAL, 10 s: 100
#    s on a real fleet, whose probes run every 10 to 30 minutes).  So an
#    alert needs what it needs on a real fleet (BenchwatchThroughputBelowCohort:
#    a day of runs, then 30 minutes below), in minutes.  First the past:
#    HISTORY hours (24: the cohort's day of runs), of which the last FULL
#    seconds (1800: every probe runs once) carry every series of every run,
#    one request per run, sent as fast as the receiver takes them (the
#    "backfill": the ingest rate), and the hours before only the figures
#    the rules read over their day, many runs per request ("thin":
#    fleetsim.c says why); then LIVE seconds (360) of runs sent each at its
#    own time, while the rules are evaluated: they start only then (a
#    record written at now would make Prometheus refuse the past as out
#    of bounds).  vmalert's chain of recording rules takes one evaluation a
#    link (six) to reach the alerts, whose `for` is then 180 s; Prometheus
#    evaluates a group's rules in one go.  At the end: precision and recall of the
#    cohort alerts against the injected hosts and every other alert that
#    fired (lab/fleet/fleetsim/score.py), the rule groups' evaluation time, the
#    dashboard's queries' time (lab/fleet/fleetsim/queries.py), the series held
#    and the receivers' peak RSS.  A receiver whose RSS passes MAX_RSS_MB
#    has its sender stopped there: the figures say how far it went.
#
#   flock /tmp/bw-measure.lock lab/fleet/fleet-sim.sh
#   env: SIZES ("1000 10000"), ENGINES ("prometheus victoria"), SPEEDUP
#   (10), HISTORY (24 h), FULL (1800 s), LIVE (360 s), EVAL (10s), RECORD
#   (420 s: about 25 counted runs of each probe), DISK_SLOW (0.85),
#   MAX_RSS_MB (14336: the queries after a stop need room below the VM's
#   24 GiB),
#   SEED (1), KEEP=1 keeps the work directory, REC_DIR (reuse a kept
#   recording: its rec/ directory), BENCHWATCH,
#   BENCHWATCH_PLUGIN_DIR, top_builddir (the built tree: fleetsim links its
#   daemon/libbwcore.la).  Needs prometheus, victoria-metrics, vmalert,
#   python3, curl (tools/install-deps).  Not part of `make check`.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
build=$(cd "${top_builddir:-$src}" && pwd)
BENCHWATCH=${BENCHWATCH:-$build/benchwatch}
export BENCHWATCH_PLUGIN_DIR=${BENCHWATCH_PLUGIN_DIR:-$build/plugins/.libs}
SIZES=${SIZES:-1000 10000}
ENGINES=${ENGINES:-prometheus victoria}
SPEEDUP=${SPEEDUP:-10}
HISTORY=${HISTORY:-24}
FULL=${FULL:-1800}
LIVE=${LIVE:-360}
EVAL=${EVAL:-10s}
RECORD=${RECORD:-420}
DISK_SLOW=${DISK_SLOW:-0.85}
MAX_RSS_MB=${MAX_RSS_MB:-14336}
SEED=${SEED:-1}
HOUR=$((3600 / SPEEDUP))
for c in prometheus victoria-metrics vmalert python3 curl; do
        command -v $c > /dev/null || { echo "fleet-sim: $c not installed (tools/install-deps)" >&2; exit 3; }
done
[ -x "$BENCHWATCH" ] && [ -f "$build/daemon/libbwcore.la" ] ||
        { echo "fleet-sim: build the tree first ($build)" >&2; exit 3; }

tmp=$(mktemp -d /tmp/fleet-sim.XXXXXX)
pids=""
cleanup() {
        local p
        for p in $pids; do kill "$p" 2> /dev/null && wait "$p" 2> /dev/null || true; done
        [ -n "${KEEP:-}" ] && echo "kept $tmp" || rm -rf "$tmp"
}
trap cleanup EXIT
stop() { kill "$1" 2> /dev/null || true; wait "$1" 2> /dev/null || true; }
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
wait_url() { # URL PID
        for _ in $(seq 300); do
                curl -fs -o /dev/null "$1" && return 0
                kill -0 "$2" 2> /dev/null || break
                sleep 0.2
        done
        echo "fleet-sim: $1 did not come up" >&2
        return 1
}
rss_mb() { awk -v k="$2:" '$1 == k { printf "%d", $2 / 1024 }' "/proc/$1/status" 2> /dev/null || echo 0; }

echo "== building lab/fleet/fleetsim/fleetsim.c against $build/daemon/libbwcore.la"
"$build/libtool" --mode=link --quiet ${CC:-cc} -O2 -Wall -Wextra -I"$src/daemon" \
        -I"$build/daemon" -o "$tmp/fleetsim" "$here/fleetsim/fleetsim.c" "$build/daemon/libbwcore.la" -lm

record() {
        echo "== recording $RECORD s of a real daemon (built-in probes, 1 s intervals)"
        mkdir -p "$rec/state" "$rec/cache"
        cat > "$rec/bw.conf" << EOF
[daemon]
state_dir = $rec/state
cache_dir = ${CACHE_DIR:-/var/tmp}/fleet-sim-cache.$$
splay = 0
interval = 1s
duty_cycle = 1
max_load = 0
max_psi_cpu = 0
max_psi_io = 0
max_psi_memory = 0
yield = no
[regression]
reference_runs = 4
[probe cpu]
plugin = cpu
duration = 2s
[probe threads]
plugin = threads
duration = 2s
[probe memory]
plugin = memory
mode = dram
duration = 2s
[probe memory-latency]
plugin = memory
mode = latency
duration = 2s
[probe disk]
plugin = disk
size = 1G
duration = 5s
[textfile]
path = $rec/bw.prom
EOF
        mkdir -p "${CACHE_DIR:-/var/tmp}/fleet-sim-cache.$$"
        timeout -s TERM "$RECORD" "$BENCHWATCH" -c "$rec/bw.conf" daemon > "$rec/daemon.log" 2>&1 || true
        rm -rf "${CACHE_DIR:-/var/tmp}/fleet-sim-cache.$$"
        grep -q '^benchwatch_baseline{' "$rec/bw.prom" ||
                echo "fleet-sim: warning: no pinned reference after $RECORD s (raise RECORD): fewer series per host" >&2
}
# REC_DIR: a recording kept from an earlier run (KEEP=1: $tmp/rec)
rec=${REC_DIR:-$tmp/rec}
[ -f "$rec/bw.prom" ] || record
grep -c '^benchwatch' "$rec/bw.prom" | sed 's/^/series in the recorded textfile: /'

# every `for:` and every range ([24h]) divided by SPEEDUP, in seconds
awk -v k="$SPEEDUP" '
        function secs(v,  u, n) {
                u = substr(v, length(v)); n = substr(v, 1, length(v) - 1)
                return int(n * (u == "d" ? 86400 : u == "h" ? 3600 : u == "m" ? 60 : 1) / k) }
        /^ +for: [0-9]+[smh]$/ { sub(/for: .*/, "for: " secs($2) "s") }
        {
                out = ""
                while (match($0, /\[[0-9]+[smhd]\]/)) {
                        out = out substr($0, 1, RSTART - 1) "[" secs(substr($0, RSTART + 1, RLENGTH - 2)) "s]"
                        $0 = substr($0, RSTART + RLENGTH)
                }
                print out $0 }' "$src/conf/benchwatch.rules.yml" > "$tmp/rules.yml"
grep -c '^ *for: ' "$tmp/rules.yml" | sed 's/^/rules with a for: /'
grep -o '\[[0-9]*s\]' "$tmp/rules.yml" | sort | uniq -c | sed 's/^/ranges in the rules: /'
summary=$tmp/summary
: > "$summary"

# The rules start once the past is sent (rules_$engine): a record written
# at now would make Prometheus refuse older samples as out of bounds.
prom_config() { # DIR RULES
        printf 'global:\n  scrape_interval: 1m\n  evaluation_interval: %s\nrule_files: [%s]\nscrape_configs: []\n' \
                "$EVAL" "$2" > "$1/prometheus.yml"
}
rules_prometheus() { # DIR PORT
        prom_config "$1" "$tmp/rules.yml"
        kill -HUP $recv_pids
}
start_prometheus() { # DIR PORT
        prom_config "$1" ""
        prometheus --config.file="$1/prometheus.yml" --storage.tsdb.path="$1/data" \
                --web.listen-address=127.0.0.1:$2 --web.enable-remote-write-receiver \
                --query.lookback-delta=${HOUR}s > "$1/server.log" 2>&1 < /dev/null &
        recv_pids=$!
        pids="$pids $!"
        wait_url "http://127.0.0.1:$2/-/ready" $!
        WRITE=http://127.0.0.1:$2/api/v1/write QUERY=http://127.0.0.1:$2
        RULES_METRICS=http://127.0.0.1:$2/metrics ALERTS=http://127.0.0.1:$2/api/v1/alerts
}
start_victoria() { # DIR PORT
        local ap
        # Not the defaults: the lookback (maxStalenessInterval, as
        # Prometheus's --query.lookback-delta); latencyOffset 1 s, not 30 s,
        # so a record vmalert writes back is read by the next rule of the
        # chain within one evaluation, not three; maxUniqueTimeseries
        # above the default 300,000, which a fleet-wide query over 10,000
        # hosts' series passes (the cohort records, the dashboard's fleet
        # rows, the count of series held).
        victoria-metrics -storageDataPath="$1/data" -httpListenAddr=127.0.0.1:$2 \
                -search.latencyOffset=1s -search.maxStalenessInterval=${HOUR}s \
                -search.maxUniqueTimeseries=10000000 \
                > "$1/server.log" 2>&1 < /dev/null &
        recv_pids=$!
        pids="$pids $!"
        wait_url "http://127.0.0.1:$2/health" $!
        vmalert_port=$(free_port)
        WRITE=http://127.0.0.1:$2/api/v1/write QUERY=http://127.0.0.1:$2
        RULES_METRICS=http://127.0.0.1:$vmalert_port/metrics
        ALERTS=http://127.0.0.1:$vmalert_port/api/v1/alerts
}
rules_victoria() { # DIR PORT
        # nothing listens at the notifier: the alerts are read from vmalert
        vmalert -rule="$tmp/rules.yml" -datasource.url=http://127.0.0.1:$2 \
                -remoteWrite.url=http://127.0.0.1:$2 -evaluationInterval=$EVAL \
                -notifier.url=http://127.0.0.1:$(free_port) \
                -httpListenAddr=127.0.0.1:$vmalert_port \
                > "$1/vmalert.log" 2>&1 < /dev/null &
        recv_pids="$recv_pids $!"
        pids="$pids $!"
        wait_url "$RULES_METRICS" $!
}

# each rule group's evaluation time, from the metrics scraped into $1
eval_times() {
        awk '
        /^prometheus_rule_group_last_duration_seconds\{/ {
                g = $0; sub(/.*;/, "", g); sub(/".*/, "", g); v[g] = v[g] " " $NF }
        /^vmalert_iteration_duration_seconds_sum\{/ {
                g = $0; sub(/.*group="/, "", g); sub(/".*/, "", g); s[g] = $NF }
        /^vmalert_iteration_duration_seconds_count\{/ {
                g = $0; sub(/.*group="/, "", g); sub(/".*/, "", g); c[g] = $NF }
        END {
                for (g in v) { n = split(v[g], a, " "); m = 0; t = 0
                        for (i = 1; i <= n; i++) { t += a[i]; if (a[i] > m) m = a[i] }
                        printf "%s mean %.3f s, max %.3f s (%d samples); ", g, t / n, m, n }
                for (g in s) if (c[g] > 0) printf "%s mean %.3f s (%d evaluations); ", g, s[g] / c[g], c[g]
        }' "$1"
}

run_one() { # ENGINE HOSTS
        local engine=$1 n=$2 dir=$tmp/$1-$2 port sender peak=0 over="" t0 rss p tick=0
        mkdir -p "$dir"
        port=$(free_port)
        echo "== $engine, $n hosts"
        start_$engine "$dir" "$port"
        t0=$SECONDS
        "$tmp/fleetsim" --textfile "$rec/bw.prom" --history "$rec/state" --hosts "$n" \
                --url "$WRITE" --window $((FULL / SPEEDUP)) \
                --thin $(((HISTORY * 3600 - FULL) / SPEEDUP)) --live "$LIVE" --speedup "$SPEEDUP" \
                --seed "$SEED" --disk-slow "$DISK_SLOW" \
                --injected "$dir/injected" > "$dir/ingest" 2> "$dir/ingest.err" &
        sender=$!
        pids="$pids $sender"
        : > "$dir/rulemetrics"
        rules=""
        while kill -0 $sender 2> /dev/null; do
                if [ -z "$rules" ] && grep -qs '^past sent' "$dir/ingest"; then
                        rules_$engine "$dir" "$port"
                        rules="started after $((SECONDS - t0)) s"
                        echo "rules $rules"
                fi
                rss=0
                for p in $recv_pids; do rss=$((rss + $(rss_mb $p VmRSS))); done
                [ $rss -gt $peak ] && peak=$rss
                if [ $rss -gt "$MAX_RSS_MB" ]; then
                        over="sender stopped at RSS ${rss} MB after $((SECONDS - t0)) s"
                        stop $sender
                        break
                fi
                tick=$((tick + 1))
                [ $((tick % 5)) = 0 ] && { curl -fs "$RULES_METRICS" | grep -E "^(prometheus_rule_group_last_duration_seconds|vmalert_iteration_duration_seconds_(sum|count))" >> "$dir/rulemetrics" || true; }
                sleep 2
        done
        wait $sender 2> /dev/null || true
        [ -n "$rules" ] || rules_$engine "$dir" "$port"
        sed -i '/^past sent/d' "$dir/ingest"
        cat "$dir/ingest" "$dir/ingest.err"
        # the series the receiver holds, whatever the lookback sees
        curl -fs "$QUERY/metrics" | grep -E '^(prometheus_tsdb_head_series|vm_new_timeseries_created_total) ' |
                tee -a "$dir/ingest" || true
        [ -n "$over" ] && echo "$engine: $over" | tee -a "$dir/ingest"
        curl -fs "$ALERTS" > "$dir/alerts.json" || echo '{"data":{"alerts":[]}}' > "$dir/alerts.json"
        curl -fs "$QUERY/api/v1/query" --data-urlencode 'query=benchwatch:throughput:cohort_ratio' > "$dir/ratios.json"
        python3 "$here/fleetsim/score.py" "$dir/injected" "$dir/alerts.json" "$dir/ratios.json" | tee "$dir/score" || true
        curl -fs "$QUERY/api/v1/query" --data-urlencode 'query=benchwatch:throughput:cohort_floor' |
                python3 -c 'import json, sys
f = {}
for r in json.load(sys.stdin)["data"]["result"]:
        f.setdefault(r["metric"].get("figure"), []).append(float(r["value"][1]))
print("cohort floors: " + "; ".join("%s %.3f-%.3f" % (k, min(v), max(v)) for k, v in sorted(f.items())))' |
                tee -a "$dir/score" || true
        echo "rule evaluation: $(eval_times "$dir/rulemetrics")" | tee "$dir/evals"
        # the slowest rules of the last evaluation (Prometheus says; vmalert 1.79 does not)
        curl -fs "${ALERTS%/alerts}/rules" | python3 -c 'import json, sys
r = [(x.get("evaluationTime", 0), x["name"]) for g in json.load(sys.stdin)["data"]["groups"] for x in g["rules"]]
r.sort(reverse=True)
print("slowest rules: " + "; ".join("%s %.3f s" % (n, t) for t, n in r[:4] if t))' | tee -a "$dir/evals" || true
        { curl -fs "$QUERY/api/v1/query" --data-urlencode 'query=count({job="benchwatch"})' |
                python3 -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print("series held (last lookback):", r[0]["value"][1] if r else 0)' ||
                echo "series held: the query failed"; } | tee "$dir/series"
        python3 "$here/fleetsim/queries.py" "$QUERY" "$src/conf/grafana-dashboard.json" host-00001 "$HOUR" | tee "$dir/queries"
        for p in $recv_pids; do
                echo "$(tr '\0' ' ' < /proc/$p/cmdline | cut -d' ' -f1): peak RSS $(rss_mb $p VmHWM) MB, at the end $(rss_mb $p VmRSS) MB"
        done | tee "$dir/rss"
        echo "data on disk: $(du -sm "$dir/data" | cut -f1) MB" | tee -a "$dir/rss"
        for p in $recv_pids; do stop $p; done
        {
                echo "## $engine, $n hosts ${over:+($over)}"
                cat "$dir/ingest" "$dir/score" "$dir/evals" "$dir/series" "$dir/queries" "$dir/rss"
        } >> "$summary"
}

for n in $SIZES; do
        for e in $ENGINES; do
                run_one "$e" "$n"
        done
done
echo
echo "==== summary (SPEEDUP $SPEEDUP; other sessions share these 2 cores: noise)"
cat "$summary"
