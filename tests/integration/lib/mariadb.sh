# mariadb.sh — start a private MariaDB server for an integration test.
#
# Sourced, not run.  A test needs a real server to prove that the mysql
# plugin's figures agree with the server's own counters, so this helper
# initialises a throw-away datadir in a mktemp directory, starts Debian's
# mariadbd on 127.0.0.1:$MARIADB_PORT (default 13306) with a private socket,
# creates a password-protected user and its database (no skip-grant-tables:
# authentication is part of what is tested) and stops the server by its PID
# when the test exits.
#
#   . "$top_srcdir/tests/integration/lib/mariadb.sh"
#   mariadb_start || exit 77     # 77: skipped, and why was printed
#   mariadb_sql "SHOW GLOBAL STATUS LIKE 'Com_commit'"
#
# After mariadb_start: MARIADB_DIR, MARIADB_SOCK, MARIADB_PORT, MARIADB_PID,
# MARIADB_USER, MARIADB_DB and MARIADB_PWFILE (the user's password, in a
# file readable by root only).  The user may also use the database
# no_such_db, which does not exist: the server then answers "Unknown
# database" rather than "Access denied".  The helper installs an EXIT trap that calls
# mariadb_cleanup; a test that needs its own EXIT trap calls mariadb_cleanup
# from it.

MARIADB_PORT=${MARIADB_PORT:-13306}
MARIADB_USER=bwtest
MARIADB_DB=benchwatch
MARIADB_DIR=
MARIADB_PID=

mariadb_cleanup() {
        if [ -n "$MARIADB_PID" ] && kill -0 "$MARIADB_PID" 2>/dev/null; then
                kill -TERM "$MARIADB_PID" 2>/dev/null
                # a clean InnoDB shutdown takes a second or two
                for _ in $(seq 1 100); do
                        kill -0 "$MARIADB_PID" 2>/dev/null || break
                        sleep 0.1
                done
                kill -KILL "$MARIADB_PID" 2>/dev/null
                wait "$MARIADB_PID" 2>/dev/null
        fi
        MARIADB_PID=
        if [ -n "$MARIADB_DIR" ] && [ -d "$MARIADB_DIR" ]; then
                rm -rf "$MARIADB_DIR"
        fi
        MARIADB_DIR=
}

# SQL as the server's root user over the private socket; tab-separated
# output without column names.
mariadb_sql() {
        mariadb --no-defaults --socket="$MARIADB_SOCK" -uroot -N -B -e "$1"
}

# One global status counter, e.g. mariadb_status Com_commit.
mariadb_status() {
        mariadb_sql "SHOW GLOBAL STATUS LIKE '$1'" | cut -f2
}

mariadb_wait_ready() {
        for _ in $(seq 1 300); do
                if ! kill -0 "$MARIADB_PID" 2>/dev/null; then
                        echo "mariadbd exited during startup:" >&2
                        tail -n 20 "$MARIADB_DIR/error.log" >&2
                        return 1
                fi
                if mariadb --no-defaults --socket="$MARIADB_SOCK" -uroot \
                        -e 'SELECT 1' >/dev/null 2>&1; then
                        return 0
                fi
                sleep 0.1
        done
        echo "mariadbd not ready after 30 s" >&2
        return 1
}

# Start mariadbd (again) on the existing datadir, e.g. after mariadb_kill.
mariadb_launch() {
        mariadbd --no-defaults --user=root \
                --datadir="$MARIADB_DIR/data" \
                --socket="$MARIADB_SOCK" --port="$MARIADB_PORT" \
                --bind-address=127.0.0.1 \
                --pid-file="$MARIADB_DIR/mariadbd.pid" \
                --log-error="$MARIADB_DIR/error.log" \
                --skip-log-bin --skip-name-resolve \
                --innodb-buffer-pool-size=256M \
                --innodb-log-file-size=256M \
                --innodb-flush-log-at-trx-commit=2 \
                --max-connections=200 \
                </dev/null >/dev/null 2>&1 &
        MARIADB_PID=$!
        mariadb_wait_ready
}

# SIGKILL the server (a crash, as seen by the client).
mariadb_kill() {
        if [ -n "$MARIADB_PID" ]; then
                kill -KILL "$MARIADB_PID" 2>/dev/null
                wait "$MARIADB_PID" 2>/dev/null
                MARIADB_PID=
        fi
}

mariadb_start() {
        local install
        if ! command -v mariadbd >/dev/null 2>&1 && [ ! -x /usr/sbin/mariadbd ]; then
                echo "SKIP: mariadbd not installed (Debian: mariadb-server)"
                return 1
        fi
        PATH=$PATH:/usr/sbin
        install=$(command -v mariadb-install-db || command -v mysql_install_db)
        if [ -z "$install" ]; then
                echo "SKIP: mariadb-install-db not found"
                return 1
        fi
        if ss -ltn 2>/dev/null | grep -q "127.0.0.1:$MARIADB_PORT "; then
                echo "SKIP: 127.0.0.1:$MARIADB_PORT is already in use"
                return 1
        fi
        MARIADB_DIR=$(mktemp -d "${TMPDIR:-/tmp}/bw-mariadb.XXXXXX") || return 1
        trap mariadb_cleanup EXIT
        MARIADB_SOCK=$MARIADB_DIR/mysqld.sock
        MARIADB_PWFILE=$MARIADB_DIR/password
        if ! "$install" --no-defaults --user=root --datadir="$MARIADB_DIR/data" \
                --auth-root-authentication-method=socket \
                --skip-test-db >"$MARIADB_DIR/install.log" 2>&1; then
                echo "mariadb-install-db failed:" >&2
                tail -n 20 "$MARIADB_DIR/install.log" >&2
                return 2
        fi
        mariadb_launch || return 2
        (umask 077; head -c 18 /dev/urandom | base64 | tr -d '\n/+=' \
                >"$MARIADB_PWFILE")
        local pw
        pw=$(cat "$MARIADB_PWFILE")
        mariadb_sql "CREATE DATABASE $MARIADB_DB;
                CREATE USER '$MARIADB_USER'@'127.0.0.1' IDENTIFIED BY '$pw';
                CREATE USER '$MARIADB_USER'@'localhost' IDENTIFIED BY '$pw';
                GRANT ALL ON $MARIADB_DB.* TO '$MARIADB_USER'@'127.0.0.1';
                GRANT ALL ON $MARIADB_DB.* TO '$MARIADB_USER'@'localhost';
                GRANT ALL ON no_such_db.* TO '$MARIADB_USER'@'127.0.0.1';
                GRANT ALL ON no_such_db.* TO '$MARIADB_USER'@'localhost';" \
                || return 2
}
