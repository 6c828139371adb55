#!/bin/bash
# mysql.sh — the mysql plugin against a real MariaDB started on 127.0.0.1.
#
# Proves what an operator relies on: the figures that `benchwatch run mysql`
# prints are the ones the server itself counted (SHOW GLOBAL STATUS deltas
# around a run), tables are prepared, reused and cleaned up, with the
# table_engine asked for (Aria, MyISAM and InnoDB here), and a wrong
# password, an unknown database, a server that is down or that dies mid-run
# give a clean failure rather than a hang or a crash; a server that comes
# back within reconnect_timeout costs only reconnects.  It also runs the
# plugin's fakehost test (tests/plugins/test_mysql) against the same server.
set -u

# Both parts or none: a half run that exits 0 would report the other half
# as passed.  Checked before a server is started.
if [ -z "${BENCHWATCH:-}" ] || [ ! -x "$BENCHWATCH" ]; then
        echo "SKIP: \$BENCHWATCH is not an executable (run through make check)"
        exit 77
fi
t=${top_builddir:-.}/tests/plugins/test_mysql
if [ ! -x "$t" ]; then
        echo "FAIL: $t is not built (make check builds it with the mysql plugin)"
        exit 1
fi

. "${top_srcdir:-$(dirname "$0")/../..}/tests/integration/lib/mariadb.sh"
mariadb_start || exit 77

fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }

tmp=$MARIADB_DIR/work
mkdir -p "$tmp"
conn="host=127.0.0.1 port=$MARIADB_PORT user=$MARIADB_USER password_file=$MARIADB_PWFILE database=$MARIADB_DB"

# ---- the fakehost test, against this server ------------------------------
down_port=13307; [ "$MARIADB_PORT" = 13307 ] && down_port=13306
if BW_MYSQL_HOST=127.0.0.1 BW_MYSQL_PORT=$MARIADB_PORT \
   BW_MYSQL_USER=$MARIADB_USER BW_MYSQL_PASSWORD_FILE=$MARIADB_PWFILE \
   BW_MYSQL_DATABASE=$MARIADB_DB BW_MYSQL_DOWN_PORT=$down_port \
   TMPDIR=$tmp "$t" >"$tmp/fake.log" 2>&1
then ok "tests/plugins/test_mysql"
else fail "tests/plugins/test_mysql:"; tail -n 20 "$tmp/fake.log"
fi

# ---- the CLI ----------------------------------------------------------------

# fig FILE NAME [LABEL=VALUE...]: a sample's value (a summary's count).
fig() {
        python3 - "$@" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
want = dict(a.split("=", 1) for a in sys.argv[3:])
for m in d.get("metrics", []):
    if m["name"] != sys.argv[2]:
        continue
    for s in m["samples"]:
        if all(s["labels"].get(k) == v for k, v in want.items()):
            v = s.get("value", s.get("count"))
            print(int(v) if float(v).is_integer() else v)
            sys.exit(0)
sys.exit(1)
EOF
}
# jfield FILE KEY: a top-level field of the run's JSON.
jfield() {
        python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get(sys.argv[2]))' "$1" "$2"
}

# bwrun OUT ARGS...: benchwatch run mysql ARGS --format=json > OUT; echo rc.
bwrun() {
        local out=$1; shift
        # shellcheck disable=SC2086
        "$BENCHWATCH" run mysql $conn "$@" --format=json >"$out" 2>"$out.err"
        echo $?
}

status() { mariadb_status "$1"; }
snapshot() {
        for v in Com_select Com_insert Com_update Com_delete Com_commit \
                 Com_rollback Com_begin Com_stmt_execute; do
                echo "$v $(status $v)"
        done >"$1"
}
delta() { # delta BEFORE AFTER NAME
        echo $(( $(awk -v n="$3" '$1 == n {print $2}' "$2") - \
                 $(awk -v n="$3" '$1 == n {print $2}' "$1") ))
}
expect_eq() { # what got want
        if [ "$2" = "$3" ]; then ok "$1 = $2"; else fail "$1 = $2, expected $3"; fi
}

# 1. First run prepares the tables; one thread: every count is exact.
rc=$(bwrun "$tmp/prep.json" tables=2 table_size=2000 transactions=20)
expect_eq "first run exit code" "$rc" 0
expect_eq "rows in sbtest2" "$(mariadb_sql "SELECT COUNT(*) FROM $MARIADB_DB.sbtest2")" 2000
expect_eq "sbtest1 comment" "$(mariadb_sql "SELECT TABLE_COMMENT FROM information_schema.TABLES WHERE TABLE_SCHEMA='$MARIADB_DB' AND TABLE_NAME='sbtest1'")" "benchwatch table_size=2000"

snapshot "$tmp/s0"
rc=$(bwrun "$tmp/rw1.json" tables=2 table_size=2000 duration=2s threads=1)
snapshot "$tmp/s1"
expect_eq "read_write exit code" "$rc" 0
expect_eq "success" "$(jfield "$tmp/rw1.json" success)" True
tx=$(fig "$tmp/rw1.json" benchwatch_mysql_transactions_total)
rd=$(fig "$tmp/rw1.json" benchwatch_mysql_queries_total type=read)
wr=$(fig "$tmp/rw1.json" benchwatch_mysql_queries_total type=write)
ot=$(fig "$tmp/rw1.json" benchwatch_mysql_queries_total type=other)
lat=$(fig "$tmp/rw1.json" benchwatch_mysql_latency_seconds)
echo "threads=1: $tx transactions, $rd reads, $wr writes, $ot other"
[ "${tx:-0}" -gt 50 ] || fail "only ${tx:-no} transactions in 2 s"
expect_eq "latency samples" "$lat" "$tx"
expect_eq "reads per transaction" "$((rd / tx)).$((rd % tx))" "14.0"
expect_eq "writes" "$wr" "$((tx * 4))"
expect_eq "other (BEGIN, COMMIT)" "$ot" "$((tx * 2))"
expect_eq "server Com_commit" "$(delta "$tmp/s0" "$tmp/s1" Com_commit)" "$tx"
expect_eq "server Com_select (+1 table check)" "$(delta "$tmp/s0" "$tmp/s1" Com_select)" "$((rd + 1))"
expect_eq "server Com_update" "$(delta "$tmp/s0" "$tmp/s1" Com_update)" "$((tx * 2))"
expect_eq "server Com_delete" "$(delta "$tmp/s0" "$tmp/s1" Com_delete)" "$tx"
expect_eq "server Com_insert" "$(delta "$tmp/s0" "$tmp/s1" Com_insert)" "$tx"
expect_eq "server Com_stmt_execute" "$(delta "$tmp/s0" "$tmp/s1" Com_stmt_execute)" "$((rd + wr + ot))"
tps=$(fig "$tmp/rw1.json" benchwatch_mysql_transactions_per_second)
dur=$(jfield "$tmp/rw1.json" duration)
python3 -c "import sys; t,tps,d=map(float,sys.argv[1:]); sys.exit(0 if 1.9 < t/tps < 2.2 and t/tps <= d else 1)" "$tx" "$tps" "$dur" \
        && ok "transactions_per_second = transactions / ~2 s" \
        || fail "transactions_per_second $tps does not match $tx transactions in ~2 s"

# The Unix socket instead of TCP (host and port are then ignored).
rc=$(bwrun "$tmp/sock.json" socket="$MARIADB_SOCK" port=$down_port tables=2 table_size=2000 transactions=10)
expect_eq "over the socket: exit code" "$rc" 0
expect_eq "over the socket: transactions" "$(fig "$tmp/sock.json" benchwatch_mysql_transactions_total)" 10

# 2. Eight threads on one table: 'special' ids collide, InnoDB picks
#    deadlock victims; restarts keep the books right.
snapshot "$tmp/s2"
rc=$(bwrun "$tmp/rw4.json" tables=1 table_size=2000 duration=2s threads=8)
snapshot "$tmp/s3"
expect_eq "threads=8 exit code" "$rc" 0
tx=$(fig "$tmp/rw4.json" benchwatch_mysql_transactions_total)
rd=$(fig "$tmp/rw4.json" benchwatch_mysql_queries_total type=read)
wr=$(fig "$tmp/rw4.json" benchwatch_mysql_queries_total type=write)
ot=$(fig "$tmp/rw4.json" benchwatch_mysql_queries_total type=other)
er=$(fig "$tmp/rw4.json" benchwatch_mysql_errors_total)
echo "threads=8: $tx transactions, $rd reads, $wr writes, $ot other, $er ignored errors"
expect_eq "server Com_commit" "$(delta "$tmp/s2" "$tmp/s3" Com_commit)" "$tx"
expect_eq "server Com_rollback (one per ignored error)" "$(delta "$tmp/s2" "$tmp/s3" Com_rollback)" "$er"
expect_eq "server Com_stmt_execute (failed ones too)" "$(delta "$tmp/s2" "$tmp/s3" Com_stmt_execute)" "$((rd + wr + ot + er))"
expect_eq "labels" "$(python3 -c 'import json,sys; m=json.load(open(sys.argv[1]))["metrics"][0]["samples"][0]["labels"]; print(",".join("%s=%s" % kv for kv in sorted(m.items()) if kv[0] != "probe"))' "$tmp/rw4.json")" "mix=read_write,table_engine=InnoDB,table_size=2000,tables=1,threads=8"

# 2b. Table engines (sysbench's --mysql-storage-engine): the tables are
#     created with the engine asked for, a table of another engine left by
#     an earlier run is recreated (not reused), the engine is a label, and
#     one the server lacks is a clean error listing those it offers.
engine_of() { mariadb_sql "SELECT ENGINE FROM information_schema.TABLES WHERE TABLE_SCHEMA='$MARIADB_DB' AND TABLE_NAME='sbtest1'"; }
offered=$(mariadb_sql "SELECT ENGINE FROM information_schema.ENGINES WHERE SUPPORT IN ('YES','DEFAULT')")
for e in Aria MyISAM ROCKSDB InnoDB; do
        grep -qix "$e" <<< "$offered" || { echo "(engine $e not offered by this server)"; continue; }
        rc=$(bwrun "$tmp/e-$e.json" tables=1 table_size=1000 transactions=20 table_engine=$e)
        expect_eq "engine $e: exit code" "$rc" 0
        expect_eq "engine $e: sbtest1's engine" "$(engine_of | tr a-z A-Z)" "$(tr a-z A-Z <<< "$e")"
        expect_eq "engine $e: transactions" "$(fig "$tmp/e-$e.json" benchwatch_mysql_transactions_total table_engine=$e)" 20
        expect_eq "engine $e: rows" "$(mariadb_sql "SELECT COUNT(*) FROM $MARIADB_DB.sbtest1")" 1000
done
rc=$(bwrun "$tmp/ndb.json" table_engine=ndbcluster transactions=1)
expect_eq "engine ndbcluster: exit code" "$rc" 1
grep -q "has no engine 'ndbcluster'; it offers: .*InnoDB" "$tmp/ndb.json" && grep -q "Aria" "$tmp/ndb.json" &&
        ok "engine ndbcluster: the server's engines listed" || fail "engine ndbcluster: $(cat "$tmp/ndb.json")"
rc=$(bwrun "$tmp/badengine.json" "table_engine=InnoDB;DROP" transactions=1)
expect_eq "engine name with ';': usage error" "$rc" 2
grep -q "table_engine: 'InnoDB;DROP' is not an engine name" "$tmp/badengine.json.err" && ok "engine name refused" ||
        fail "bad engine name: $(cat "$tmp/badengine.json.err")"

# 3. Clean failures.
echo wrong-password-zz9 >"$tmp/badpw"; chmod 600 "$tmp/badpw"
rc=$(bwrun "$tmp/badpw.json" password_file="$tmp/badpw" duration=1s)
expect_eq "wrong password exit code" "$rc" 1
grep -q "Access denied" "$tmp/badpw.json" && ok "wrong password: Access denied" || fail "wrong password: $(cat "$tmp/badpw.json" "$tmp/badpw.json.err")"
if grep -q -e zz9 -e "$(cat "$MARIADB_PWFILE")" "$tmp/badpw.json" "$tmp/badpw.json.err"; then fail "a password leaked into the output"; fi

rc=$(bwrun "$tmp/nodb.json" database=no_such_db duration=1s)
expect_eq "unknown database exit code" "$rc" 1
grep -q "Unknown database 'no_such_db'" "$tmp/nodb.json" && ok "unknown database" || fail "unknown database: $(cat "$tmp/nodb.json")"

rc=$(bwrun "$tmp/down.json" port=$down_port duration=1s connect_timeout=2s)
expect_eq "server down exit code" "$rc" 1
grep -q "Can't connect" "$tmp/down.json" && ok "server down" || fail "server down: $(cat "$tmp/down.json")"

# 4. The server dies mid-run and stays down: a clean failure, in time.
bwrun "$tmp/kill.json" tables=2 table_size=2000 threads=2 duration=6s reconnect_timeout=1s >"$tmp/kill.rc" &
runner=$!
sleep 1.5
mariadb_kill
start=$SECONDS
wait $runner
expect_eq "killed server exit code" "$(cat "$tmp/kill.rc")" 1
grep -q "lost the connection" "$tmp/kill.json" && ok "killed server: lost the connection" || fail "killed server: $(cat "$tmp/kill.json")"
[ $((SECONDS - start)) -le 4 ] && ok "failed within reconnect_timeout" || fail "took $((SECONDS - start)) s to fail"

# 5. The server dies and comes back: reconnects, not a failure.
mariadb_launch || { fail "cannot restart mariadbd"; exit 1; }
bwrun "$tmp/back.json" tables=2 table_size=2000 threads=2 duration=5s reconnect_timeout=20s >"$tmp/back.rc" &
runner=$!
sleep 1.5
mariadb_kill
mariadb_launch || fail "cannot restart mariadbd"
wait $runner
expect_eq "restarted server exit code" "$(cat "$tmp/back.rc")" 0
expect_eq "reconnects" "$(fig "$tmp/back.json" benchwatch_mysql_reconnects_total)" 2

# 6. The daemon: a run that fails because the server died is one failed
#    run; the daemon keeps going and succeeds again once it is back.
cat >"$tmp/bw.conf" <<EOF
[daemon]
state_dir = $tmp/state
cache_dir = $tmp/cache
splay = 0
nice = 0
duty_cycle = 1
max_load = 0
max_psi_cpu = 0
yield = no
max_psi_io = 0
max_psi_memory = 0

[probe db]
plugin = mysql
host = 127.0.0.1
port = $MARIADB_PORT
user = $MARIADB_USER
password_file = $MARIADB_PWFILE
database = $MARIADB_DB
tables = 2
table_size = 2000
duration = 500ms
reconnect_timeout = 500ms
interval = 1s
timeout = 20s

[journal]
enabled = no

[textfile]
path = $tmp/bw.prom
EOF
success_is() {
        grep -q "^benchwatch_probe_success{[^}]*probe=\"db\"[^}]*} $1\$" \
                "$tmp/bw.prom" 2>/dev/null
}
wait_success() { # VALUE SECONDS
        for _ in $(seq 1 $(($2 * 10))); do
                success_is "$1" && return 0
                sleep 0.1
        done
        return 1
}
"$BENCHWATCH" -c "$tmp/bw.conf" daemon >"$tmp/daemon.out" 2>"$tmp/daemon.err" &
daemon=$!
wait_success 1 20 && ok "daemon: probe succeeded" ||
        fail "daemon: no successful run: $(tail -n 5 "$tmp/daemon.err")"
mariadb_kill
wait_success 0 20 && ok "daemon: a run failed once the server was killed" ||
        fail "daemon: no failed run"
kill -0 $daemon 2>/dev/null && ok "daemon still running" || fail "the daemon died"
mariadb_launch || fail "cannot restart mariadbd"
wait_success 1 20 && ok "daemon: succeeded again after the restart" ||
        fail "daemon: no success after the restart"
kill -TERM $daemon
wait $daemon
expect_eq "daemon exit code after SIGTERM" "$?" 0

# 7. cleanup drops benchwatch's tables, and only those.
mariadb_sql "CREATE TABLE $MARIADB_DB.sbtest7 (id INT PRIMARY KEY)"
"$BENCHWATCH" --config "$tmp/bw.conf" cleanup db >"$tmp/cleanup.out" 2>&1
expect_eq "cleanup exit code" "$?" 0
expect_eq "cleanup's summary" "$(grep "^mysql 'db':" "$tmp/cleanup.out")" \
        "mysql 'db': cleaned up, removed 2; left alone 1 that is not its own (see above)"
expect_eq "tables left" "$(mariadb_sql "SELECT GROUP_CONCAT(TABLE_NAME) FROM information_schema.TABLES WHERE TABLE_SCHEMA='$MARIADB_DB'")" "sbtest7"

[ $fails = 0 ] || { echo "$fails check(s) failed"; exit 1; }
echo "all mysql checks passed"
