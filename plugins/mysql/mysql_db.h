/* mysql_db.h — what the mysql plugin's threads share: the run's
 * configuration, connections to the server (db_*), the sbtest tables'
 * ownership, preparation and removal, and sysbench's random numbers.
 *
 * The random functions are inline: they run several times per statement. */
#ifndef BENCHWATCH_MYSQL_DB_H
#define BENCHWATCH_MYSQL_DB_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/random.h>

#include <mysql.h>

#include "common/sbrand.h"
#include "core/plugin.h"
#include "util/timeutil.h"

enum mix { MIX_READ_WRITE, MIX_READ_ONLY, MIX_POINT_SELECT };
enum rand_type { RAND_SPECIAL, RAND_UNIFORM, RAND_GAUSSIAN, RAND_PARETO };

/* sysbench's defaults for the 'special' and 'pareto' distributions
 * (--rand-spec-iter=12 --rand-spec-pct=1 --rand-spec-res=75
 * --rand-pareto-h=0.2). */
#define SPEC_ITER 12
#define SPEC_PCT 1.0
#define SPEC_RES 75.0
#define PARETO_H 0.2

/* sysbench's templates for c (119 chars) and pad (59 chars). */
#define C_TEMPLATE "###########-###########-###########-###########-" \
        "###########-###########-###########-###########-###########-" \
        "###########"
#define PAD_TEMPLATE "###########-###########-###########-###########-" \
        "###########"

#define ERRLEN 512

struct db_cfg {
        const char *host, *socket, *user, *db;
        unsigned port;
        char *password;         /* never logged; secret_free() when done */
        unsigned tables;
        int64_t table_size, range_size, point_selects;
        double duration;
        uint64_t transactions;
        enum mix mix;
        enum rand_type rand;
        bool trx, auto_prepare;
        unsigned threads, connect_timeout;
        double reconnect_timeout;
        const char *engine;     /* of the tables: "InnoDB", "Aria"... */
        uint64_t hard_end_ns;   /* everything must be over by then */
};

struct db_session {
        MYSQL *db;
        const struct db_cfg *cfg;
        unsigned err_no;
        char err[ERRLEN];
};

bool db_engine_name_ok(const char *e); /* [A-Za-z0-9_]+, as SQL allows bare */
int db_errno(unsigned mysql_error);  /* a -errno for h->fail() */
bool db_is_ignorable(unsigned e);    /* sysbench restarts the transaction */
bool db_is_conn_lost(unsigned e);    /* reconnect */
/* The first line of a password file or systemd credential (see the
 * password_file parameter), wiped when freed with secret_free();
 * *ret_world: readable by every user.  err gets the message. */
int db_password_load(const char *spec, char **ret, bool *ret_world,
                     char *err);
int db_connect(struct db_session *s); /* (re)connect; s->err says why */
void db_close(struct db_session *s);
int db_fail(struct db_session *s, const char *what); /* fills s->err */
/* sbtest1..N exist, are benchwatch's and hold table_size rows; or fail. */
int db_tables_prepare(const struct db_cfg *c, const struct bw_host *h);
/* Drops every sbtest<N> table benchwatch created, logs the others. */
int db_tables_drop(struct db_session *s, const struct bw_host *h,
                   unsigned *ret_dropped, unsigned *ret_foreign);

/* ---- random numbers, as sysbench draws them --------------------------- */

struct sb_rng {
        uint64_t s[2]; /* xoroshiro128+ */
};

static inline void sb_rng_seed(struct sb_rng *g)
{
        if (getrandom(g->s, sizeof(g->s), 0) != sizeof(g->s)) {
                g->s[0] = now_ns() ^ (uint64_t)(uintptr_t)g;
                g->s[1] = 0x9e3779b97f4a7c15u;
        }
        if (!g->s[0] && !g->s[1])
                g->s[1] = 1;
}

static inline double sb_rng_double(struct sb_rng *g)
{
        return sb_uniform_double(g->s);
}

static inline uint32_t sb_rand_uniform(struct sb_rng *g, uint32_t a, uint32_t b)
{
        return a + (uint32_t)(sb_rng_double(g) * (b - a + 1));
}

/* sysbench 1.0 sb_rand_special(): 75% of the values fall, uniformly, into
 * the middle 1% of [a, b]; the rest follow a 12-iteration gaussian. */
static inline uint32_t sb_rand_special(struct sb_rng *g, uint32_t a, uint32_t b)
{
        double t = b - a, rnd = sb_rng_double(g);
        double res = rnd * (t * (100.0 / (100.0 - SPEC_RES)));
        if (res < t) {
                double sum = 0;
                for (int i = 0; i < SPEC_ITER; i++)
                        sum += sb_rng_double(g);
                return a + (uint32_t)(sum * t / SPEC_ITER);
        }
        double d = t * SPEC_PCT / 100.0;
        res = rnd * (d + 1) + t / 2 - t * SPEC_PCT / 200.0;
        return a + (uint32_t)res;
}

static inline uint32_t sb_rand_id(struct sb_rng *g, enum rand_type type,
                                  uint32_t a, uint32_t b)
{
        double sum = 0, t = b - a + 1;
        switch (type) {
        case RAND_SPECIAL:
                return sb_rand_special(g, a, b);
        case RAND_GAUSSIAN:
                for (int i = 0; i < SPEC_ITER; i++)
                        sum += sb_rng_double(g) * t;
                return a + (uint32_t)(sum / SPEC_ITER);
        case RAND_PARETO:
                return a + (uint32_t)(t * pow(sb_rng_double(g),
                                      log(PARETO_H) / log(1.0 - PARETO_H)));
        case RAND_UNIFORM:
        default:
                return sb_rand_uniform(g, a, b);
        }
}

/* sysbench.rand.string(): '#' becomes a random digit. */
static inline void sb_rand_str(struct sb_rng *g, const char *tmpl, char *out)
{
        for (size_t i = 0; tmpl[i]; i++)
                out[i] = tmpl[i] == '#' ? (char)sb_rand_uniform(g, '0', '9')
                                        : tmpl[i];
}

#endif
