#!/bin/bash
# bench/compare/client-cpu.sh — what a client costs the host it shares with
# its server: CPU a request of the client and of everything else, beside
# the requests/s it got, for benchwatch and the classic tool in turn.
#
# Why: on a host whose CPUs the client and the server share, the figure a
# client gets depends on its own CPU a request once the CPUs are full, and
# clients differ in that; with the servers on CPUs of their own the two
# should agree.  This runs the seed's row (`ab -i -c 500 -n N` through nginx
# in front of two squids, against benchwatch's HEAD at concurrency 500
# without keep-alive) and the mysql row (`sysbench oltp_read_write`, 4
# threads, against benchwatch's mysql probe, MariaDB) of bench/compare/all.sh,
# alternating, each run under /usr/bin/time (the client's user+system time)
# between two reads of /proc/stat (the whole host's busy time).  Per run:
# the rate, the client's CPU a request (or transaction), the rest of the
# host's ("server": nginx, squids or MariaDB, and the kernel's softirqs), and
# how busy the host's CPUs were.  SPLIT=1 pins the servers to the first
# half of the CPUs and the clients to the other half (bench/lib/split.sh,
# as all.sh does by default).
#
# Usage: bench/compare/client-cpu.sh [ROUNDS, default 4]
# Env:   BENCHWATCH, BENCHWATCH_PLUGIN_DIR, ROWS ("seed mysql"), SPLIT=1,
#        SEED_REQUESTS (20000), SECS (3: the mysql runs' length)
# Run it under `flock -o /tmp/bw-measure.lock`; not part of `make check`.
set -u
here=$(cd "$(dirname "$0")" && pwd)
rounds=${1:-4}
BW=${BENCHWATCH:-benchwatch}
ROWS=${ROWS:-seed mysql}
N=${SEED_REQUESTS:-20000}
SECS=${SECS:-3}
for t in /usr/bin/time python3 taskset; do
        command -v "$t" > /dev/null || { echo "bench/compare/client-cpu.sh: needs $t" >&2; exit 1; }
done
"$BW" plugins > /dev/null 2>&1 ||
        { echo "bench/compare/client-cpu.sh: '$BW' does not run (set BENCHWATCH, BENCHWATCH_PLUGIN_DIR)" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/bw-client-cpu.XXXXXX") || exit 1
cleanup() {
        declare -F http_servers_stop > /dev/null && http_servers_stop
        declare -F mariadb_cleanup > /dev/null && mariadb_cleanup
        rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
printf '[daemon]\nnice = 0\n' > "$work/nice0.conf"
. "$here/../lib/split.sh"
PIN=() SERVER_CPUS=
if [ -n "${SPLIT:-}" ]; then
        split_cpus || { echo "bench/compare/client-cpu.sh: SPLIT needs 2 CPUs and taskset" >&2; exit 1; }
        PIN=(taskset -c "$CLIENT_CPUS")
fi
busy() { awk '/^cpu /{ print $2+$3+$4+$7+$8, $2+$3+$4+$5+$6+$7+$8+$9 }' /proc/stat; }

# one run: NAME UNIT COUNT-OF-EVENTS-OR-EMPTY RATE-PATTERN COMMAND...
one() {
        local name=$1 unit=$2 n=$3 pat=$4 b0 t0 b1 t1 rate
        shift 4
        read -r b0 t0 < <(busy)
        "${PIN[@]}" /usr/bin/time -f '%U %S' -o "$work/time" "$@" > "$work/out" 2>&1
        local rc=$?
        read -r b1 t1 < <(busy)
        rate=$(sed -n "s/$pat/\\1/p" "$work/out" | head -n 1)
        if [ "$rc" != 0 ] || [ -z "$rate" ]; then
                echo "  $name failed ($rc): $(tail -n 3 "$work/out")"
                return
        fi
        python3 - "$name" "$unit" "$rate" "${n:-}" "$SECS" "$b0" "$t0" "$b1" "$t1" \
                $(tail -n 1 "$work/time") << 'EOF'
import sys
name, unit, rate, n, secs = sys.argv[1:6]
b0, t0, b1, t1, u, s = map(float, sys.argv[6:12])
rate = float(rate)
n = float(n) if n else rate * float(secs)
hz = 100.0  # USER_HZ of /proc/stat
host, total = (b1 - b0) / hz, (t1 - t0) / hz
print("  %-10s %9.1f %s/s  client %7.1f us/%s  server %7.1f us/%s  host CPUs %3.0f%% busy"
      % (name, rate, unit, (u + s) / n * 1e6, unit, (host - u - s) / n * 1e6, unit,
         100 * host / total))
EOF
}

where="servers and clients share the CPUs"
[ -z "${SPLIT:-}" ] || where="servers on CPUs $SERVER_CPUS, clients on CPUs $CLIENT_CPUS"
echo "$(date '+%F %H:%M'), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg); $where"
if [[ " $ROWS " == *" seed "* ]]; then
        . "$here/../../tests/integration/lib/http_servers.sh"
        if http_servers_start > "$work/http.log" 2>&1; then
                trap cleanup EXIT # the servers' helpers set their own
                pin_server $HTTP_PIDS
                url=http://127.0.0.1:$HTTP_LB_PORT/index.html
                ab -q -i -c 50 -n 2000 "$url" > /dev/null 2>&1 # the squids' caches
                echo "seed: ab -i -c 500 -n $N through nginx and two squids"
                for i in $(seq "$rounds"); do
                        one ab req "$N" '^Requests per second: *\([0-9.]*\).*' \
                                ab -i -q -s 30 -c 500 -n "$N" "$url"
                        one benchwatch req "$N" '^Requests per second: *\([0-9.]*\).*' \
                                "$BW" -c "$work/nice0.conf" run http url="$url" method=HEAD \
                                concurrency=500 requests="$N" keepalive=no timeout=30s
                done
                http_servers_stop
        else
                echo "seed: not run: nginx and squid did not start ($(tail -n 1 "$work/http.log"))"
        fi
fi
if [[ " $ROWS " == *" mysql "* ]]; then
        . "$here/../../tests/integration/lib/mariadb.sh"
        if mariadb_start > "$work/mariadb.log" 2>&1; then
                trap cleanup EXIT
                pin_server "$MARIADB_PID"
                args=(host=127.0.0.1 port="$MARIADB_PORT" user="$MARIADB_USER"
                      password_file="$MARIADB_PWFILE" database="$MARIADB_DB"
                      tables=4 table_size=10000 threads=4)
                "$BW" -c "$work/nice0.conf" run mysql "${args[@]}" transactions=1 > /dev/null 2>&1
                echo "mysql: sysbench oltp_read_write, 4 threads, 4 tables of 10000 rows, $SECS-s runs"
                for i in $(seq "$rounds"); do
                        one sysbench tx "" '.*transactions: *[0-9]* *(\([0-9.]*\) per sec.*' \
                                sysbench /usr/share/sysbench/oltp_read_write.lua --db-driver=mysql \
                                --mysql-host=127.0.0.1 --mysql-port="$MARIADB_PORT" \
                                --mysql-user="$MARIADB_USER" --mysql-password="$(cat "$MARIADB_PWFILE")" \
                                --mysql-db="$MARIADB_DB" --tables=4 --table-size=10000 --threads=4 \
                                --time="$SECS" run
                        one benchwatch tx "" '.*transactions_per_second[^0-9]*\([0-9.]*\).*' \
                                "$BW" -c "$work/nice0.conf" run mysql "${args[@]}" duration="${SECS}s"
                done
        else
                echo "mysql: not run: MariaDB did not start ($(tail -n 1 "$work/mariadb.log"))"
        fi
fi
