/* sink_remote_write.c — [remote_write] (see sink_remote_write.h).
 *
 * Unlike the Pushgateway, which only ever holds a probe's latest result,
 * a remote-write receiver keeps history: every run must arrive, with its
 * own timestamp, in order.  So publish() only queues a copy of the run;
 * the worker encodes it, writes it to the spool (one file per run), and
 * sends the spool oldest first.  As the remote-write spec asks, 5xx and
 * 429 answers (and no answer) are retried with exponential backoff,
 * honouring Retry-After; any other refusal drops that run, logged with
 * the start of the receiver's answer, since sending it again would be
 * refused again.  At stop, one last round bounded by `timeout`; whatever
 * is still unsent stays spooled for the next start. */
#include "sink/sink_remote_write.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


#include "core/log.h"
#include "encode/prom_remote_write.h"
#include "sink/httpc.h"
#include "sink/mailbox.h"
#include "sink/sinkconf.h"
#include "sink/spool.h"
#include "util/secret.h"
#include "util/strutil.h"
#include "util/timeutil.h"

#define RELOG_INTERVAL 600.0

/* One worker at a time owns the spool directory: on a reload the new sink
 * is created before the old one stops, and the two must not both send,
 * drop or number the same files.  The new worker waits here until the
 * old one, done with its last attempt, lets go; runs published meanwhile
 * wait in its queue.  The runs the old one could only hold in memory (the
 * disk refused them) it hands over with the directory: a reload must not
 * lose them, least of all one that moves spool_dir off a full disk. */
static pthread_mutex_t owner_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t owner_cond = PTHREAD_COND_INITIALIZER;
static bool owned;
static struct spool *handed_over; /* the last owner's runs in memory */
static unsigned n_sinks;          /* sinks with a worker: more than one in a reload */
#define ANSWER_LOGGED 200 /* bytes of a refusal's answer in the log */

static const struct bw_param_def remote_write_options[] = {
        { .name = "enabled", .type = BW_PARAM_BOOL, .default_value = "yes",
          .help = "send every run (needs url)" },
        { .name = "url", .type = BW_PARAM_STRING, .default_value = "",
          .help = "the receiver, e.g. http://prometheus:9090/api/v1/write; "
                  "empty: off" },
        { .name = "job", .type = BW_PARAM_STRING, .default_value = "benchwatch",
          .help = "the job label of every series" },
        { .name = "instance", .type = BW_PARAM_STRING, .default_value = "",
          .help = "the instance label of every series; empty: the host name" },
        { .name = "labels", .type = BW_PARAM_STRING, .default_value = "",
          .help = "extra labels on every series: name=value,name=value" },
        { .name = "username", .type = BW_PARAM_STRING, .default_value = "",
          .help = "HTTP basic auth user" },
        { .name = "password_file", .type = BW_PARAM_STRING, .default_value = "",
          .help = "file (or systemd credential name) holding the basic auth "
                  "password" },
        { .name = "bearer_token_file", .type = BW_PARAM_STRING, .default_value = "",
          .help = "file (or systemd credential name) holding a bearer token" },
        { .name = "ca_file", .type = BW_PARAM_STRING, .default_value = "",
          .help = "CA certificates to verify the receiver with (PEM)" },
        { .name = "cert_file", .type = BW_PARAM_STRING, .default_value = "",
          .help = "client certificate (PEM)" },
        { .name = "key_file", .type = BW_PARAM_STRING, .default_value = "",
          .help = "client certificate's key (PEM)" },
        { .name = "insecure", .type = BW_PARAM_BOOL, .default_value = "no",
          .help = "do not verify the receiver's certificate" },
        { .name = "connect_timeout", .type = BW_PARAM_DURATION, .default_value = "5s",
          .min = 0.001, .max = 600, .unit = "s", .help = "connection timeout" },
        { .name = "timeout", .type = BW_PARAM_DURATION, .default_value = "10s",
          .min = 0.001, .max = 3600, .unit = "s",
          .help = "whole request timeout; also bounds the last attempt at stop" },
        { .name = "retry_min", .type = BW_PARAM_DURATION, .default_value = "1s",
          .min = 0.01, .max = 3600, .unit = "s", .help = "first retry delay" },
        { .name = "retry_max", .type = BW_PARAM_DURATION, .default_value = "5min",
          .min = 0.01, .max = 86400, .unit = "s", .help = "longest retry delay" },
        { .name = "spool_dir", .type = BW_PARAM_STRING, .default_value = "",
          .help = "where unsent runs wait; empty: remote-write/ in state_dir" },
        { .name = "spool_max_bytes", .type = BW_PARAM_SIZE, .default_value = "64M",
          .min = 1, .max = 1e12, .unit = "bytes",
          .help = "bound of the spool; the oldest runs are dropped first" },
        { .name = NULL },
};

struct rw_config {
        char *url, *job, *instance, *spool_dir;
        char *reserve_dir; /* state_dir when the spool is in it (util/reserve.h) */
        struct sinkconf_labels labels;
        char *username, *password, *bearer;
        struct sinkconf_conn conn;   /* points into the above and opts */
        uint64_t spool_max;
};

struct rw_sink {
        struct sink base;
        struct rw_config cfg;
        struct prom_remote_write_target target;
        struct mailbox sync;   /* its lock, condition and stopping only */
        struct result **queue;     /* runs not yet spooled, oldest first */
        size_t n_queue;
        struct result *host;       /* the host's info metrics (probe "") */
        /* the worker's alone */
        struct spool *spool;
        CURL *curl;
        double retry_at, backoff;
        bool down;
        double down_logged_at;
        long refused_code;
        double refused_logged_at, spool_logged_at, memory_logged_at;
        pthread_t thread;
        bool thread_started;
        bool quit; /* under owner_lock: stop waiting for the spool */
};

/* ---- configuration ------------------------------------------------------- */

static void rw_config_done(struct rw_config *c)
{
        free(c->url);
        free(c->job);
        free(c->instance);
        free(c->spool_dir);
        free(c->reserve_dir);
        sinkconf_labels_done(&c->labels);
        free(c->username);
        secret_free(c->password);
        secret_free(c->bearer);
        memset(c, 0, sizeof(*c));
}

static int dup_opt(const struct param_set *o, const char *name, char **ret)
{
        const char *v = sinkconf_opt(o, name)->s;

        *ret = strdup(v ? v : "");
        return *ret ? 0 : -ENOMEM;
}

static int parse_secrets(const struct param_set *o, struct rw_config *c,
                         char **ret_error)
{
        const char *pw = sinkconf_opt(o, "password_file")->s;
        const char *tok = sinkconf_opt(o, "bearer_token_file")->s;
        int r = 0;

        if (pw && *pw && tok && *tok) {
                *ret_error = strdup("password_file and bearer_token_file "
                                    "exclude each other");
                return -EINVAL;
        }
        if (pw && *pw)
                r = sinkconf_read_secret("password_file", pw, &c->password, ret_error);
        if (r >= 0 && tok && *tok)
                r = sinkconf_read_secret("bearer_token_file", tok, &c->bearer, ret_error);
        return r;
}

static int parse_spool(const struct param_set *o, const struct sink_env *env,
                       struct rw_config *c, char **ret_error)
{
        const char *dir = sinkconf_opt(o, "spool_dir")->s;

        c->spool_max = (uint64_t)sinkconf_opt(o, "spool_max_bytes")->i;
        if (dir && *dir)
                c->spool_dir = strdup(dir);
        else if (env->state_dir && *env->state_dir) {
                c->spool_dir = str_printf("%s/remote-write", env->state_dir);
                c->reserve_dir = strdup(env->state_dir);
                if (!c->reserve_dir)
                        return -ENOMEM;
        } else {
                *ret_error = strdup("spool_dir must be set");
                return -EINVAL;
        }
        return c->spool_dir ? 0 : -ENOMEM;
}

static void set_http(const struct param_set *o, struct rw_config *c)
{
        sinkconf_conn_parse(o, &c->conn);
        c->conn.http.username = c->username;
        c->conn.http.password = c->password;
        c->conn.http.bearer = c->bearer;
        c->conn.http.answer_max = ANSWER_LOGGED;
}

static int rw_config_parse(const struct param_set *o, const struct sink_env *env,
                           struct rw_config *c, char **ret_error)
{
        const char *inst = sinkconf_opt(o, "instance")->s;
        int r;

        memset(c, 0, sizeof(*c));
        r = dup_opt(o, "url", &c->url);
        if (r >= 0)
                r = dup_opt(o, "job", &c->job);
        if (r >= 0)
                r = dup_opt(o, "username", &c->username);
        if (r >= 0)
                r = inst && *inst ? dup_opt(o, "instance", &c->instance)
                                  : sinkconf_host_name(&c->instance);
        if (r >= 0)
                r = sinkconf_labels_parse(sinkconf_opt(o, "labels")->s, &c->labels, ret_error);
        if (r >= 0)
                r = parse_secrets(o, c, ret_error);
        if (r >= 0)
                r = parse_spool(o, env, c, ret_error);
        if (r < 0) {
                rw_config_done(c);
                return r;
        }
        set_http(o, c);
        return 0;
}

/* ---- the daemon's own figures ---------------------------------------------- */

static void count(const struct rw_sink *p, const char *name, double n)
{
        static const struct { const char *name, *help; } helps[] = {
                { RW_SENT_TOTAL, "Runs the remote-write receiver accepted." },
                { RW_FAILED_TOTAL, "Remote-write requests that failed (retried "
                                   "or dropped)." },
                { RW_DROPPED_TOTAL, "Runs never sent by remote write: refused by "
                                    "the receiver, unreadable, or pushed out of "
                                    "the full spool." },
        };
        for (size_t i = 0; i < sizeof(helps) / sizeof(*helps); i++)
                if (!strcmp(helps[i].name, name))
                        (void)sink_health_count(p->base.health, name, helps[i].help, n);
}

static void update_spool_gauges(const struct rw_sink *p)
{
        (void)sink_health_gauge(p->base.health, RW_SPOOL_BYTES, "Bytes of runs waiting in "
                                "the remote-write spool.", (double)spool_bytes(p->spool));
        (void)sink_health_gauge(p->base.health, RW_SPOOL_RUNS, "Runs waiting in the "
                                "remote-write spool.", (double)spool_count(p->spool));
}

/* ---- spooling ------------------------------------------------------------ */

static void note_spool_drops(struct rw_sink *p, size_t dropped)
{
        double now = now_mono();

        if (!dropped)
                return;
        count(p, RW_DROPPED_TOTAL, (double)dropped);
        if (p->spool_logged_at && now - p->spool_logged_at < RELOG_INTERVAL)
                return;
        p->spool_logged_at = now;
        log_warning("remote_write: spool '%s' full (spool_max_bytes = %" PRIu64
                    "): dropped the %zu oldest unsent run(s)", p->cfg.spool_dir,
                    p->cfg.spool_max, dropped);
}

/* Worker: encode a run (with the host's info metrics) and append it to
 * the spool. */
static void spool_run(struct rw_sink *p, const struct result *r)
{
        uint8_t *body = NULL;
        size_t len = 0, dropped = 0, series = 0;
        pthread_mutex_lock(&p->sync.lock);
        int e = prom_remote_write_encode(r, p->host, &p->target, &body, &len, &series);
        pthread_mutex_unlock(&p->sync.lock);

        if (e < 0) {
                log_warning("remote_write: cannot encode the run of probe '%s': %s",
                            r->probe, strerror(-e));
                count(p, RW_DROPPED_TOTAL, 1);
                return;
        }
        log_debug("remote_write: probe '%s': %zu series, %zu bytes", r->probe,
                  series, len);
        e = spool_add(p->spool, body, len, &dropped);
        free(body);
        if (e < 0 && (!p->memory_logged_at || now_mono() - p->memory_logged_at >= RELOG_INTERVAL)) {
                p->memory_logged_at = now_mono();
                log_warning("remote_write: cannot write run of probe '%s' to spool "
                            "'%s': %s (keeping it in memory until the disk takes it)", r->probe,
                            p->cfg.spool_dir, strerror(-e));
        }
        note_spool_drops(p, dropped);
        update_spool_gauges(p);
}

static void sinks_add(int delta)
{
        pthread_mutex_lock(&owner_lock);
        n_sinks = (unsigned)((int)n_sinks + delta);
        pthread_mutex_unlock(&owner_lock);
}

/* Worker: the spool once this worker owns it (false: told to quit before
 * that).  A directory that cannot be read leaves a spool in memory. */
static bool take_spool(struct rw_sink *p)
{
        struct spool *held = NULL;
        int r;

        pthread_mutex_lock(&owner_lock);
        while (owned && !p->quit)
                pthread_cond_wait(&owner_cond, &owner_lock);
        /* told to quit, it still takes what the last owner handed over
         * when no other sink will: to its spool's disk, or lost with a word */
        bool take = !owned && (!p->quit || (handed_over && n_sinks == 1));
        if (take) {
                owned = true;
                held = handed_over;
                handed_over = NULL;
        }
        pthread_mutex_unlock(&owner_lock);
        if (!take)
                return false;
        r = spool_open(p->cfg.spool_dir, p->cfg.spool_max, &p->spool);
        if (r < 0) {
                log_error("remote_write: cannot read spool '%s': %s (runs are kept "
                          "in memory only)", p->cfg.spool_dir, strerror(-r));
                if (spool_open_memory(p->cfg.spool_max, &p->spool) < 0)
                        abort(); /* a few bytes at start */
        }
        if (spool_set_reserve(p->spool, p->cfg.reserve_dir) < 0)
                abort(); /* a few bytes at start */
        note_spool_drops(p, spool_trim(p->spool));
        if (held) {
                size_t dropped = 0, n = spool_add_held(p->spool, held, &dropped);
                log_notice("remote_write: took %zu unsent run(s) the last configuration "
                           "held in memory, after those in spool '%s'", n, p->cfg.spool_dir);
                note_spool_drops(p, dropped);
                spool_free(held);
        }
        if (spool_count(p->spool))
                log_info("remote_write: %zu unsent run(s) in spool '%s', "
                         "sending them first", spool_count(p->spool), p->cfg.spool_dir);
        update_spool_gauges(p);
        return true;
}

/* Worker, done: the spool directory to the next worker, with the runs
 * held in memory when there will be one (a reload's new sink).  What the
 * disk would not take before gets its last chance first (such runs were
 * once said to stay in the spool, and were freed). */
static void release_spool(struct rw_sink *p)
{
        size_t in_memory = spool_persist(p->spool);
        size_t on_disk = spool_count(p->spool) - in_memory;
        bool next = false, reload;

        pthread_mutex_lock(&owner_lock);
        reload = n_sinks > 1;
        /* said before the next worker may take the spool and say so */
        if (on_disk)
                log_notice("remote_write: %zu unsent run(s) stay in spool '%s' for %s",
                           on_disk, p->cfg.spool_dir, reload ?
                           "the reloaded configuration's sink where it keeps this "
                           "spool, else the next start" : "the next start");
        if (in_memory && reload && !handed_over) {
                handed_over = p->spool;
                p->spool = NULL;
                next = true;
        }
        owned = false;
        pthread_cond_broadcast(&owner_cond);
        pthread_mutex_unlock(&owner_lock);
        if (next) {
                log_notice("remote_write: %zu unsent run(s) held in memory go to the "
                           "new configuration (spool '%s' would not take them)",
                           in_memory, p->cfg.spool_dir);
        } else if (in_memory) {
                count(p, RW_DROPPED_TOTAL, (double)in_memory);
                log_warning("remote_write: %zu unsent run(s) held in memory are lost: "
                            "spool '%s' would not take them", in_memory, p->cfg.spool_dir);
        }
        spool_free(p->spool);
        p->spool = NULL;
}

/* ---- sending ---------------------------------------------------------------- */

enum outcome { SENT, DROPPED, RETRY };

static const char *const rw_headers[] = {
        "Content-Encoding: snappy",
        "Content-Type: application/x-protobuf",
        "X-Prometheus-Remote-Write-Version: 0.1.0",
        NULL,
};

static bool retryable(int r, long status)
{
        return r == -ENOMEM || status == 0 || status == 429 || status >= 500;
}

static void on_sent(struct rw_sink *p)
{
        sink_health_ok(p->base.health, "remote_write");
        if (p->down)
                log_info("remote_write: %s answers again; sending the %zu "
                         "spooled run(s)", p->cfg.url, spool_count(p->spool));
        p->down = false;
        p->backoff = 0;
        p->retry_at = 0;
        count(p, RW_SENT_TOTAL, 1);
}

static void on_retry(struct rw_sink *p, const struct httpc_reply *rep)
{
        double now = now_mono();

        sink_health_error(p->base.health, "remote_write", "cannot send to %s: %s", p->cfg.url,
                          rep->error ? rep->error : strerror(ENOMEM));
        if (!p->down || now - p->down_logged_at >= RELOG_INTERVAL) {
                p->down_logged_at = now;
                log_warning("remote_write: cannot send to %s: %s (%zu run(s) "
                            "spooled in '%s', retrying with backoff)", p->cfg.url,
                            rep->error ? rep->error : strerror(ENOMEM),
                            spool_count(p->spool), p->cfg.spool_dir);
        }
        p->down = true;
        p->backoff = sinkconf_conn_backoff(&p->cfg.conn, p->backoff);
        if (rep->retry_after > 0) /* the receiver knows best, within reason */
                p->backoff = rep->retry_after < p->cfg.conn.retry_max ?
                             rep->retry_after : p->cfg.conn.retry_max;
        p->retry_at = now + p->backoff;
}

static void on_refused(struct rw_sink *p, const struct httpc_reply *rep)
{
        double now = now_mono();

        sink_health_error(p->base.health, "remote_write", "%s refused a run: %s", p->cfg.url,
                          rep->error ? rep->error : "?");
        if (rep->status != p->refused_code ||
            now - p->refused_logged_at >= RELOG_INTERVAL) {
                p->refused_logged_at = now;
                log_warning("remote_write: %s refused a run: %s (dropped it; "
                            "a refusal is not retried)", p->cfg.url,
                            rep->error ? rep->error : "?");
        } else {
                log_debug("remote_write: %s refused a run again: HTTP %ld",
                          p->cfg.url, rep->status);
        }
        p->refused_code = rep->status;
        p->down = false;
        count(p, RW_DROPPED_TOTAL, 1);
}

/* Worker: one attempt at the oldest spooled run. */
static enum outcome send_oldest(struct rw_sink *p, long timeout_ms)
{
        struct httpc_opts o = p->cfg.conn.http;
        struct httpc_reply rep = { .status = 0 };
        enum outcome out;
        uint8_t *body = NULL;
        size_t len = 0;
        int r;

        if (spool_count(p->spool) == 0)
                return SENT;
        /* -ENOENT here is a file removed behind our back, not an empty spool */
        r = spool_peek(p->spool, &body, &len);
        if (r < 0 && r != -ENOMEM) {
                log_warning("remote_write: cannot read the oldest run in spool "
                            "'%s': %s (dropping it)", p->cfg.spool_dir, strerror(-r));
                count(p, RW_DROPPED_TOTAL, 1);
                out = DROPPED;
        } else {
                o.timeout_ms = timeout_ms;
                if (r >= 0)
                        r = httpc_request(p->curl, &o, "POST", p->cfg.url, rw_headers,
                                          body, len, &rep);
                if (r >= 0)
                        on_sent(p);
                else if (retryable(r, rep.status))
                        on_retry(p, &rep);
                else
                        on_refused(p, &rep);
                if (r < 0)
                        count(p, RW_FAILED_TOTAL, 1);
                out = r >= 0 ? SENT : retryable(r, rep.status) ? RETRY : DROPPED;
        }
        free(body);
        free(rep.error);
        if (out != RETRY)
                (void)spool_pop(p->spool);
        update_spool_gauges(p);
        return out;
}

/* Worker, at stop: what the receiver takes within `timeout`. */
static void last_attempt(struct rw_sink *p)
{
        double deadline = now_mono() + (double)p->cfg.conn.http.timeout_ms / 1000;

        while (spool_count(p->spool) > 0) {
                double left = deadline - now_mono();
                if (left < 0.001 || send_oldest(p, (long)(left * 1000)) == RETRY)
                        break;
        }
}

/* With the lock held: the oldest queued run (the caller frees it). */
static struct result *dequeue(struct rw_sink *p)
{
        struct result *r = p->queue[0];

        memmove(&p->queue[0], &p->queue[1], (p->n_queue - 1) * sizeof(*p->queue));
        p->n_queue--;
        return r;
}

static void *rw_worker(void *arg)
{
        struct rw_sink *p = arg;
        struct mailbox *l = &p->sync;

        if (!take_spool(p))
                return NULL; /* freed before it got the spool: a failed reload */
        pthread_mutex_lock(&l->lock);
        for (;;) {
                if (p->n_queue) {
                        struct result *r = dequeue(p);
                        pthread_mutex_unlock(&l->lock);
                        spool_run(p, r);
                        result_free(r);
                        pthread_mutex_lock(&l->lock);
                        continue;
                }
                if (l->stopping)
                        break;
                if (spool_count(p->spool) == 0 || p->retry_at > now_mono()) {
                        mailbox_wait_once(l, spool_count(p->spool) ? p->retry_at : 0);
                        continue;
                }
                pthread_mutex_unlock(&l->lock);
                send_oldest(p, p->cfg.conn.http.timeout_ms);
                pthread_mutex_lock(&l->lock);
        }
        pthread_mutex_unlock(&l->lock);
        last_attempt(p);
        release_spool(p);
        return NULL;
}

/* ---- the sink ------------------------------------------------------------ */

/* With the lock held: r (taken) after the queued runs. */
static int enqueue(struct rw_sink *p, struct result *r)
{
        struct result **q = realloc(p->queue, (p->n_queue + 1) * sizeof(*q));
        if (!q) {
                result_free(r);
                return -ENOMEM;
        }
        p->queue = q;
        p->queue[p->n_queue++] = r;
        pthread_cond_signal(&p->sync.cond);
        return 0;
}

/* The host's info metrics (probe "") are kept, not sent alone: they go in
 * every run's request, at the run's time, so that a query's lookback
 * always finds benchwatch_host_info beside the figures it joins with. */
static int keep_host(struct rw_sink *p, const struct result *r)
{
        struct result *copy = result_copy(r);
        if (!copy)
                return -ENOMEM;
        pthread_mutex_lock(&p->sync.lock);
        result_free(p->host);
        p->host = copy;
        pthread_mutex_unlock(&p->sync.lock);
        return 0;
}

static int rw_publish(struct sink *s, const struct result *r)
{
        struct rw_sink *p = (struct rw_sink *)s;
        struct result *copy;
        int ret;

        copy = result_copy(r);
        if (!copy)
                return -ENOMEM;
        pthread_mutex_lock(&p->sync.lock);
        ret = enqueue(p, copy);
        pthread_mutex_unlock(&p->sync.lock);
        return ret;
}

/* A probe's state between its runs (a deferral, a reload's hand-over) is
 * no sample of a run: only the host's figures are news here, kept for the
 * runs this sink sends. */
static int rw_show(struct sink *s, const struct result *r)
{
        return *r->probe ? 0 : keep_host((struct rw_sink *)s, r);
}

static void rw_free(struct sink *s)
{
        struct rw_sink *p = (struct rw_sink *)s;

        if (!p)
                return;
        if (p->thread_started) {
                pthread_mutex_lock(&owner_lock);
                p->quit = true;
                pthread_cond_broadcast(&owner_cond);
                pthread_mutex_unlock(&owner_lock);
                mailbox_finish(&p->sync, p->thread);
                sinks_add(-1);
        }
        for (size_t i = 0; i < p->n_queue; i++)
                result_free(p->queue[i]);
        free(p->queue);
        result_free(p->host);
        spool_free(p->spool);
        httpc_close(p->curl);
        rw_config_done(&p->cfg);
        free(p);
}

static void init_counters(const struct rw_sink *p)
{
        count(p, RW_SENT_TOTAL, 0);
        count(p, RW_FAILED_TOTAL, 0);
        count(p, RW_DROPPED_TOTAL, 0);
}

static int rw_start(struct rw_sink *p, const struct param_set *opts,
                    const struct sink_env *env, char **ret_error)
{
        int r = rw_config_parse(opts, env, &p->cfg, ret_error);

        if (r < 0)
                return r;
        p->target = (struct prom_remote_write_target){
                .job = p->cfg.job, .instance = p->cfg.instance,
                .label_names = (const char *const *)p->cfg.labels.names,
                .label_values = (const char *const *)p->cfg.labels.values,
                .n_labels = p->cfg.labels.n,
        };
        r = (p->curl = httpc_open(ret_error)) ? 0 : -ELIBACC;
        if (r >= 0 && (r = spool_check_dir(p->cfg.spool_dir)) < 0)
                *ret_error = sinkconf_errorf("cannot use spool_dir '%s': %s",
                                             p->cfg.spool_dir, strerror(-r));
        if (r >= 0) {
                sinks_add(1); /* before its worker looks */
                r = mailbox_start(&p->sync, &p->thread, rw_worker, p);
                if (r < 0)
                        sinks_add(-1);
        }
        p->thread_started = r >= 0;
        return r;
}

static int rw_check(const struct param_set *opts, const struct sink_env *env,
                    char **ret_error)
{
        struct rw_config c;
        struct param_set *o = NULL;
        int r = sinkconf_url_given(opts, ret_error);
        if (r <= 0)
                return r; /* 0: no receiver configured, off */
        r = sinkconf_without_secrets(opts, &o);
        if (r >= 0)
                r = rw_config_parse(o, env, &c, ret_error);
        if (r >= 0)
                rw_config_done(&c);
        param_set_free(o);
        return r;
}

static int rw_create(const struct param_set *opts, const struct sink_env *env,
                     struct sink **ret, char **ret_error)
{
        struct rw_sink *p;
        int r = sinkconf_url_given(opts, ret_error);

        if (r <= 0)
                return r; /* 0: no receiver configured, off */
        p = calloc(1, sizeof(*p));
        if (!p)
                return -ENOMEM;
        p->base.name = "remote_write";
        p->base.publish = rw_publish;
        p->base.show = rw_show;
        p->base.free = rw_free;
        p->base.health = env->health;
        init_counters(p);
        r = rw_start(p, opts, env, ret_error);
        if (r < 0) {
                rw_free(&p->base);
                return r;
        }
        *ret = &p->base;
        return 0;
}

const struct sink_type sink_remote_write_type = {
        .section = "remote_write",
        .options = remote_write_options,
        .default_on = false,
        .create = rw_create,
        .check = rw_check,
};
