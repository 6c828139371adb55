/* mysql_db.c — connections and tables of the mysql plugin; see mysql_db.h.
 *
 * Kept apart from the transaction loop so that mysql.c reads as the
 * sysbench event it reproduces.  Tables carry the comment "benchwatch
 * table_size=N": that comment is how benchwatch recognises its own tables,
 * and the only ones it will fill, use or drop. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <syslog.h>
#include <unistd.h>

#include <errmsg.h>
#include <mysqld_error.h>

#include "mysql_db.h"
#include "util/secret.h"

#define COMMENT_PREFIX "benchwatch"

/* ---- small helpers ---------------------------------------------------- */

int db_errno(unsigned e)
{
        switch (e) {
        case ER_ACCESS_DENIED_ERROR: case ER_DBACCESS_DENIED_ERROR:
        case ER_TABLEACCESS_DENIED_ERROR:
                return -EACCES;
        case ER_BAD_DB_ERROR: case ER_NO_SUCH_TABLE:
                return -ENOENT;
        case CR_CONNECTION_ERROR: case CR_CONN_HOST_ERROR:
                return -ECONNREFUSED;
        case CR_UNKNOWN_HOST:
                return -EHOSTUNREACH;
        case CR_SERVER_LOST: case CR_SERVER_GONE_ERROR:
                return -ECONNRESET;
        default:
                return -EIO;
        }
}

/* Errors after which sysbench restarts the transaction (its default
 * --mysql-ignore-errors=1213,1020,1205). */
bool db_is_ignorable(unsigned e)
{
        return e == ER_LOCK_DEADLOCK || e == ER_CHECKREAD ||
               e == ER_LOCK_WAIT_TIMEOUT;
}

/* The connection is gone: reconnect (sysbench's list, plus the server's
 * own "shutting down"/"connection killed"). */
bool db_is_conn_lost(unsigned e)
{
        return e == CR_SERVER_LOST || e == CR_SERVER_GONE_ERROR ||
               e == CR_SERVER_LOST_EXTENDED || e == CR_CONNECTION_ERROR ||
               e == CR_CONN_HOST_ERROR || e == ER_SERVER_SHUTDOWN ||
               e == ER_CONNECTION_KILLED || e == ER_NET_READ_INTERRUPTED ||
               e == ER_NET_WRITE_INTERRUPTED;
}

/* ---- password --------------------------------------------------------- */

/* The first line of the password file or credential (secret.h), in the
 * plugin's own words when it cannot be read. */
int db_password_load(const char *spec, char **ret, bool *ret_world,
                     char *err)
{
        char *path = NULL;
        int r = secret_read(spec, ret, &path, ret_world);

        if (r == -EINVAL)
                snprintf(err, ERRLEN, "password_file '%s' is not a valid "
                         "credential name", spec);
        else if (r == -ENXIO) {
                snprintf(err, ERRLEN, "password_file '%s' names a systemd "
                         "credential but $CREDENTIALS_DIRECTORY is not set "
                         "(give a path with a '/' for a plain file)", spec);
                r = -ENOENT;
        } else if (r == -ENOMEM)
                snprintf(err, ERRLEN, "out of memory");
        else if (r < 0)
                snprintf(err, ERRLEN, "cannot read password file '%.300s': %s",
                         path ? path : spec, strerror(-r));
        free(path);
        return r;
}

/* ---- sessions --------------------------------------------------------- */

static const char *target(const struct db_cfg *c, char *buf, size_t size)
{
        if (*c->socket)
                snprintf(buf, size, "socket %s", c->socket);
        else
                snprintf(buf, size, "%s:%u", c->host, c->port);
        return buf;
}

int db_fail(struct db_session *s, const char *what)
{
        char t[300];
        s->err_no = mysql_errno(s->db);
        snprintf(s->err, sizeof(s->err), "%s (%s, database '%s'): %s",
                 what, target(s->cfg, t, sizeof(t)), s->cfg->db,
                 mysql_error(s->db));
        return db_errno(s->err_no);
}

void db_close(struct db_session *s)
{
        if (s->db)
                mysql_close(s->db);
        s->db = NULL;
}

static void db_options(struct db_session *s)
{
        const struct db_cfg *c = s->cfg;
        unsigned ct = c->connect_timeout, rt = 1;
        uint64_t now = now_ns();
        if (c->hard_end_ns > now)
                rt += (unsigned)((c->hard_end_ns - now) / 1000000000u);
        mysql_options(s->db, MYSQL_OPT_CONNECT_TIMEOUT, &ct);
        /* A hung server turns into a lost connection before the deadline. */
        mysql_options(s->db, MYSQL_OPT_READ_TIMEOUT, &rt);
        mysql_options(s->db, MYSQL_OPT_WRITE_TIMEOUT, &rt);
        if (*c->socket) {
                unsigned proto = MYSQL_PROTOCOL_SOCKET;
                mysql_options(s->db, MYSQL_OPT_PROTOCOL, &proto);
        }
}

int db_connect(struct db_session *s)
{
        const struct db_cfg *c = s->cfg;
        db_close(s);
        s->db = mysql_init(NULL);
        if (!s->db) {
                snprintf(s->err, sizeof(s->err), "out of memory");
                return -ENOMEM;
        }
        db_options(s);
        /* An explicit "" keeps the library from looking at $MYSQL_PWD. */
        if (!mysql_real_connect(s->db, *c->socket ? "localhost" : c->host,
                                c->user, c->password ? c->password : "",
                                c->db, *c->socket ? 0 : c->port,
                                *c->socket ? c->socket : NULL, 0))
                return db_fail(s, "cannot connect");
        return 0;
}

static int db_query(struct db_session *s, const char *sql)
{
        if (mysql_real_query(s->db, sql, strlen(sql)))
                return db_fail(s, "query failed");
        MYSQL_RES *res = mysql_store_result(s->db);
        if (res)
                mysql_free_result(res);
        else if (mysql_field_count(s->db))
                return db_fail(s, "query failed");
        return 0;
}

/* ---- tables: ownership, prepare, cleanup ------------------------------ */

enum tstate { T_MISSING, T_READY, T_STALE, T_FOREIGN };

#define FILL_ROWS 1000   /* rows per multi-row INSERT while preparing */
#define ROW_MAX 220      /* longest "(id,k,'c','pad')," */

typedef int (*table_cb)(void *ctx, unsigned num, const char *comment,
                        const char *type, const char *engine);

/* "sbtest12" -> 12; anything else (sbtest01, sbtestx) is not ours. */
static bool table_number(const char *name, unsigned *ret)
{
        unsigned n = 0;
        if (strncmp(name, "sbtest", 6))
                return false;
        name += 6;
        if (!*name || *name == '0' || strlen(name) > 6)
                return false;
        for (; *name; name++) {
                if (*name < '0' || *name > '9')
                        return false;
                n = n * 10 + (unsigned)(*name - '0');
        }
        *ret = n;
        return true;
}

/* Calls cb for every sbtest<N> table or view of the database. */
static int tables_list(struct db_session *s, table_cb cb, void *ctx)
{
        static const char q[] = "SELECT TABLE_NAME, TABLE_COMMENT, "
                "TABLE_TYPE, ENGINE FROM information_schema.TABLES WHERE "
                "TABLE_SCHEMA = DATABASE() AND TABLE_NAME LIKE 'sbtest%'";
        if (mysql_real_query(s->db, q, sizeof(q) - 1))
                return db_fail(s, "cannot list tables");
        MYSQL_RES *res = mysql_store_result(s->db);
        if (!res)
                return db_fail(s, "cannot list tables");
        MYSQL_ROW row;
        unsigned num;
        int r = 0;
        while (r == 0 && (row = mysql_fetch_row(res)))
                if (row[0] && row[1] && row[2] && table_number(row[0], &num))
                        r = cb(ctx, num, row[1], row[2], row[3] ? row[3] : "");
        mysql_free_result(res);
        return r;
}

static bool comment_is_ours(const char *comment)
{
        size_t l = strlen(COMMENT_PREFIX);
        return !strncmp(comment, COMMENT_PREFIX, l) &&
               (comment[l] == ' ' || comment[l] == '\0');
}

/* Ours and complete, with the rows and the engine wanted: ready; ours
 * otherwise: stale (rebuilt, never silently reused). */
static enum tstate classify(const char *comment, const char *type,
                            const char *engine, const struct db_cfg *c)
{
        char want[64];
        snprintf(want, sizeof(want), COMMENT_PREFIX " table_size=%lld",
                 (long long)c->table_size);
        if (strcmp(type, "BASE TABLE") || !comment_is_ours(comment))
                return T_FOREIGN;
        return strcmp(comment, want) || strcasecmp(engine, c->engine) ? T_STALE
                                                                       : T_READY;
}

struct scan {
        const struct db_cfg *cfg;
        enum tstate *st;
};

static int scan_cb(void *ctx, unsigned num, const char *comment,
                   const char *type, const char *engine)
{
        struct scan *sc = ctx;
        if (num >= 1 && num <= sc->cfg->tables)
                sc->st[num - 1] = classify(comment, type, engine, sc->cfg);
        return 0;
}

bool db_engine_name_ok(const char *e)
{
        if (!e || !*e || strlen(e) > 64)
                return false;
        for (; *e; e++)
                if (!((*e >= 'a' && *e <= 'z') || (*e >= 'A' && *e <= 'Z') ||
                      (*e >= '0' && *e <= '9') || *e == '_'))
                        return false;
        return true;
}

/* The engine must be one the server offers (SHOW ENGINES' Support YES or
 * DEFAULT); else a failure that lists those it does. */
static int engine_check(struct db_session *s, const struct bw_host *h)
{
        static const char q[] = "SELECT ENGINE FROM information_schema.ENGINES "
                "WHERE SUPPORT IN ('YES', 'DEFAULT') ORDER BY ENGINE";
        char offered[512] = "";
        size_t len = 0;
        bool found = false;
        if (mysql_real_query(s->db, q, sizeof(q) - 1))
                return h->fail(h, db_fail(s, "cannot list the server's engines"), "%s", s->err);
        MYSQL_RES *res = mysql_store_result(s->db);
        if (!res)
                return h->fail(h, db_fail(s, "cannot list the server's engines"), "%s", s->err);
        MYSQL_ROW row;
        while ((row = mysql_fetch_row(res)))
                if (row[0]) {
                        found |= !strcasecmp(row[0], s->cfg->engine);
                        if (len < sizeof(offered))
                                len += (size_t)snprintf(offered + len, sizeof(offered) - len,
                                                        "%s%s", len ? ", " : "", row[0]);
                }
        mysql_free_result(res);
        char t[300];
        if (!found)
                return h->fail(h, -EOPNOTSUPP, "table_engine: the server (%s) has no "
                               "engine '%s'; it offers: %s", target(s->cfg, t, sizeof(t)),
                               s->cfg->engine, offered);
        return 0;
}

/* A short statement naming a table, e.g. sqlf(s, "DROP TABLE sbtest%u", t). */
__attribute__((format(printf, 2, 3)))
static int sqlf(struct db_session *s, const char *fmt, ...)
{
        char q[512];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(q, sizeof(q), fmt, ap);
        va_end(ap);
        return db_query(s, q);
}

static int table_fill(struct db_session *s, unsigned t, struct sb_rng *g,
                      char *buf)
{
        const struct db_cfg *c = s->cfg;
        char cv[sizeof(C_TEMPLATE)] = C_TEMPLATE;
        char pad[sizeof(PAD_TEMPLATE)] = PAD_TEMPLATE;
        size_t size = FILL_ROWS * ROW_MAX + 128;
        for (int64_t id = 1; id <= c->table_size;) {
                if (now_ns() >= c->hard_end_ns) {
                        snprintf(s->err, sizeof(s->err), "the probe's "
                                 "timeout came first; raise it or lower "
                                 "table_size");
                        return -ETIMEDOUT;
                }
                size_t len = (size_t)snprintf(buf, size, "INSERT INTO "
                        "sbtest%u (id, k, c, pad) VALUES ", t);
                for (int n = 0; n < FILL_ROWS && id <= c->table_size;
                     n++, id++) {
                        sb_rand_str(g, C_TEMPLATE, cv);
                        sb_rand_str(g, PAD_TEMPLATE, pad);
                        len += (size_t)snprintf(buf + len, size - len,
                                "%s(%lld,%u,'%s','%s')", n ? "," : "",
                                (long long)id, sb_rand_id(g, c->rand, 1,
                                (uint32_t)c->table_size), cv, pad);
                }
                if (mysql_real_query(s->db, buf, len))
                        return db_fail(s, "cannot fill table");
        }
        return 0;
}

/* Creates sbtest<t> as sysbench's prepare does.  The table says
 * "benchwatch preparing" until it is complete, so a half-filled table left
 * by a killed run is rebuilt, never used. */
static int table_build(struct db_session *s, unsigned t, bool drop,
                       struct sb_rng *g, char *buf)
{
        int r = 0;
        if (drop)
                r = sqlf(s, "DROP TABLE sbtest%u", t);
        if (r >= 0)
                r = sqlf(s, "CREATE TABLE sbtest%u ("
                         "id INTEGER NOT NULL AUTO_INCREMENT, "
                         "k INTEGER DEFAULT '0' NOT NULL, "
                         "c CHAR(120) DEFAULT '' NOT NULL, "
                         "pad CHAR(60) DEFAULT '' NOT NULL, "
                         "PRIMARY KEY (id)) ENGINE=%s "
                         "COMMENT='" COMMENT_PREFIX " preparing'", t, s->cfg->engine);
        if (r >= 0)
                r = table_fill(s, t, g, buf);
        if (r >= 0)
                r = sqlf(s, "CREATE INDEX k_%u ON sbtest%u(k)", t, t);
        if (r >= 0)
                r = sqlf(s, "ALTER TABLE sbtest%u COMMENT='" COMMENT_PREFIX
                         " table_size=%lld'", t,
                         (long long)s->cfg->table_size);
        return r;
}

static int tables_check(const struct db_cfg *c, const enum tstate *st,
                        const struct bw_host *h)
{
        for (unsigned t = 1; t <= c->tables; t++) {
                if (st[t - 1] == T_FOREIGN)
                        return h->fail(h, -EEXIST, "table %s.sbtest%u "
                                "exists but was not created by benchwatch "
                                "(no '" COMMENT_PREFIX "' table comment); "
                                "refusing to use or drop it: give "
                                "benchwatch a database of its own", c->db, t);
                if (st[t - 1] != T_READY && !c->auto_prepare)
                        return h->fail(h, -ENOENT, "table %s.sbtest%u is "
                                "missing or has another table_size or "
                                "engine, and auto_prepare=no", c->db, t);
        }
        return 0;
}

static int tables_build(struct db_session *s, const enum tstate *st,
                        const struct bw_host *h)
{
        const struct db_cfg *c = s->cfg;
        uint64_t t0 = now_ns();
        unsigned built = 0;
        struct sb_rng g;
        char *buf = malloc(FILL_ROWS * ROW_MAX + 128);
        if (!buf)
                return h->fail(h, -ENOMEM, "out of memory");
        sb_rng_seed(&g);
        int r = 0;
        for (unsigned t = 1; t <= c->tables && r >= 0; t++) {
                if (st[t - 1] == T_READY)
                        continue;
                if (h->stopping(h))
                        r = h->fail(h, -ECANCELED, "stopped while preparing");
                else if ((r = table_build(s, t, st[t - 1] == T_STALE, &g,
                                          buf)) < 0)
                        r = h->fail(h, r, "cannot prepare table %s.sbtest%u:"
                                    " %s", c->db, t, s->err);
                else
                        built++;
        }
        free(buf);
        if (built)
                h->log(h, LOG_INFO, "prepared %u table(s) of %lld rows in "
                       "%s in %.1f s", built, (long long)c->table_size,
                       c->db, (double)(now_ns() - t0) / 1e9);
        return r;
}

/* Before building a table: its engine must be there (ready tables show
 * that it is, without a query). */
static int engine_needed(struct db_session *s, const enum tstate *st,
                         const struct bw_host *h)
{
        for (unsigned t = 1; t <= s->cfg->tables; t++)
                if (st[t - 1] != T_READY)
                        return engine_check(s, h);
        return 0;
}

/* Makes sure sbtest1..N exist, are ours, have table_size rows and the
 * engine asked for. */
int db_tables_prepare(const struct db_cfg *c, const struct bw_host *h)
{
        struct db_session s = { .cfg = c };
        enum tstate *st = calloc(c->tables, sizeof(*st));
        struct scan sc = { c, st };
        int r;
        if (!st)
                return h->fail(h, -ENOMEM, "out of memory");
        if ((r = db_connect(&s)) < 0 ||
            (r = tables_list(&s, scan_cb, &sc)) < 0)
                r = h->fail(h, r, "%s", s.err);
        else if ((r = tables_check(c, st, h)) >= 0 && (r = engine_needed(&s, st, h)) >= 0)
                r = tables_build(&s, st, h);
        db_close(&s);
        free(st);
        return r;
}

struct drop {
        struct db_session *s;
        const struct bw_host *h;
        unsigned dropped, foreign;
};

static int drop_cb(void *ctx, unsigned num, const char *comment,
                   const char *type, const char *engine)
{
        struct drop *d = ctx;
        if (strcmp(type, "BASE TABLE") || !comment_is_ours(comment)) {
                d->h->log(d->h, LOG_NOTICE, "left %s.sbtest%u alone: not "
                          "created by benchwatch", d->s->cfg->db, num);
                d->foreign++;
                return 0;
        }
        int r = sqlf(d->s, "DROP TABLE sbtest%u", num);
        if (r < 0)
                return r;
        d->dropped++;
        return 0;
}


int db_tables_drop(struct db_session *s, const struct bw_host *h,
                   unsigned *ret_dropped, unsigned *ret_foreign)
{
        struct drop d = { .s = s, .h = h };
        int r = tables_list(s, drop_cb, &d);
        if (r < 0)
                return r;
        *ret_dropped = d.dropped;
        *ret_foreign = d.foreign;
        return 0;
}
