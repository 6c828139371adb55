/* test_mysql.c — the mysql plugin against a real MariaDB, through fakehost.
 *
 * Needs a server: BW_MYSQL_HOST, BW_MYSQL_PORT, BW_MYSQL_USER,
 * BW_MYSQL_PASSWORD_FILE and BW_MYSQL_DATABASE (tests/integration/mysql.sh
 * starts one and sets them; BW_MYSQL_DOWN_PORT, default 13307, is a port
 * where nothing listens); without them the test is skipped (77).  It
 * checks the figures against what a transaction of each mix must execute
 * and against the server's own counters, ownership of the tables, the
 * systemd credential, restarts after a killed connection, and that a wrong
 * password, an unknown database and a closed port are clean failures. */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mysql.h>

#include "../fakehost.h"
#include "util/parse.h"
#include "util/timeutil.h"

extern const struct bw_plugin benchwatch_plugin;
static const struct bw_plugin *P = &benchwatch_plugin;

static const char *host, *port, *user, *pwfile, *dbname;
static char password[256];

/* The connection parameters, then the extras (which override them). */
static const char **params(const char *const *extra)
{
        static char bufs[5][512];
        static const char *list[64];
        size_t n = 0;
        snprintf(bufs[0], sizeof(bufs[0]), "host=%s", host);
        snprintf(bufs[1], sizeof(bufs[1]), "port=%s", port);
        snprintf(bufs[2], sizeof(bufs[2]), "user=%s", user);
        snprintf(bufs[3], sizeof(bufs[3]), "password_file=%s", pwfile);
        snprintf(bufs[4], sizeof(bufs[4]), "database=%s", dbname);
        for (; n < 5; n++)
                list[n] = bufs[n];
        for (size_t i = 0; extra && extra[i] && n < 63; i++)
                list[n++] = extra[i];
        list[n] = NULL;
        return list;
}

/* Runs the plugin with a NULL-terminated list of extra parameters. */
static int run(struct fakehost *fh, ...)
{
        const char *extra[32];
        size_t n = 0;
        va_list ap;
        va_start(ap, fh);
        while (n < 31 && (extra[n] = va_arg(ap, const char *)))
                n++;
        extra[n] = NULL;
        va_end(ap);
        fakehost_init(fh);
        return fakehost_run(fh, P, params(extra));
}

static int cleanup(void)
{
        struct fakehost fh;
        fakehost_init(&fh);
        int r = fakehost_cleanup(&fh, P, params(NULL));
        fakehost_done(&fh);
        return r;
}

static MYSQL *db_open(void)
{
        MYSQL *db = mysql_init(NULL);
        int64_t p = 0;
        CHECK(db && parse_int64(port, &p) == 0 && p > 0 && p < 65536);
        if (!mysql_real_connect(db, host, user, password, dbname,
                                (unsigned)p, NULL, 0)) {
                fprintf(stderr, "connect: %s\n", mysql_error(db));
                exit(1);
        }
        return db;
}

static long long q1(MYSQL *db, const char *sql)
{
        long long v = -1;
        if (mysql_query(db, sql)) {
                fprintf(stderr, "%s: %s\n", sql, mysql_error(db));
                exit(1);
        }
        MYSQL_RES *res = mysql_store_result(db);
        if (!res)
                return v;
        MYSQL_ROW row = mysql_fetch_row(res);
        if (row && row[mysql_num_fields(res) - 1])
                v = strtoll(row[mysql_num_fields(res) - 1], NULL, 10);
        mysql_free_result(res);
        return v;
}

static double val(const struct fakehost *fh, const char *name,
                  const char *labels)
{
        return fakehost_value(fh, name, labels);
}

#define CHECK_EQ(a, b) do { double a_ = (a), b_ = (b); if (a_ != b_) { \
        fprintf(stderr, "%s:%d: %s = %.17g, expected %s = %.17g\n", \
                __FILE__, __LINE__, #a, a_, #b, b_); exit(1); } } while (0)

/* ---- the cases -------------------------------------------------------- */

static void test_params(void)
{
        struct fakehost fh;
        const char *bad[] = { "mix=write_only", NULL };
        char *why = fakehost_param_error(P, bad);
        CHECK(why && strstr(why, "read_write"));
        free(why);
        CHECK(run(&fh, "duration=0", NULL) == -EINVAL);
        CHECK(strstr(fh.error, "bounded"));
        fakehost_done(&fh);
}

/* 200 read_write transactions on one thread: every statement's outcome is
 * known, so the counts are exact, and the server's counters agree. */
/* The server is on this host (127.0.0.1): the report's last line says so,
 * with the client's CPU a transaction, more than none and no more than
 * `threads` threads had in `secs` of wall time. */
static void noted_local(const struct fakehost *fh, double secs, double threads)
{
        double us = 0, tx = val(fh, "transactions_total", "");
        CHECK(fh->last_log);
        CHECK(sscanf(fh->last_log, "the server is on this host: where its CPUs "
                     "are full, this client's own CPU, %lf µs a transaction",
                     &us) == 1);
        CHECK(us > 0 && us * tx <= secs * 1e6 * threads);
}

static void test_read_write(void)
{
        struct fakehost fh;
        MYSQL *db = db_open();
        CHECK(cleanup() == 0);
        CHECK(run(&fh, "tables=2", "table_size=1000", "transactions=10",
                  NULL) == 0);
        CHECK(fh.logs && strstr(fh.logs, "prepared 2 table(s)"));
        fakehost_done(&fh);
        CHECK_EQ(q1(db, "SELECT COUNT(*) FROM sbtest1"), 1000);
        CHECK_EQ(q1(db, "SELECT COUNT(*) FROM sbtest2"), 1000);
        long long sel = q1(db, "SHOW GLOBAL STATUS LIKE 'Com_select'");
        long long com = q1(db, "SHOW GLOBAL STATUS LIKE 'Com_commit'");
        long long upd = q1(db, "SHOW GLOBAL STATUS LIKE 'Com_update'");
        long long del = q1(db, "SHOW GLOBAL STATUS LIKE 'Com_delete'");
        long long ins = q1(db, "SHOW GLOBAL STATUS LIKE 'Com_insert'");
        long long exe = q1(db, "SHOW GLOBAL STATUS LIKE 'Com_stmt_execute'");
        double t0 = now_mono();
        CHECK(run(&fh, "tables=2", "table_size=1000", "transactions=200",
                  NULL) == 0);
        /* the tables were ready: no prepare, only the local server's note */
        CHECK(fh.n_logs == 1);
        noted_local(&fh, now_mono() - t0, 1);
        CHECK_EQ(val(&fh, "transactions_total", ""), 200);
        CHECK_EQ(val(&fh, "queries_total", "type=read"), 200 * 14);
        CHECK_EQ(val(&fh, "queries_total", "type=write"), 200 * 4);
        CHECK_EQ(val(&fh, "queries_total", "type=other"), 200 * 2);
        CHECK_EQ(val(&fh, "errors_total", ""), 0);
        CHECK_EQ(val(&fh, "reconnects_total", ""), 0);
        CHECK_EQ(fakehost_find(&fh, "latency_seconds", NULL)->hist.count, 200);
        CHECK_EQ(fh.progress, 200);
        double tps = val(&fh, "transactions_per_second", "");
        double rps = val(&fh, "queries_per_second", "type=read");
        CHECK(tps > 0 && rps > 0);
        CHECK(rps / tps > 13.99 && rps / tps < 14.01);
        CHECK(fakehost_find(&fh, "latency_seconds", NULL)->value > 0);
        /* The server saw the same: +1 select for the table scan. */
        CHECK_EQ(q1(db, "SHOW GLOBAL STATUS LIKE 'Com_select'") - sel,
                 200 * 14 + 1);
        CHECK_EQ(q1(db, "SHOW GLOBAL STATUS LIKE 'Com_commit'") - com, 200);
        CHECK_EQ(q1(db, "SHOW GLOBAL STATUS LIKE 'Com_update'") - upd, 400);
        CHECK_EQ(q1(db, "SHOW GLOBAL STATUS LIKE 'Com_delete'") - del, 200);
        CHECK_EQ(q1(db, "SHOW GLOBAL STATUS LIKE 'Com_insert'") - ins, 200);
        CHECK_EQ(q1(db, "SHOW GLOBAL STATUS LIKE 'Com_stmt_execute'") - exe,
                 200 * 20);
        CHECK_EQ(q1(db, "SELECT COUNT(*) FROM sbtest1"), 1000);
        fakehost_done(&fh);
        mysql_close(db);
}

static void test_mixes(void)
{
        struct fakehost fh;
        CHECK(run(&fh, "tables=2", "table_size=1000", "transactions=100",
                  "mix=read_only", NULL) == 0);
        CHECK_EQ(val(&fh, "queries_total", "type=read"), 100 * 14);
        CHECK_EQ(val(&fh, "queries_total", "type=write"), 0);
        CHECK_EQ(val(&fh, "queries_total", "type=other"), 100 * 2);
        fakehost_done(&fh);
        CHECK(run(&fh, "tables=2", "table_size=1000", "transactions=100",
                  "mix=point_select", NULL) == 0);
        CHECK_EQ(val(&fh, "queries_total", "type=read"), 100);
        CHECK_EQ(val(&fh, "queries_total", "type=other"), 0);
        fakehost_done(&fh);
        CHECK(run(&fh, "tables=2", "table_size=1000", "transactions=50",
                  "skip_trx=yes", "point_selects=3", "range_size=10",
                  NULL) == 0);
        CHECK_EQ(val(&fh, "queries_total", "type=read"), 50 * 7);
        CHECK_EQ(val(&fh, "queries_total", "type=write"), 50 * 4);
        CHECK_EQ(val(&fh, "queries_total", "type=other"), 0);
        fakehost_done(&fh);
}

/* Several threads for a fixed time; a changed table_size rebuilds. */
static void test_threads_duration(void)
{
        struct fakehost fh;
        MYSQL *db = db_open();
        double t0 = now_mono();
        CHECK(run(&fh, "tables=2", "table_size=2000", "threads=4",
                  "duration=1.5s", NULL) == 0);
        CHECK(fh.logs && strstr(fh.logs, "prepared 2 table(s)"));
        noted_local(&fh, now_mono() - t0, 4);
        CHECK_EQ(q1(db, "SELECT COUNT(*) FROM sbtest2"), 2000);
        double tx = val(&fh, "transactions_total", "");
        double tps = val(&fh, "transactions_per_second", "");
        CHECK(tx > 0);
        /* tps is tx over the measured time, which is about 1.5 s */
        CHECK(tx / tps > 1.45 && tx / tps < 1.8);
        CHECK(val(&fh, "queries_total", "type=read") >= 14 * tx);
        fakehost_done(&fh);
        mysql_close(db);
}

static void test_ownership(void)
{
        struct fakehost fh;
        MYSQL *db = db_open();
        q1(db, "DROP TABLE IF EXISTS sbtest3");
        q1(db, "CREATE TABLE sbtest3 (id INT PRIMARY KEY, k INT, c CHAR(120),"
               " pad CHAR(60))");
        q1(db, "INSERT INTO sbtest3 VALUES (1, 1, 'mine', 'mine')");
        CHECK(run(&fh, "tables=3", "table_size=1000", "transactions=10",
                  NULL) == -EEXIST);
        CHECK(strstr(fh.error, "sbtest3") && strstr(fh.error, "refusing"));
        fakehost_done(&fh);
        CHECK(cleanup() == 0);
        CHECK_EQ(q1(db, "SELECT COUNT(*) FROM information_schema.TABLES "
                 "WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME LIKE "
                 "'sbtest%'"), 1);
        CHECK_EQ(q1(db, "SELECT COUNT(*) FROM sbtest3 WHERE c = 'mine'"), 1);
        q1(db, "DROP TABLE sbtest3");
        CHECK(run(&fh, "table_size=500", "transactions=10",
                  "auto_prepare=no", NULL) == -ENOENT);
        fakehost_done(&fh);
        mysql_close(db);
}

static void test_errors(void)
{
        struct fakehost fh;
        char bad[256];
        CHECK(run(&fh, "password_file=/nonexistent/pw", NULL) == -ENOENT);
        fakehost_done(&fh);
        snprintf(bad, sizeof(bad), "%s/wrong", getenv("TMPDIR") ?
                 getenv("TMPDIR") : "/tmp");
        FILE *f = fopen(bad, "w");
        CHECK(f && fputs("not-the-password-xyzzy\n", f) >= 0);
        fclose(f);
        char pw[300];
        snprintf(pw, sizeof(pw), "password_file=%s", bad);
        CHECK(run(&fh, pw, "transactions=1", NULL) == -EACCES);
        CHECK(strstr(fh.error, "Access denied"));
        CHECK(!strstr(fh.error, "xyzzy") && !strstr(fh.error, password));
        fakehost_done(&fh);
        unlink(bad);
        CHECK(run(&fh, "database=no_such_db", "transactions=1", NULL) ==
              -ENOENT);
        CHECK(strstr(fh.error, "no_such_db"));
        fakehost_done(&fh);
        const char *down = getenv("BW_MYSQL_DOWN_PORT");
        char dp[64];
        snprintf(dp, sizeof(dp), "port=%s", down ? down : "13307");
        CHECK(run(&fh, dp, "host=127.0.0.1", "transactions=1", NULL) ==
              -ECONNREFUSED);
        CHECK(strstr(fh.error, dp + 5));
        fakehost_done(&fh);
}

static void test_credential(void)
{
        struct fakehost fh;
        char dir[] = "/tmp/bwcred.XXXXXX", path[300];
        CHECK(mkdtemp(dir));
        snprintf(path, sizeof(path), "%s/mysql-password", dir);
        FILE *f = fopen(path, "w");
        CHECK(f && fprintf(f, "%s\n", password) > 0);
        fclose(f);
        setenv("CREDENTIALS_DIRECTORY", dir, 1);
        CHECK(run(&fh, "password_file=mysql-password", "table_size=1000",
                  "tables=2", "transactions=5", NULL) == 0);
        CHECK_EQ(val(&fh, "transactions_total", ""), 5);
        fakehost_done(&fh);
        unsetenv("CREDENTIALS_DIRECTORY");
        CHECK(run(&fh, "password_file=mysql-password", "transactions=5",
                  NULL) == -ENOENT);
        CHECK(strstr(fh.error, "CREDENTIALS_DIRECTORY"));
        fakehost_done(&fh);
        unlink(path);
        rmdir(dir);
}

/* Kills the plugin's connections mid-run: each thread reconnects once. */
static void *killer(void *arg)
{
        (void)arg;
        MYSQL *db = db_open();
        usleep(700000);
        if (mysql_query(db, "SELECT ID FROM information_schema.PROCESSLIST "
                        "WHERE ID <> CONNECTION_ID() AND USER = "
                        "SUBSTRING_INDEX(CURRENT_USER(), '@', 1)"
                        " AND COMMAND <> 'Daemon'"))
                abort();
        MYSQL_RES *res = mysql_store_result(db);
        MYSQL_ROW row;
        char q[64];
        while (res && (row = mysql_fetch_row(res))) {
                snprintf(q, sizeof(q), "KILL CONNECTION %s", row[0]);
                mysql_query(db, q);
        }
        mysql_free_result(res);
        mysql_close(db);
        return NULL;
}

static void test_reconnect(void)
{
        struct fakehost fh;
        pthread_t t;
        CHECK(pthread_create(&t, NULL, killer, NULL) == 0);
        CHECK(run(&fh, "tables=2", "table_size=1000", "threads=2",
                  "duration=2s", NULL) == 0);
        pthread_join(t, NULL);
        CHECK_EQ(val(&fh, "reconnects_total", ""), 2);
        CHECK(val(&fh, "transactions_total", "") > 0);
        fakehost_done(&fh);
}

int main(void)
{
        host = getenv("BW_MYSQL_HOST");
        port = getenv("BW_MYSQL_PORT");
        pwfile = getenv("BW_MYSQL_PASSWORD_FILE");
        user = getenv("BW_MYSQL_USER");
        dbname = getenv("BW_MYSQL_DATABASE");
        if (!host || !port || !pwfile || !user || !dbname) {
                printf("SKIP: needs a MariaDB server: BW_MYSQL_HOST, "
                       "BW_MYSQL_PORT, BW_MYSQL_USER, BW_MYSQL_PASSWORD_FILE,"
                       " BW_MYSQL_DATABASE (tests/integration/mysql.sh sets "
                       "them)\n");
                return 77;
        }
        FILE *f = fopen(pwfile, "r");
        CHECK(f && fgets(password, sizeof(password), f));
        fclose(f);
        password[strcspn(password, "\r\n")] = '\0';
        test_params();
        test_read_write();
        test_mixes();
        test_threads_duration();
        test_ownership();
        test_errors();
        test_credential();
        test_reconnect();
        CHECK(cleanup() == 0);
        printf("ok\n");
        return 0;
}
