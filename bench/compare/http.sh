#!/bin/bash
# bench/compare/http.sh — benchwatch's http plugin side by side with wrk and ab on
# the same nginx and haproxy (over two squids), on 127.0.0.1.
#
# For each target, concurrency 1, 50 and 500, keep-alive on and off, the
# three clients run in turn (the order rotates every round, so drift in the
# machine's load hits all three alike) for the same time each.  Printed per
# point: requests/s of each, the ratios benchwatch/wrk and benchwatch/ab
# (the median of each round's own ratio), median and 99th percentile
# latency side by side, CPU time per request (user+system of the whole
# process tree) and the run-to-run coefficient of variation of requests/s
# (the steadiness the detector sees) of each client.  The goals: RPS >= 0.9 x wrk and >= ab
# everywhere, CPU per request <= ab's.  Where the clients are equal (at
# concurrency 1 the server's round trip sets everyone's rate) the medians
# fall either side of a goal from run to run; with 5 rounds or more a
# point misses only when benchwatch also lost in significantly many rounds
# (http_verdict.awk), otherwise it is reported as a tie.
#
# Usage: bench/compare/http.sh [SECONDS per run, default 3] [ROUNDS, default 5]
# Env:   BENCHWATCH (default: benchwatch in PATH), BENCHWATCH_PLUGIN_DIR,
#        HTTP_NGINX_WORKERS (default 1), CONCURRENCY ("1 50 500"),
#        TARGETS ("nginx haproxy"), KEEPALIVE ("yes no"), THREADS (1: client
#        threads of wrk -t and benchwatch threads=, at most the concurrency).
# Not part of `make check`: it takes minutes and its figures are for people.
set -u
secs=${1:-3}
rounds=${2:-5}
threads=${THREADS:-1} # client threads of wrk and benchwatch: one, as ab has (and the plugin's default)
here=$(cd "$(dirname "$0")" && pwd)
BENCHWATCH=${BENCHWATCH:-benchwatch}
for t in wrk ab python3 /usr/bin/time; do
        command -v "$t" >/dev/null || { echo "bench/compare/http.sh: needs $t" >&2; exit 1; }
done
"$BENCHWATCH" plugins http >/dev/null 2>&1 ||
        { echo "bench/compare/http.sh: '$BENCHWATCH' has no http plugin (set BENCHWATCH, BENCHWATCH_PLUGIN_DIR)" >&2; exit 1; }
. "$here/../../tests/integration/lib/http_servers.sh"
http_servers_start || exit 1
work=$HTTP_DIR
# benchwatch at the priority wrk and ab run at (the daemon's default is nice 10)
printf '[daemon]\nnice = 0\n' > "$work/bench.conf"

# Each runner prints "rps requests p50_ms p99_ms cpu_seconds".
cpu_of() { awk '{ printf "%.3f", $1 + $2 }' "$work/time"; }

run_bw() { # url conc ka
        /usr/bin/time -f '%U %S' -o "$work/time" "$BENCHWATCH" -c "$work/bench.conf" run http url="$1" \
            concurrency="$2" keepalive="$3" duration="${secs}s" timeout=30s \
            threads=$(( $2 < threads ? $2 : threads )) \
            --format=json > "$work/bw.json" 2> "$work/bw.err"
        python3 - "$work/bw.json" "$(cpu_of)" <<'EOF'
import json, sys
doc = json.load(open(sys.argv[1]))
m = {f["name"]: f["samples"][0] for f in doc["metrics"]}
q = m["benchwatch_http_latency_seconds"]["quantiles"]
print(m["benchwatch_http_requests_per_second"]["value"],
      m["benchwatch_http_complete_requests"]["value"],
      q["0.5"] * 1e3, q["0.99"] * 1e3, sys.argv[2])
EOF
}

run_wrk() { # url conc ka
        hdr=
        [ "$3" = yes ] || hdr="Connection: close"
        /usr/bin/time -f '%U %S' -o "$work/time" wrk -t$(( $2 < threads ? $2 : threads )) -c"$2" \
            -d"${secs}s" --timeout 30s --latency ${hdr:+-H "$hdr"} "$1" > "$work/wrk.out" 2>&1
        awk -v cpu="$(cpu_of)" '
        function ms(v) { if (v ~ /us$/) return v / 1000; if (v ~ /ms$/) return v + 0
                         if (v ~ /m$/) return v * 60000; return v * 1000 }
        /Requests\/sec:/ { rps = $2 }
        /requests in/ { n = $1 }
        $1 == "50%" { p50 = ms($2) }
        $1 == "99%" { p99 = ms($2) }
        END { print rps, n, p50, p99, cpu }' "$work/wrk.out"
}

run_ab() { # url conc ka
        /usr/bin/time -f '%U %S' -o "$work/time" ab -q -c "$2" -t "$secs" -n 3000000 \
            -s 30 $([ "$3" = yes ] && echo -k) "$1" > "$work/ab.out" 2>&1
        awk -v cpu="$(cpu_of)" '
        /^Requests per second:/ { rps = $4 }
        /^Complete requests:/ { n = $3 }
        $1 == "50%" { p50 = $2 }
        $1 == "99%" { p99 = $2 }
        END { print rps, n, p50, p99, cpu }' "$work/ab.out"
}

declare -A url=(
        [nginx]=http://127.0.0.1:$HTTP_FRONT_PORT/index.html
        [haproxy]=http://127.0.0.1:$HTTP_HAPROXY_PORT/index.html
)
tools=(bw wrk ab)
echo "benchwatch http vs wrk vs ab: ${secs}s per run, $rounds rounds, medians (ratios: of the rounds' own ratios); latency in ms; cpu in us/request"
printf '%-8s %4s %3s | %9s %9s %9s | %6s %6s | %6s %6s %6s | %7s %7s %7s | %5s %5s %5s | %5s %5s %5s | %s\n' \
        target conc ka bw_rps wrk_rps ab_rps bw/wrk bw/ab p50_bw p50_wrk p50_ab \
        p99_bw p99_wrk p99_ab cpu_bw cpu_wr cpu_ab cv_bw cv_wrk cv_ab verdict
. "$here/../lib/stats.sh"
worst=ok
ties=
for target in ${TARGETS:-nginx haproxy}; do
        for conc in ${CONCURRENCY:-1 50 500}; do
                for ka in ${KEEPALIVE:-yes no}; do
                        : > "$work/res"
                        for r in $(seq 0 $((rounds - 1))); do
                                for k in 0 1 2; do
                                        t=${tools[$(( (r + k) % 3 ))]}
                                        sleep 0.5 # let TIME_WAIT and the servers settle a little
                                        echo "$t $(run_$t "${url[$target]}" "$conc" "$ka")" >> "$work/res"
                                done
                        done
                        # fields: tool rps n p50 p99 cpu  ->  medians, cpu per request
                        for t in "${tools[@]}"; do
                                for f in 2 4 5; do
                                        eval "${t}_$f=\$(awk -v t=$t '\$1 == t { print \$$f }' \"$work/res\" | median)"
                                done
                                eval "${t}_cv=\$(awk -v t=$t '\$1 == t { print \$2 }' \"$work/res\" | cv)"
                                eval "${t}_cpu=\$(awk -v t=$t '\$1 == t && \$3 > 0 { s += \$6 / \$3 * 1e6; n++ } END { printf \"%.1f\", n ? s / n : 0 }' \"$work/res\")"
                        done
                        read -r r_wrk r_ab verdict < <(awk -v cb="$bw_cpu" -v ca="$ab_cpu" -f "$here/http_verdict.awk" "$work/res")
                        case $verdict in ok) ;; tie*) ties="$ties $target/$conc/$ka" ;; *) worst="not met" ;; esac
                        awk -v tg="$target" -v c="$conc" -v ka="$ka" -v v="$verdict" \
                            -v b="$bw_2" -v w="$wrk_2" -v a="$ab_2" -v rw="$r_wrk" -v ra="$r_ab" \
                            -v b5="$bw_4" -v w5="$wrk_4" -v a5="$ab_4" \
                            -v b9="$bw_5" -v w9="$wrk_5" -v a9="$ab_5" \
                            -v cb="$bw_cpu" -v cw="$wrk_cpu" -v ca="$ab_cpu" \
                            -v vb="$bw_cv" -v vw="$wrk_cv" -v va="$ab_cv" 'BEGIN {
                                printf "%-8s %4d %3s | %9.0f %9.0f %9.0f | %6.2f %6.2f | %6.2f %6.2f %6.0f | %7.2f %7.2f %7.0f | %5.1f %5.1f %5.1f | %4.1f%% %4.1f%% %4.1f%% | %s\n",
                                    tg, c, ka, b, w, a, rw, ra, b5, w5, a5, b9, w9, a9, cb, cw, ca, vb, vw, va, v }'
                done
        done
done
echo "targets (rps >= 0.9 x wrk and >= ab, cpu/request <= ab): $worst"
[ -z "$ties" ] || echo "short of a target by the median but not in enough rounds to tell from noise:$ties"
echo "(ab reports latency in whole ms; wrk and benchwatch ran $threads client threads, ab one)"
