#!/bin/bash
# bench/compare/http-profile.sh — where the http client's time goes, beside
# wrk's, per request: the client's context switches (each one a sleep in
# epoll_wait, and a wake-up that the server pays for when it answers), the
# client's CPU time, and the server worker's context switches and CPU time,
# from `perf stat` software events (counts, not timings: they hold on a
# busy machine where requests/s do not).
#
# nginx from tests/integration/lib/http_servers.sh (one worker), a 612-byte
# page, keep-alive, CONCURRENCY connections and one client thread each:
# benchwatch (and with BEFORE_PLUGIN_DIR, another build's plugins) and
# `wrk -t1`, in turn, ROUNDS rounds of SECONDS.
#
# Usage: bench/compare/http-profile.sh [ROUNDS, default 3] [SECONDS, default 3]
# Env:   BENCHWATCH, BENCHWATCH_PLUGIN_DIR, BEFORE_PLUGIN_DIR, CONCURRENCY (50)
set -u
rounds=${1:-3}
secs=${2:-3}
conc=${CONCURRENCY:-50}
here=$(cd "$(dirname "$0")" && pwd)
BENCHWATCH=${BENCHWATCH:-benchwatch}
for t in perf wrk pgrep; do
        command -v "$t" > /dev/null || { echo "bench/compare/http-profile.sh: needs $t" >&2; exit 1; }
done
. "$here/../../tests/integration/lib/http_servers.sh"
http_servers_start || exit 1
work=$HTTP_DIR
head -c 612 /dev/zero | tr '\0' x > "$work/www/page612.html"
url=http://127.0.0.1:$HTTP_FRONT_PORT/page612.html
worker=$(pgrep -P "$(cat "$work/front.pid")" | head -n 1)
printf '[daemon]\nnice = 0\n' > "$work/bench.conf"

# one run under perf stat, the worker counted meanwhile: NAME COMMAND...
profile() {
        local name=$1 n rps
        shift
        perf stat -x, -e context-switches,task-clock -p "$worker" -o "$work/server" &
        local pp=$!
        sleep 0.2
        perf stat -x, -e context-switches,task-clock -o "$work/client" "$@" > "$work/out" 2>&1
        kill -INT "$pp"
        wait "$pp"
        n=$(awk '/^Complete requests:/ { print $3 } / requests in / { print $1 }' "$work/out")
        rps=$(awk '/^Requests per second:/ { print $4 } /^Requests\/sec:/ { print $2 }' "$work/out")
        awk -F, -v n="$n" -v name="$name" -v rps="$rps" '
                FNR == 1 { f++ }
                /context-switches/ { cs[f] = $1 }
                /task-clock/ { tc[f] = $1 }
                END { printf "%-7s %8.0f | %9.3f %9.2f | %9.3f %9.2f\n", name, rps,
                        cs[1] / n, tc[1] * 1000 / n, cs[2] / n, tc[2] * 1000 / n }' \
                "$work/client" "$work/server"
}
bw() { # NAME PLUGIN_DIR
        BENCHWATCH_PLUGIN_DIR=$2 profile "$1" "$BENCHWATCH" -c "$work/bench.conf" run http \
                url="$url" concurrency="$conc" duration="${secs}s" keepalive=yes threads=1 \
                --nice="$(nice)"
}

echo "$(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg); concurrency $conc, ${secs} s runs," \
        "nice $(nice)"
printf '%-7s %8s | %9s %9s | %9s %9s\n' client req/s "cs/req" "cpu us/req" \
        "srv cs/req" "srv us/req"
for r in $(seq "$rounds"); do
        bw benchw "${BENCHWATCH_PLUGIN_DIR:-}"
        [ -n "${BEFORE_PLUGIN_DIR:-}" ] && bw before "$BEFORE_PLUGIN_DIR"
        profile wrk wrk -t1 -c"$conc" -d"${secs}s" "$url"
        echo "(load $(cut -d' ' -f1 /proc/loadavg))"
done
