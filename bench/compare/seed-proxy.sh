#!/bin/bash
# bench/compare/seed-proxy.sh — the first seed's experiment, again: `ab -i -c 500
# -n 100000` through three proxy topologies over two squids (nginx
# balancing them; haproxy balancing them; nginx in front of haproxy), and
# `benchwatch run http method=HEAD concurrency=500 requests=100000
# keepalive=no` on the same URLs, interleaved round by round (the order
# alternates, so drift in the machine's load hits both alike).
#
# Printed per topology: the seed's table for both tools side by side
# (Concurrency Level, Complete requests, Failed requests, Total transferred,
# Requests per second, both Time per request lines, Transfer rate), the
# median of each over the rounds and the ratio benchwatch/ab (the median of
# each round's own ratio for requests/s), then each tool's ranking of the
# topologies.  Targets: benchwatch's RPS >= ab's at every topology; failed
# requests 0 wherever ab's are 0; both tools rank the topologies alike.
#
# The servers are Debian's nginx, haproxy and squid at their shipped
# defaults but for ports, paths and what the topology needs
# (tests/integration/lib/http_servers.sh says which and why).
#
# Usage: bench/compare/seed-proxy.sh [ROUNDS, default 3]
# Env:   BENCHWATCH (default: benchwatch in PATH), BENCHWATCH_PLUGIN_DIR,
#        REQUESTS (100000), CONCURRENCY (500), HTTP_NGINX_WORKERS (1).
# Not part of `make check`: it takes minutes and its figures are for people.
set -u
rounds=${1:-3}
# (not n or c: http_servers.sh's loops use short names)
seed_requests=${REQUESTS:-100000}
seed_conc=${CONCURRENCY:-500}
here=$(cd "$(dirname "$0")" && pwd)
BENCHWATCH=${BENCHWATCH:-benchwatch}
for t in ab python3; do
        command -v "$t" >/dev/null || { echo "bench/compare/seed-proxy.sh: needs $t" >&2; exit 1; }
done
"$BENCHWATCH" plugins http >/dev/null 2>&1 ||
        { echo "bench/compare/seed-proxy.sh: '$BENCHWATCH' has no http plugin (set BENCHWATCH, BENCHWATCH_PLUGIN_DIR)" >&2; exit 1; }
# 500 clients, each proxy doubling the sockets: more descriptors than the
# usual 1024
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"
. "$here/../../tests/integration/lib/http_servers.sh"
http_servers_start || exit 1
work=$HTTP_DIR
# benchwatch at the priority ab runs at (the daemon's default is nice 10)
printf '[daemon]\nnice = 0\n' > "$work/bench.conf"

run_ab() { # URL OUT
        ab -i -c "$seed_conc" -n "$seed_requests" "$1" > "$2" 2>&1 || echo "(ab exit $?)" >> "$2"
}
run_bw() { # URL OUT
        "$BENCHWATCH" -c "$work/bench.conf" run http url="$1" method=HEAD \
            concurrency="$seed_conc" requests="$seed_requests" keepalive=no timeout=30s > "$2" 2>&1 ||
            echo "(benchwatch exit $?)" >> "$2"
}

echo "$(nginx -v 2>&1 | sed 's/.*: //'), $(haproxy -v | head -n 1 | cut -d' ' -f1-3)," \
     "$(squid -v | head -n 1), $(ab -V | head -n 1 | cut -d, -f1), $(nproc) CPUs," \
     "load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "ab -i -c $seed_conc -n $seed_requests vs benchwatch run http method=HEAD" \
     "concurrency=$seed_conc requests=$seed_requests keepalive=no, $rounds rounds"
for topo in $HTTP_TOPOLOGIES; do
        topo_name=${topo%%:*} url=http://127.0.0.1:${topo##*:}/index.html
        run_ab "$url" "$work/warm" # the squids' caches, and the page cache
        for r in $(seq 1 "$rounds"); do
                if [ $((r % 2)) = 1 ]; then
                        run_ab "$url" "$work/ab.$topo_name.$r"; run_bw "$url" "$work/bw.$topo_name.$r"
                else
                        run_bw "$url" "$work/bw.$topo_name.$r"; run_ab "$url" "$work/ab.$topo_name.$r"
                fi
        done
done

python3 "$here/seed-proxy.py" "$work" "$rounds" $HTTP_TOPOLOGIES
