#!/bin/bash
# bench/seed-proxy.sh — the first seed's experiment, again: `ab -i -c 500
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
# (tests/integration/http_servers.sh says which and why).
#
# Usage: bench/seed-proxy.sh [ROUNDS, default 3]
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
        command -v "$t" >/dev/null || { echo "bench/seed-proxy.sh: needs $t" >&2; exit 1; }
done
"$BENCHWATCH" plugins http >/dev/null 2>&1 ||
        { echo "bench/seed-proxy.sh: '$BENCHWATCH' has no http plugin (set BENCHWATCH, BENCHWATCH_PLUGIN_DIR)" >&2; exit 1; }
# 500 clients, each proxy doubling the sockets: more descriptors than the
# usual 1024
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"
. "$here/../tests/integration/http_servers.sh"
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

python3 - "$work" "$rounds" $HTTP_TOPOLOGIES <<'EOF'
import re, statistics as st, sys
work, rounds, topos = sys.argv[1], int(sys.argv[2]), [t.split(":")[0] for t in sys.argv[3:]]
lines = [
    ("Concurrency Level", r"Concurrency Level:\s+(\d+)", ""),
    ("Complete requests", r"Complete requests:\s+(\d+)", ""),
    ("Failed requests", r"Failed requests:\s+(\d+)", ""),
    ("Total transferred", r"Total transferred:\s+(\d+) bytes", "bytes"),
    ("Requests per second", r"Requests per second:\s+([\d.]+)", "[#/sec] (mean)"),
    ("Time per request", r"Time per request:\s+([\d.]+) \[ms\] \(mean\)", "[ms] (mean)"),
    ("Time per request", r"Time per request:\s+([\d.]+) \[ms\] \(mean, across", "[ms] (mean, across all concurrent requests)"),
    ("Transfer rate", r"Transfer rate:\s+([\d.]+)", "[Kbytes/sec] received"),
]
def figures(tool, topo, r):
    text = open("%s/%s.%s.%d" % (work, tool, topo, r)).read()
    out = []
    for _, rx, _ in lines:
        m = re.search(rx, text)
        out.append(float(m.group(1)) if m else float("nan"))
    return out
ok = True
rank = {"ab": {}, "bw": {}}
for topo in topos:
    ab = [figures("ab", topo, r) for r in range(1, rounds + 1)]
    bw = [figures("bw", topo, r) for r in range(1, rounds + 1)]
    if any(x != x for row in ab + bw for x in row):
        bad = [t for t, rows in (("ab", ab), ("benchwatch", bw)) if any(x != x for r in rows for x in r)]
        print("\n== %s: no figures from %s (see %s/{ab,bw}.%s.*)" % (topo, " and ".join(bad), work, topo))
        ok = False
        continue
    abm = [st.median(col) for col in zip(*ab)]
    bwm = [st.median(col) for col in zip(*bw)]
    paired = st.median(b[4] / a[4] for a, b in zip(ab, bw))
    print("\n== %s (median of %d rounds)" % (topo, rounds))
    print("%-24s %14s %14s %7s" % ("", "ab", "benchwatch", "ratio"))
    for (label, _, unit), a, b in zip(lines, abm, bwm):
        ratio = "%7.3f" % (b / a) if a else "      -"
        if label == "Requests per second":
            ratio = "%7.3f" % paired
        print("%-24s %14.2f %14.2f %s %s" % (label + ":", a, b, ratio, unit))
    print("requests/s per round: ab %s, benchwatch %s" % (
        "/".join("%.0f" % x[4] for x in ab), "/".join("%.0f" % x[4] for x in bw)))
    rank["ab"][topo], rank["bw"][topo] = abm[4], bwm[4]
    if paired < 1:
        print("BELOW TARGET: benchwatch's requests/s %.3f x ab's" % paired)
        ok = False
    if max(x[2] for x in ab) == 0 and max(x[2] for x in bw) > 0:
        print("BELOW TARGET: benchwatch had failed requests where ab had none")
        ok = False
order = {t: sorted(rank[t], key=rank[t].get, reverse=True) for t in rank}
print("\nranking by requests/s: ab %s; benchwatch %s" % (" > ".join(order["ab"]), " > ".join(order["bw"])))
if order["ab"] != order["bw"]:
    print("NOTE: the tools rank the topologies differently (close medians swap on a noisy host)")
    ok = False
print("PASS: every target met" if ok else "some targets missed (above)")
sys.exit(0 if ok else 1)
EOF
