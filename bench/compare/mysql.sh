#!/bin/bash
# bench/compare/mysql.sh — benchwatch's mysql probe next to sysbench oltp_read_write.
#
# The mysql plugin claims to measure what `sysbench oltp_read_write` measures,
# as fast as sysbench does.  This starts a private MariaDB (the test
# harness, 127.0.0.1:13306), lets benchwatch prepare the sbtest tables, then
# runs both tools on those same tables with the same table count, table size
# and threads, interleaved round by round (the order alternates, so drift in
# the server hurts both alike), and prints the median TPS and QPS of each,
# their ratios, and the client CPU each tool spent per transaction.
# Target: benchwatch TPS >= 0.95 x sysbench's at every point, judged on
# "paired": the median over rounds of benchwatch/sysbench within a round
# (two back-to-back runs share the host's outside load; on a busy host the
# ratio of medians drifts with that load).
#
# Each table engine of ENGINES in turn: benchwatch prepares the tables
# with table_engine=E (sysbench's --mysql-storage-engine=E), and both tools
# run on them.
#
# Usage: bench/compare/mysql.sh          (from a build directory, or set BENCHWATCH)
# Environment: THREADS="1 4 16" ROUNDS=7 DURATION=5 TABLES=4
#              TABLE_SIZE=10000 MIX=read_write (read_only, point_select)
#              ENGINES="InnoDB Aria" (MyISAM, ROCKSDB where installed)
#              MIX_NONTRX=read_only: the mix on engines without transactions
#              (Aria, MyISAM): there read_write's DELETE + INSERT of one id by
#              two threads collides (error 1062, duplicate key), which
#              sysbench does not ignore either: both tools stop on it.
set -u
here=$(cd "$(dirname "$0")" && pwd)
srcdir=${top_srcdir:-$here/../..}
BENCHWATCH=${BENCHWATCH:-$PWD/benchwatch}
export BENCHWATCH_PLUGIN_DIR=${BENCHWATCH_PLUGIN_DIR:-$(dirname "$BENCHWATCH")/plugins/.libs}
THREADS=${THREADS:-1 4 16}
ROUNDS=${ROUNDS:-7}
DURATION=${DURATION:-5}
TABLES=${TABLES:-4}
TABLE_SIZE=${TABLE_SIZE:-10000}
MIX=${MIX:-read_write}
ENGINES=${ENGINES:-InnoDB Aria}
MIX_NONTRX=${MIX_NONTRX:-read_only}
mix_for() { case $1 in [Ii]nno[Dd][Bb]|[Rr]ocks[Dd][Bb]|ROCKSDB) echo "$MIX" ;; *) echo "$MIX_NONTRX" ;; esac; }

[ -x "$BENCHWATCH" ] || { echo "no benchwatch at $BENCHWATCH (run from the build dir or set BENCHWATCH)" >&2; exit 2; }
command -v sysbench >/dev/null || { echo "sysbench is not installed" >&2; exit 2; }
. "$srcdir/tests/integration/lib/mariadb.sh"
mariadb_start || exit 2
out=$MARIADB_DIR/bench
mkdir -p "$out"

# `benchwatch run` runs probes at the daemon's niceness (default 10); on a
# busy host that alone would lose to sysbench at nice 0, so both run at 0.
printf '[daemon]\nnice = 0\n' >"$out/bench.conf"
BW="$BENCHWATCH --config $out/bench.conf"

common="tables=$TABLES table_size=$TABLE_SIZE"
bw_args="host=127.0.0.1 port=$MARIADB_PORT user=$MARIADB_USER password_file=$MARIADB_PWFILE database=$MARIADB_DB $common"
# sysbench only takes the password on its command line; this server and its
# password live as long as this script.
sb_args="--db-driver=mysql --mysql-host=127.0.0.1 --mysql-port=$MARIADB_PORT
  --mysql-user=$MARIADB_USER --mysql-password=$(cat "$MARIADB_PWFILE")
  --mysql-db=$MARIADB_DB --tables=$TABLES --table-size=$TABLE_SIZE"

# run_bw THREADS FILE / run_sb THREADS FILE: one timed run; FILE gets
# "tps qps cpu_seconds_per_transaction" (user + system CPU of the client,
# from bash's time).
TIMEFORMAT='%U %S'
run_bw() {
        # shellcheck disable=SC2086
        { time $BW run mysql $bw_args threads="$1" duration="$DURATION" \
                --format=json >"$2.json" 2>"$2.err"; } 2>"$2.time" ||
                { echo "benchwatch failed:" >&2; cat "$2.json" "$2.err" >&2; exit 1; }
        python3 - "$2.json" "$2.time" >"$2" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
v = {}
for m in d["metrics"]:
    for s in m["samples"]:
        v[(m["name"], s["labels"].get("type"))] = s.get("value")
tps = v[("benchwatch_mysql_transactions_per_second", None)]
qps = sum(v[("benchwatch_mysql_queries_per_second", t)] for t in ("read", "write", "other"))
tx = v[("benchwatch_mysql_transactions_total", None)]
cpu = sum(map(float, open(sys.argv[2]).read().split()[-2:]))
print(tps, qps, cpu / tx)
EOF
}

run_sb() {
        # shellcheck disable=SC2086
        { time sysbench "$sb_script" $sb_args --threads="$1" \
                --time="$DURATION" run >"$2.txt" 2>&1; } 2>"$2.time" ||
                { echo "sysbench failed:" >&2; cat "$2.txt" >&2; exit 1; }
        awk -v cpu="$(awk '{print $(NF-1) + $NF}' "$2.time")" '
                /transactions:/ { tx = $2; tps = substr($3, 2) }
                /queries:/ && !/performed/ { qps = substr($3, 2) }
                END { print tps, qps, cpu / tx }' "$2.txt" >"$2"
}

echo "MariaDB $(mariadb_sql 'SELECT VERSION()'), $(sysbench --version), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "engines $ENGINES, tables=$TABLES table_size=$TABLE_SIZE, $ROUNDS rounds of ${DURATION}s per tool and point"
# (the loop body is not indented: its here-documents end at column 0)
worst=
: > "$out/summary"
bw_engineless=$bw_args
for engine in $ENGINES; do
start=$SECONDS
mix=$(mix_for "$engine")
bw_args="$bw_engineless mix=$mix table_engine=$engine"
sb_script=/usr/share/sysbench/oltp_$mix.lua
$BW run mysql $bw_args transactions=1 >/dev/null 2>&1 ||
        { echo "cannot prepare the tables with engine $engine" >&2; exit 1; }
echo
echo "engine $engine, mix $mix: benchwatch prepared the tables in $((SECONDS - start)) s; warming up"
run_bw 4 "$out/warm-bw"
run_sb 4 "$out/warm-sb"

printf '%7s %10s %10s %7s %7s %10s %10s %7s %9s %9s\n' threads "sb TPS" \
        "bw TPS" ratio paired "sb QPS" "bw QPS" ratio "sb cpu/tx" "bw cpu/tx"
for t in $THREADS; do
        for r in $(seq 1 "$ROUNDS"); do
                if [ $((r % 2)) = 1 ]; then
                        run_sb "$t" "$out/sb.$t.$r"; run_bw "$t" "$out/bw.$t.$r"
                else
                        run_bw "$t" "$out/bw.$t.$r"; run_sb "$t" "$out/sb.$t.$r"
                fi
        done
        line=$(python3 - "$out" "$t" "$ROUNDS" 2>>"$out/rounds.$engine" <<'EOF'
import statistics as st, sys
out, t, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
def rows(tool):
    return [list(map(float, open("%s/%s.%s.%d" % (out, tool, t, r)).read().split()))
            for r in range(1, rounds + 1)]
sbr, bwr = rows("sb"), rows("bw")
sb = [st.median(c) for c in zip(*sbr)]
bw = [st.median(c) for c in zip(*bwr)]
# Each round's two runs ran back to back, under the same outside load:
# the median of the per-round ratios is the verdict's figure.
paired = st.median(b[0] / s[0] for s, b in zip(sbr, bwr))
print("%7s %10.1f %10.1f %7.3f %7.3f %10.1f %10.1f %7.3f %8.2fms %8.2fms" % (
    t, sb[0], bw[0], bw[0] / sb[0], paired, sb[1], bw[1], bw[1] / sb[1],
    sb[2] * 1e3, bw[2] * 1e3))
sys.stderr.write("%7s rounds: sysbench TPS %s, benchwatch TPS %s\n" % (
    t, "/".join("%.0f" % r[0] for r in sbr), "/".join("%.0f" % r[0] for r in bwr)))
EOF
)
        echo "$line"
        echo "$engine $line" >> "$out/summary"
        ratio=$(echo "$line" | awk '{print $5}')
        worst=$(python3 -c "import sys; a=sys.argv[1]; print(min(float(a), float(sys.argv[2])) if a else sys.argv[2])" "$worst" "$ratio")
done
echo
cat "$out/rounds.$engine"
done
echo
echo "engine  threads: benchwatch TPS / sysbench TPS (paired median)"
awk '{printf "%-7s %8s: %s\n", $1, $2, $6}' "$out/summary"
if python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) >= 0.95 else 1)" "$worst"; then
        echo "PASS: benchwatch TPS >= 0.95 x sysbench's at every point (worst ratio $worst)"
else
        echo "BELOW TARGET: worst TPS ratio $worst < 0.95"
        exit 1
fi
