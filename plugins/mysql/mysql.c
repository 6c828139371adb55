/* mysql.c — OLTP transactions per second, as sysbench oltp_read_write.
 *
 * A database that got slower after a kernel, firmware or storage change is
 * one of the regressions operators most need to catch, and most of them
 * already have years of `sysbench oltp_read_write` figures.  This plugin
 * replays that workload faithfully so its figures line up with those: the
 * same sbtest<N> tables, the same statements as server-side prepared
 * statements, the same 'special' id distribution, one connection per thread,
 * and the same accounting (a statement returning rows is a read, one that
 * changed rows a write, anything else "other"; deadlocks and lock wait
 * timeouts restart the transaction and count as ignored errors; a lost
 * connection is re-established and counted as a reconnect).
 *
 * The tables live in benchwatch's own database and carry the table comment
 * "benchwatch table_size=N": run creates missing ones (auto_prepare),
 * recreates its own when table_size changed, and refuses to touch any
 * sbtest<N> table it did not create; cleanup drops only its own.  The
 * password comes from a file or a systemd credential and only ever goes to
 * the client library. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>

#include "common/localpeer.h"
#include "mysql_db.h"
#include "util/hist.h"
#include "util/secret.h"
#include "util/timeutil.h"

/* ---- parameters ------------------------------------------------------- */

enum {
        P_HOST, P_PORT, P_SOCKET, P_USER, P_PASSWORD_FILE, P_DATABASE,
        P_TABLES, P_TABLE_SIZE, P_THREADS, P_DURATION, P_TRANSACTIONS,
        P_MIX, P_RANGE_SIZE, P_POINT_SELECTS, P_SKIP_TRX, P_RAND_TYPE,
        P_AUTO_PREPARE, P_CONNECT_TIMEOUT, P_RECONNECT_TIMEOUT,
        P_TABLE_ENGINE,
};

static const char *const mix_choices[] = {
        "read_write", "read_only", "point_select", NULL };
static const char *const rand_choices[] = {
        "special", "uniform", "gaussian", "pareto", NULL };

static const struct bw_param_def mysql_params[] = {
        [P_HOST] = {
                .name = "host", .type = BW_PARAM_STRING,
                .default_value = "localhost",
                .help = "server host name or address; 'localhost' means the "
                        "Unix socket (see socket), use 127.0.0.1 for TCP",
        },
        [P_PORT] = {
                .name = "port", .type = BW_PARAM_INT,
                .default_value = "3306", .min = 1, .max = 65535,
                .help = "server TCP port",
        },
        [P_SOCKET] = {
                .name = "socket", .type = BW_PARAM_STRING,
                .default_value = "",
                .help = "Unix socket path; when set, host and port are ignored",
        },
        [P_USER] = {
                .name = "user", .type = BW_PARAM_STRING,
                .default_value = "benchwatch",
                .help = "user name",
        },
        [P_PASSWORD_FILE] = {
                .name = "password_file", .type = BW_PARAM_STRING,
                .default_value = "",
                .help = "file holding the password (first line); a bare name "
                        "without '/' is the systemd credential "
                        "$CREDENTIALS_DIRECTORY/NAME (LoadCredential=); empty: "
                        "no password",
        },
        [P_DATABASE] = {
                .name = "database", .type = BW_PARAM_STRING,
                .default_value = "benchwatch",
                .help = "database holding the sbtest<N> tables; it must exist "
                        "and be writable by user",
        },
        [P_TABLES] = {
                .name = "tables", .type = BW_PARAM_INT,
                .default_value = "1", .min = 1, .max = 1024,
                .help = "number of tables sbtest1..sbtestN",
                .flags = BW_PARAM_LABEL,
        },
        [P_TABLE_SIZE] = {
                .name = "table_size", .type = BW_PARAM_INT,
                .default_value = "10000", .min = 1, .max = 1000000000,
                .unit = "rows",
                .help = "rows per table",
                .flags = BW_PARAM_LABEL,
        },
        [P_THREADS] = {
                .name = "threads", .type = BW_PARAM_INT,
                .default_value = "1", .min = 1, .max = 1024,
                .help = "client threads, one connection each",
                .flags = BW_PARAM_LABEL,
        },
        [P_DURATION] = {
                .name = "duration", .type = BW_PARAM_DURATION,
                .default_value = "10s", .min = 0, .max = 86400, .unit = "s",
                .help = "how long to run (0: until transactions)",
        },
        [P_TRANSACTIONS] = {
                .name = "transactions", .type = BW_PARAM_INT,
                .default_value = "0", .min = 0, .max = 1e12,
                .help = "stop after this many transactions in all (0: no limit)",
        },
        [P_MIX] = {
                .name = "mix", .type = BW_PARAM_ENUM,
                .default_value = "read_write", .choices = mix_choices,
                .help = "sysbench script: oltp_read_write, oltp_read_only or "
                        "oltp_point_select",
                .flags = BW_PARAM_LABEL,
        },
        [P_RANGE_SIZE] = {
                .name = "range_size", .type = BW_PARAM_INT,
                .default_value = "100", .min = 1, .max = 1000000,
                .unit = "rows",
                .help = "rows of each range select",
        },
        [P_POINT_SELECTS] = {
                .name = "point_selects", .type = BW_PARAM_INT,
                .default_value = "10", .min = 0, .max = 1000,
                .help = "point selects per transaction (not for "
                        "mix=point_select, which does one)",
        },
        [P_SKIP_TRX] = {
                .name = "skip_trx", .type = BW_PARAM_BOOL,
                .default_value = "no",
                .help = "run the statements in autocommit mode, without "
                        "BEGIN/COMMIT",
        },
        [P_RAND_TYPE] = {
                .name = "rand_type", .type = BW_PARAM_ENUM,
                .default_value = "special", .choices = rand_choices,
                .help = "distribution of row ids, as sysbench --rand-type",
        },
        [P_AUTO_PREPARE] = {
                .name = "auto_prepare", .type = BW_PARAM_BOOL,
                .default_value = "yes",
                .help = "create and fill missing tables before the run (no: "
                        "fail instead)",
        },
        [P_CONNECT_TIMEOUT] = {
                .name = "connect_timeout", .type = BW_PARAM_DURATION,
                .default_value = "5s", .min = 1, .max = 3600, .unit = "s",
                .help = "timeout of each connection attempt",
        },
        [P_RECONNECT_TIMEOUT] = {
                .name = "reconnect_timeout", .type = BW_PARAM_DURATION,
                .default_value = "5s", .min = 0, .max = 3600, .unit = "s",
                .help = "how long a thread that lost its connection tries to "
                        "reconnect before the run fails",
        },
        [P_TABLE_ENGINE] = {
                .name = "table_engine", .type = BW_PARAM_STRING,
                .default_value = "InnoDB",
                .help = "storage engine of the sbtest tables (sysbench's "
                        "--mysql-storage-engine): InnoDB, Aria, MyISAM, "
                        "RocksDB... as the server offers (SHOW ENGINES); "
                        "tables of another engine are recreated",
                .flags = BW_PARAM_LABEL,
        },
        { .name = NULL },
};

/* ---- configuration ---------------------------------------------------- */

static void cfg_from_run(const struct bw_run *run, struct db_cfg *c)
{
        const struct bw_param_value *v = run->values;
        *c = (struct db_cfg){
                .host = v[P_HOST].s, .socket = v[P_SOCKET].s,
                .user = v[P_USER].s, .db = v[P_DATABASE].s,
                .port = (unsigned)v[P_PORT].i,
                .tables = (unsigned)v[P_TABLES].i,
                .table_size = v[P_TABLE_SIZE].i,
                .range_size = v[P_RANGE_SIZE].i,
                .point_selects = v[P_POINT_SELECTS].i,
                .duration = v[P_DURATION].d,
                .transactions = (uint64_t)v[P_TRANSACTIONS].i,
                .mix = (enum mix)v[P_MIX].i,
                .rand = (enum rand_type)v[P_RAND_TYPE].i,
                .trx = !v[P_SKIP_TRX].b && v[P_MIX].i != MIX_POINT_SELECT,
                .auto_prepare = v[P_AUTO_PREPARE].b,
                .threads = (unsigned)v[P_THREADS].i,
                .connect_timeout = (unsigned)ceil(v[P_CONNECT_TIMEOUT].d),
                .reconnect_timeout = v[P_RECONNECT_TIMEOUT].d,
                .engine = v[P_TABLE_ENGINE].s,
        };
        if (c->mix == MIX_POINT_SELECT)
                c->point_selects = 1;
        /* Leave half a second before the core's deadline to report. */
        double end = run->deadline - 0.5;
        c->hard_end_ns = end > 0 ? (uint64_t)(end * 1e9) : 0;
}

static int cfg_load_password(struct db_cfg *c, const char *spec,
                             const struct bw_host *h)
{
        char err[ERRLEN];
        bool world = false;
        if (!*spec)
                return 0;
        int r = db_password_load(spec, &c->password, &world, err);
        if (r < 0)
                return h->fail(h, r, "%s", err);
        if (world)
                h->log(h, LOG_WARNING, "password file '%s' is readable by "
                       "every user; chmod o-r it", spec);
        return 0;
}

/* ---- worker threads --------------------------------------------------- */

/* Statements prepared per table; BEGIN and COMMIT once per connection. */
enum stmt_kind {
        S_POINT, S_SIMPLE, S_SUM, S_ORDER, S_DISTINCT,
        S_INDEX_UPD, S_NON_INDEX_UPD, S_DELETE, S_INSERT,
        S_N, K_BEGIN = S_N, K_COMMIT,
};

/* oltp_common.lua's stmt_defs, verbatim. */
static const char *const stmt_sql[] = {
        [S_POINT] = "SELECT c FROM sbtest%u WHERE id=?",
        [S_SIMPLE] = "SELECT c FROM sbtest%u WHERE id BETWEEN ? AND ?",
        [S_SUM] = "SELECT SUM(k) FROM sbtest%u WHERE id BETWEEN ? AND ?",
        [S_ORDER] = "SELECT c FROM sbtest%u WHERE id BETWEEN ? AND ? "
                    "ORDER BY c",
        [S_DISTINCT] = "SELECT DISTINCT c FROM sbtest%u WHERE id BETWEEN ? "
                       "AND ? ORDER BY c",
        [S_INDEX_UPD] = "UPDATE sbtest%u SET k=k+1 WHERE id=?",
        [S_NON_INDEX_UPD] = "UPDATE sbtest%u SET c=? WHERE id=?",
        [S_DELETE] = "DELETE FROM sbtest%u WHERE id=?",
        [S_INSERT] = "INSERT INTO sbtest%u (id, k, c, pad) VALUES "
                     "(?, ?, ?, ?)",
        [K_BEGIN] = "BEGIN",
        [K_COMMIT] = "COMMIT",
};

#define RETRY 1 /* run_event(): restart the transaction */

struct counts {
        uint64_t tx, read, write, other, errors, reconnects;
};

struct shared {
        const struct db_cfg *cfg;
        const struct bw_host *h;
        pthread_mutex_t lock;
        pthread_cond_t cond;
        unsigned ready, running; /* under lock */
        bool go;                 /* under lock */
        uint64_t start_ns, end_ns; /* written before go */
        uint64_t issued;         /* atomic: transactions started */
        bool cut;                /* end_ns was brought forward */
        bool abort;              /* atomic */
};

struct worker {
        struct shared *sh;
        pthread_t thread;
        struct db_session s;
        MYSQL_STMT *stmt[S_N + 2]; /* BEGIN, COMMIT at K_BEGIN, K_COMMIT */
        MYSQL_STMT **tstmt;        /* [(table - 1) * S_N + kind] */
        MYSQL_BIND b_id[1], b_range[2], b_upd[2], b_ins[4];
        int32_t id, id2, k;
        char c[sizeof(C_TEMPLATE)], pad[sizeof(PAD_TEMPLATE)];
        unsigned long c_len, pad_len;
        struct sb_rng rng;
        struct counts n;
        uint64_t stop_ns;
        uint64_t cpu_ns;   /* the thread's CPU time in its transactions */
        int err;
        struct bw_hist hist;
};

static bool aborted(const struct worker *w)
{
        return __atomic_load_n(&w->sh->abort, __ATOMIC_RELAXED);
}

static void set_abort(struct shared *sh)
{
        __atomic_store_n(&sh->abort, true, __ATOMIC_RELAXED);
}

static void bind_int(MYSQL_BIND *b, int32_t *v)
{
        memset(b, 0, sizeof(*b));
        b->buffer_type = MYSQL_TYPE_LONG;
        b->buffer = v;
}

static void bind_str(MYSQL_BIND *b, char *v, unsigned long *len)
{
        memset(b, 0, sizeof(*b));
        b->buffer_type = MYSQL_TYPE_STRING;
        b->buffer = v;
        b->buffer_length = *len;
        b->length = len;
}

static void worker_binds(struct worker *w)
{
        w->c_len = sizeof(C_TEMPLATE) - 1;
        w->pad_len = sizeof(PAD_TEMPLATE) - 1;
        bind_int(&w->b_id[0], &w->id);
        bind_int(&w->b_range[0], &w->id);
        bind_int(&w->b_range[1], &w->id2);
        bind_str(&w->b_upd[0], w->c, &w->c_len);
        bind_int(&w->b_upd[1], &w->id);
        bind_int(&w->b_ins[0], &w->id);
        bind_int(&w->b_ins[1], &w->k);
        bind_str(&w->b_ins[2], w->c, &w->c_len);
        bind_str(&w->b_ins[3], w->pad, &w->pad_len);
}

static MYSQL_BIND *kind_binds(struct worker *w, enum stmt_kind k)
{
        switch (k) {
        case S_SIMPLE: case S_SUM: case S_ORDER: case S_DISTINCT:
                return w->b_range;
        case S_NON_INDEX_UPD:
                return w->b_upd;
        case S_INSERT:
                return w->b_ins;
        case K_BEGIN: case K_COMMIT:
                return NULL;
        default:
                return w->b_id;
        }
}

static bool kind_needed(const struct db_cfg *c, enum stmt_kind k)
{
        if (k == K_BEGIN || k == K_COMMIT)
                return c->trx;
        if (k == S_POINT)
                return true;
        if (c->mix == MIX_POINT_SELECT)
                return false;
        return k <= S_DISTINCT || c->mix == MIX_READ_WRITE;
}

/* stmt_sql[k] for table t: "sbtest%u" -> "sbtest3". */
static void stmt_text(enum stmt_kind k, unsigned t, char *buf, size_t size)
{
        const char *tmpl = stmt_sql[k], *at = strstr(tmpl, "%u");
        if (at)
                snprintf(buf, size, "%.*s%u%s", (int)(at - tmpl), tmpl, t,
                         at + 2);
        else
                snprintf(buf, size, "%s", tmpl);
}

static int stmt_new(struct worker *w, enum stmt_kind k, unsigned t,
                    MYSQL_STMT **ret)
{
        char q[256];
        stmt_text(k, t, q, sizeof(q));
        MYSQL_STMT *st = mysql_stmt_init(w->s.db);
        if (!st)
                return db_fail(&w->s, "cannot prepare statement");
        MYSQL_BIND *b = kind_binds(w, k);
        if (mysql_stmt_prepare(st, q, strlen(q)) ||
            (b && mysql_stmt_bind_param(st, b))) {
                w->s.err_no = mysql_stmt_errno(st);
                snprintf(w->s.err, sizeof(w->s.err), "cannot prepare '%s': "
                         "%s", q, mysql_stmt_error(st));
                mysql_stmt_close(st);
                return db_errno(w->s.err_no);
        }
        *ret = st;
        return 0;
}

static int worker_prepare(struct worker *w)
{
        const struct db_cfg *c = w->sh->cfg;
        int r = 0;
        for (unsigned k = K_BEGIN; k <= K_COMMIT && r >= 0; k++)
                if (kind_needed(c, k))
                        r = stmt_new(w, k, 0, &w->stmt[k]);
        for (unsigned t = 1; t <= c->tables && r >= 0; t++)
                for (unsigned k = 0; k < S_N && r >= 0; k++)
                        if (kind_needed(c, k))
                                r = stmt_new(w, k, t,
                                             &w->tstmt[(t - 1) * S_N + k]);
        return r;
}

static void worker_disconnect(struct worker *w)
{
        for (unsigned i = 0; i < S_N + 2; i++)
                if (w->stmt[i])
                        mysql_stmt_close(w->stmt[i]);
        memset(w->stmt, 0, sizeof(w->stmt));
        for (size_t i = 0; w->tstmt && i < w->sh->cfg->tables * S_N; i++)
                if (w->tstmt[i])
                        mysql_stmt_close(w->tstmt[i]);
        if (w->tstmt)
                memset(w->tstmt, 0,
                       w->sh->cfg->tables * S_N * sizeof(*w->tstmt));
        db_close(&w->s);
}

static int worker_connect(struct worker *w)
{
        worker_disconnect(w);
        int r = db_connect(&w->s);
        return r < 0 ? r : worker_prepare(w);
}

/* The connection broke: connect again for up to reconnect_timeout, as
 * sysbench does for the errors it is told to ignore. */
static int worker_reconnect(struct worker *w, unsigned lost_errno,
                            const char *why)
{
        const struct db_cfg *c = w->sh->cfg;
        uint64_t delay = 10000000u, until = now_ns() +
                (uint64_t)(c->reconnect_timeout * 1e9);
        char lost[ERRLEN];
        snprintf(lost, sizeof(lost), "%s", why); /* why dies with w->s.db */
        if (until > c->hard_end_ns)
                until = c->hard_end_ns;
        for (;;) {
                int r = worker_connect(w);
                if (r >= 0) {
                        w->n.reconnects++;
                        return RETRY;
                }
                if (!db_is_conn_lost(w->s.err_no) || aborted(w) ||
                    now_ns() + delay >= until) {
                        char last[ERRLEN];
                        memcpy(last, w->s.err, sizeof(last));
                        snprintf(w->s.err, sizeof(w->s.err), "lost the "
                                 "connection (error %u: %.150s) and could "
                                 "not reconnect within %.1f s: %.250s",
                                 lost_errno, lost, c->reconnect_timeout,
                                 last);
                        return r;
                }
                sleep_until_ns(now_ns() + delay);
                delay = delay * 2 > 200000000u ? 200000000u : delay * 2;
        }
}

/* st (kind k, on table t; 0: none) failed: retried, reconnected or the
 * run's error, naming the statement as it was sent. */
static int stmt_error(struct worker *w, MYSQL_STMT *st, enum stmt_kind k, unsigned t)
{
        char q[256];
        unsigned e = mysql_stmt_errno(st);
        if (db_is_ignorable(e)) {
                w->n.errors++;
                /* After a lock wait timeout only the statement was rolled
                 * back: end the transaction so the restart begins clean. */
                if (!w->sh->cfg->trx || !mysql_query(w->s.db, "ROLLBACK"))
                        return RETRY;
                e = mysql_errno(w->s.db);
                if (db_is_conn_lost(e))
                        return worker_reconnect(w, e, mysql_error(w->s.db));
        }
        if (db_is_conn_lost(e))
                return worker_reconnect(w, e, mysql_stmt_error(st));
        w->s.err_no = e;
        stmt_text(k, t, q, sizeof(q));
        snprintf(w->s.err, sizeof(w->s.err), "'%s' failed: %s (error %u)", q,
                 mysql_stmt_error(st), e);
        return db_errno(e);
}

/* Executes one statement and counts it as sysbench does: rows returned:
 * read; rows changed: write; otherwise other. */
static int stmt_run(struct worker *w, MYSQL_STMT *st, enum stmt_kind k, unsigned t)
{
        if (mysql_stmt_execute(st) || mysql_stmt_store_result(st))
                return stmt_error(w, st, k, t);
        if (mysql_stmt_field_count(st) > 0) {
                w->n.read++;
                mysql_stmt_free_result(st);
        } else {
                my_ulonglong rows = mysql_stmt_affected_rows(st);
                if (rows > 0 && rows != (my_ulonglong)-1)
                        w->n.write++;
                else
                        w->n.other++;
        }
        return 0;
}

static unsigned pick_table(struct worker *w)
{
        return sb_rand_uniform(&w->rng, 1, w->sh->cfg->tables);
}

static int32_t get_id(struct worker *w)
{
        const struct db_cfg *c = w->sh->cfg;
        return (int32_t)sb_rand_id(&w->rng, c->rand, 1,
                                   (uint32_t)c->table_size);
}

static int tstmt_run(struct worker *w, unsigned t, enum stmt_kind k)
{
        return stmt_run(w, w->tstmt[(t - 1) * S_N + k], k, t);
}

static int ev_selects(struct worker *w)
{
        const struct db_cfg *c = w->sh->cfg;
        unsigned t = pick_table(w);
        int r = 0;
        for (int64_t i = 0; i < c->point_selects && r == 0; i++) {
                w->id = get_id(w);
                r = tstmt_run(w, t, S_POINT);
        }
        if (c->mix == MIX_POINT_SELECT)
                return r;
        for (unsigned k = S_SIMPLE; k <= S_DISTINCT && r == 0; k++) {
                t = pick_table(w);
                w->id = get_id(w);
                w->id2 = w->id + (int32_t)c->range_size - 1;
                r = tstmt_run(w, t, k);
        }
        return r;
}

static int ev_writes(struct worker *w)
{
        unsigned t = pick_table(w);
        w->id = get_id(w);
        int r = tstmt_run(w, t, S_INDEX_UPD);
        if (r)
                return r;
        t = pick_table(w);
        sb_rand_str(&w->rng, C_TEMPLATE, w->c);
        w->id = get_id(w);
        if ((r = tstmt_run(w, t, S_NON_INDEX_UPD)))
                return r;
        t = pick_table(w);
        w->id = get_id(w);
        w->k = get_id(w);
        sb_rand_str(&w->rng, C_TEMPLATE, w->c);
        sb_rand_str(&w->rng, PAD_TEMPLATE, w->pad);
        if ((r = tstmt_run(w, t, S_DELETE)))
                return r;
        return tstmt_run(w, t, S_INSERT);
}

/* One sysbench event: 0, RETRY or a fatal -errno (w->s.err says why). */
static int run_event(struct worker *w)
{
        const struct db_cfg *c = w->sh->cfg;
        int r = 0;
        if (c->trx)
                r = stmt_run(w, w->stmt[K_BEGIN], K_BEGIN, 0);
        if (r == 0)
                r = ev_selects(w);
        if (r == 0 && c->mix == MIX_READ_WRITE)
                r = ev_writes(w);
        if (r == 0 && c->trx)
                r = stmt_run(w, w->stmt[K_COMMIT], K_COMMIT, 0);
        return r;
}

static bool worker_more(struct worker *w)
{
        struct shared *sh = w->sh;
        if (aborted(w) || now_ns() >= sh->end_ns)
                return false;
        return !sh->cfg->transactions ||
               __atomic_fetch_add(&sh->issued, 1, __ATOMIC_RELAXED) <
                       sh->cfg->transactions;
}

/* Transactions until the end; latency covers restarts, as in sysbench. */
static void worker_loop(struct worker *w, const struct bw_host *h)
{
        while (worker_more(w)) {
                uint64_t t0 = now_ns();
                int r;
                while ((r = run_event(w)) == RETRY)
                        if (aborted(w) || now_ns() >= w->sh->cfg->hard_end_ns)
                                return;
                if (r < 0) {
                        w->err = r;
                        set_abort(w->sh);
                        return;
                }
                bw_hist_record(&w->hist, now_ns() - t0);
                w->n.tx++;
                h->progress(h, 1);
        }
}

static void worker_sync(struct shared *sh, bool done)
{
        pthread_mutex_lock(&sh->lock);
        if (done)
                sh->running--;
        else
                sh->ready++;
        pthread_cond_broadcast(&sh->cond);
        while (!done && !sh->go)
                pthread_cond_wait(&sh->cond, &sh->lock);
        pthread_mutex_unlock(&sh->lock);
}

static void *worker_main(void *arg)
{
        struct worker *w = arg;
        mysql_thread_init();
        w->err = worker_connect(w);
        if (w->err < 0)
                set_abort(w->sh);
        worker_sync(w->sh, false);
        uint64_t cpu0 = thread_cpu_ns();
        if (w->err >= 0)
                worker_loop(w, w->sh->h);
        w->stop_ns = now_ns();
        w->cpu_ns = thread_cpu_ns() - cpu0;
        worker_disconnect(w);
        mysql_thread_end();
        worker_sync(w->sh, true);
        return NULL;
}

/* ---- the run ---------------------------------------------------------- */

static unsigned workers_start(struct shared *sh, struct worker *w)
{
        const struct db_cfg *c = sh->cfg;
        pthread_attr_t attr;
        unsigned i;
        pthread_attr_init(&attr);
        pthread_attr_setstacksize(&attr, 512 * 1024);
        for (i = 0; i < c->threads; i++) {
                w[i].sh = sh;
                w[i].s.cfg = c;
                w[i].tstmt = calloc((size_t)c->tables * S_N,
                                    sizeof(*w[i].tstmt));
                sb_rng_seed(&w[i].rng);
                bw_hist_init(&w[i].hist);
                worker_binds(&w[i]);
                pthread_mutex_lock(&sh->lock);
                sh->running++;
                pthread_mutex_unlock(&sh->lock);
                if (!w[i].tstmt ||
                    pthread_create(&w[i].thread, &attr, worker_main, &w[i])) {
                        pthread_mutex_lock(&sh->lock);
                        sh->running--;
                        pthread_mutex_unlock(&sh->lock);
                        w[i].err = -EAGAIN;
                        snprintf(w[i].s.err, sizeof(w[i].s.err), "cannot "
                                 "start thread");
                        set_abort(sh);
                        break;
                }
        }
        pthread_attr_destroy(&attr);
        return i;
}

/* Starts the clock once every thread is connected, then waits for them,
 * passing on a stop request. */
static void workers_wait(struct shared *sh, unsigned started)
{
        const struct db_cfg *c = sh->cfg;
        pthread_mutex_lock(&sh->lock);
        while (sh->ready < started)
                pthread_cond_wait(&sh->cond, &sh->lock);
        sh->start_ns = now_ns();
        sh->end_ns = c->duration > 0 ?
                sh->start_ns + (uint64_t)(c->duration * 1e9) : UINT64_MAX;
        if (c->hard_end_ns > 500000000u &&
            sh->end_ns > c->hard_end_ns - 500000000u) {
                sh->end_ns = c->hard_end_ns - 500000000u;
                sh->cut = c->duration > 0;
        }
        sh->go = true;
        pthread_cond_broadcast(&sh->cond);
        while (sh->running > 0) {
                struct timespec ts;
                clock_gettime(CLOCK_MONOTONIC, &ts);
                ts.tv_nsec += 100000000;
                if (ts.tv_nsec >= 1000000000) {
                        ts.tv_sec++;
                        ts.tv_nsec -= 1000000000;
                }
                pthread_cond_timedwait(&sh->cond, &sh->lock, &ts);
                if (sh->h->stopping(sh->h))
                        set_abort(sh);
        }
        pthread_mutex_unlock(&sh->lock);
}

static void emit(const struct bw_host *h, const struct counts *n,
                 const struct bw_hist *hist, double secs)
{
        static const char *const rd[] = { "type", "read", NULL };
        static const char *const wr[] = { "type", "write", NULL };
        static const char *const ot[] = { "type", "other", NULL };
        h->gauge(h, "transactions_per_second", "Transactions (sysbench "
                 "events) per second", NULL, (double)n->tx / secs);
        h->gauge(h, "queries_per_second", "Statements per second: read "
                 "returned rows, write changed rows, other did neither "
                 "(BEGIN, COMMIT)", rd, (double)n->read / secs);
        h->gauge(h, "queries_per_second", NULL, wr, (double)n->write / secs);
        h->gauge(h, "queries_per_second", NULL, ot, (double)n->other / secs);
        h->counter(h, "transactions_total", "Transactions completed", NULL,
                   (double)n->tx);
        h->counter(h, "queries_total", "Statements executed by type", rd,
                   (double)n->read);
        h->counter(h, "queries_total", NULL, wr, (double)n->write);
        h->counter(h, "queries_total", NULL, ot, (double)n->other);
        h->counter(h, "errors_total", "Ignored errors (deadlock, lock wait "
                   "timeout): the transaction was restarted", NULL,
                   (double)n->errors);
        h->counter(h, "reconnects_total", "Lost connections re-established",
                   NULL, (double)n->reconnects);
        h->latency(h, "latency_seconds", "Transaction latency, restarts "
                   "included", NULL, hist);
}

/* A server on this host shares its CPUs with this client: say so, with
 * the client's CPU a transaction (common/localpeer.h says why). */
static void note_local_server(const struct db_cfg *c, uint64_t tx,
                              uint64_t cpu_ns, const struct bw_host *h)
{
        bool here = *c->socket || localpeer_host(c->host);
        if (!here || !tx)
                return;
        h->log(h, LOG_NOTICE, "the server is on this host: where its CPUs are "
               "full, this client's own CPU, %.0f µs a transaction, counts "
               "against the transactions/s (a client that needs more a "
               "transaction, as sysbench does, gets fewer)",
               (double)cpu_ns / 1e3 / (double)tx);
}

static int workers_report(const struct shared *sh, struct worker *w,
                          unsigned started, const struct bw_host *h)
{
        struct counts n = { 0 };
        uint64_t stop = sh->start_ns, cpu_ns = 0;
        for (unsigned i = 0; i < sh->cfg->threads; i++) {
                if (w[i].err < 0)
                        return h->fail(h, w[i].err, "thread %u: %s", i + 1,
                                       w[i].s.err);
                if (i >= started)
                        break;
                n.tx += w[i].n.tx;
                n.read += w[i].n.read;
                n.write += w[i].n.write;
                n.other += w[i].n.other;
                n.errors += w[i].n.errors;
                n.reconnects += w[i].n.reconnects;
                cpu_ns += w[i].cpu_ns;
                if (i)
                        bw_hist_merge(&w[0].hist, &w[i].hist);
                if (w[i].stop_ns > stop)
                        stop = w[i].stop_ns;
        }
        if (h->stopping(h))
                return h->fail(h, -ECANCELED, "stopped before the end");
        double secs = (double)(stop - sh->start_ns) / 1e9;
        if (n.tx == 0 || secs <= 0)
                return h->fail(h, -EIO, "no transaction completed in %.1f s",
                               secs);
        if (sh->cut && stop >= sh->end_ns)
                h->log(h, LOG_WARNING, "run cut to %.1f s by the probe's "
                       "timeout", secs);
        emit(h, &n, &w[0].hist, secs);
        note_local_server(sh->cfg, n.tx, cpu_ns, h);
        return 0;
}

static int workers_run(const struct db_cfg *c, const struct bw_host *h)
{
        struct shared sh = { .cfg = c, .h = h };
        pthread_condattr_t ca;
        struct worker *w = calloc(c->threads, sizeof(*w));
        if (!w)
                return h->fail(h, -ENOMEM, "out of memory");
        pthread_condattr_init(&ca);
        pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
        pthread_cond_init(&sh.cond, &ca);
        pthread_condattr_destroy(&ca);
        pthread_mutex_init(&sh.lock, NULL);
        unsigned started = workers_start(&sh, w);
        workers_wait(&sh, started);
        for (unsigned i = 0; i < started; i++)
                pthread_join(w[i].thread, NULL);
        int r = workers_report(&sh, w, started, h);
        for (unsigned i = 0; i < c->threads; i++)
                free(w[i].tstmt);
        pthread_cond_destroy(&sh.cond);
        pthread_mutex_destroy(&sh.lock);
        free(w);
        return r;
}

static int mysql_check(const struct bw_run *run, const struct bw_host *h)
{
        const struct bw_param_value *v = run->values;
        if (v[P_DURATION].d <= 0 && v[P_TRANSACTIONS].i <= 0)
                return h->fail(h, -EINVAL, "duration=0 needs "
                               "transactions=N: a run must be bounded");
        if (v[P_TABLE_SIZE].i + v[P_RANGE_SIZE].i > INT32_MAX)
                return h->fail(h, -EINVAL, "table_size + range_size must "
                               "stay below 2^31 (ids are INTEGER)");
        if (!*v[P_SOCKET].s && !*v[P_HOST].s)
                return h->fail(h, -EINVAL, "host and socket are both empty: "
                               "give one");
        if (!db_engine_name_ok(v[P_TABLE_ENGINE].s))
                return h->fail(h, -EINVAL, "table_engine: '%s' is not an engine "
                               "name (letters, digits and _)", v[P_TABLE_ENGINE].s);
        return 0;
}

static int mysql_run(const struct bw_run *run, const struct bw_host *h)
{
        struct db_cfg c;
        cfg_from_run(run, &c);
        int r = cfg_load_password(&c, run->values[P_PASSWORD_FILE].s, h);
        if (r < 0)
                return r;
        if (mysql_library_init(0, NULL, NULL)) {
                secret_free(c.password);
                return h->fail(h, -ENOMEM, "cannot initialise libmysqlclient");
        }
        r = db_tables_prepare(&c, h);
        if (r >= 0)
                r = workers_run(&c, h);
        secret_free(c.password);
        return r;
}

/* benchwatch cleanup: drop every sbtest<N> table benchwatch created. */
static int mysql_cleanup(const struct bw_run *run, const struct bw_host *h)
{
        struct db_cfg c;
        struct db_session s = { .cfg = &c };
        unsigned dropped = 0, foreign = 0;
        cfg_from_run(run, &c);
        int r = cfg_load_password(&c, run->values[P_PASSWORD_FILE].s, h);
        if (r < 0)
                return r;
        if (mysql_library_init(0, NULL, NULL))
                r = h->fail(h, -ENOMEM, "cannot initialise libmysqlclient");
        else if ((r = db_connect(&s)) < 0 ||
                 (r = db_tables_drop(&s, h, &dropped, &foreign)) < 0)
                r = h->fail(h, r, "%s", s.err);
        else {
                h->log(h, LOG_INFO, "dropped %u table(s) from %s%s", dropped,
                       c.db, foreign ? "; left the others alone" : "");
                bw_cleanup_report(h, dropped, foreign);
        }
        db_close(&s);
        secret_free(c.password);
        return r;
}

BW_PLUGIN_DEFINE = {
        .abi_version = BW_PLUGIN_ABI_VERSION,
        .name = "mysql",
        .description = "MySQL/MariaDB OLTP transactions per second, as "
                       "sysbench oltp_read_write (read_only, point_select)",
        .caps = BW_CAP_NETWORK,
        .params = mysql_params,
        .concurrency_param = "threads",
        .throughput_metric = "transactions_per_second",
        .check = mysql_check,
        .run = mysql_run,
        .cleanup = mysql_cleanup,
};
