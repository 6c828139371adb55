/* sink_pushgateway.c — [pushgateway] (see sink_pushgateway.h).
 *
 * The gateway may be down, slow or refuse a push for hours; the daemon must
 * neither stall nor lose a probe's figures meanwhile.  So publish() only
 * stores the result as the probe's latest (mailbox.h), and one worker
 * thread PUTs what is pending: each probe has its own exponential backoff,
 * its failure is logged once (again only when the error changes or after
 * ten minutes), and the first successful push makes every probe that failed
 * on the way to the gateway try again at once, so the latest result of
 * every probe arrives as soon as the gateway is back.  The daemon's sink
 * also deletes the groups its configuration no longer has (a probe
 * removed, instance or labels changed: pg_ledger.h), with the same
 * backoff. */
#include "sink/sink_pushgateway.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


#include "core/log.h"
#include "encode/prom_proto.h"
#include "encode/prom_text.h"
#include "sink/httpc.h"
#include "sink/mailbox.h"
#include "sink/pg_ledger.h"
#include "sink/sinkconf.h"
#include "util/secret.h"
#include "util/strutil.h"
#include "util/timeutil.h"

static const char *const format_names[] = { "protobuf", "text", NULL };

static const struct bw_param_def pushgateway_options[] = {
        { .name = "enabled", .type = BW_PARAM_BOOL, .default_value = "yes",
          .help = "push results (needs url)" },
        { .name = "url", .type = BW_PARAM_STRING, .default_value = "",
          .help = "the Pushgateway, e.g. http://pushgateway:9091; empty: off" },
        { .name = "format", .type = BW_PARAM_ENUM, .default_value = "protobuf",
          .choices = format_names, .help = "delimited protobuf, or text 0.0.4" },
        { .name = "labels", .type = BW_PARAM_STRING, .default_value = "",
          .help = "extra grouping labels: name=value,name=value" },
        { .name = "instance", .type = BW_PARAM_STRING, .default_value = "",
          .help = "the instance grouping label; empty: the host name" },
        { .name = "username", .type = BW_PARAM_STRING, .default_value = "",
          .help = "HTTP basic auth user" },
        { .name = "password_file", .type = BW_PARAM_STRING, .default_value = "",
          .help = "file holding the basic auth password" },
        { .name = "ca_file", .type = BW_PARAM_STRING, .default_value = "",
          .help = "CA certificates to verify the gateway with (PEM)" },
        { .name = "cert_file", .type = BW_PARAM_STRING, .default_value = "",
          .help = "client certificate (PEM)" },
        { .name = "key_file", .type = BW_PARAM_STRING, .default_value = "",
          .help = "client certificate's key (PEM)" },
        { .name = "insecure", .type = BW_PARAM_BOOL, .default_value = "no",
          .help = "do not verify the gateway's certificate" },
        { .name = "connect_timeout", .type = BW_PARAM_DURATION, .default_value = "5s",
          .min = 0.001, .max = 600, .unit = "s", .help = "connection timeout" },
        { .name = "timeout", .type = BW_PARAM_DURATION, .default_value = "15s",
          .min = 0.001, .max = 3600, .unit = "s", .help = "whole request timeout" },
        { .name = "retry_min", .type = BW_PARAM_DURATION, .default_value = "1s",
          .min = 0.01, .max = 3600, .unit = "s", .help = "first retry delay" },
        { .name = "retry_max", .type = BW_PARAM_DURATION, .default_value = "2min",
          .min = 0.01, .max = 86400, .unit = "s", .help = "longest retry delay" },
        { .name = NULL },
};

struct pg_config {
        char *url; /* without a trailing '/' */
        bool text;
        struct sinkconf_labels labels;
        char *instance;
        char *username, *password;
        struct sinkconf_conn conn;
};

static void pg_config_done(struct pg_config *c)
{
        sinkconf_labels_done(&c->labels);
        free(c->url);
        free(c->instance);
        free(c->username);
        secret_free(c->password);
        memset(c, 0, sizeof(*c));
}

static int pg_config_parse(const struct param_set *o, struct pg_config *c,
                           char **ret_error)
{
        const char *url = sinkconf_opt(o, "url")->s, *inst = sinkconf_opt(o, "instance")->s;
        const char *pwfile = sinkconf_opt(o, "password_file")->s;
        int r;

        memset(c, 0, sizeof(*c));
        c->url = strdup(url ? url : "");
        if (!c->url)
                return -ENOMEM;
        for (size_t n = strlen(c->url); n > 0 && c->url[n - 1] == '/'; n--)
                c->url[n - 1] = 0;
        c->text = sinkconf_opt(o, "format")->i == 1;
        sinkconf_conn_parse(o, &c->conn);
        c->username = strdup(sinkconf_opt(o, "username")->s ? sinkconf_opt(o, "username")->s : "");
        r = c->username ? sinkconf_labels_parse(sinkconf_opt(o, "labels")->s, &c->labels, ret_error)
                        : -ENOMEM;
        if (r >= 0)
                r = inst && *inst ? ((c->instance = strdup(inst)) ? 0 : -ENOMEM)
                                  : sinkconf_host_name(&c->instance);
        if (r >= 0 && pwfile && *pwfile)
                r = sinkconf_read_secret("password_file", pwfile, &c->password, ret_error);
        if (r < 0)
                pg_config_done(c);
        return r;
}

/* ---- the grouping key ------------------------------------------------------ */

static void put_base64url(FILE *f, const char *s)
{
        static const char a[] =
                "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
        const unsigned char *p = (const unsigned char *)s;
        size_t n = strlen(s);

        if (n == 0) {
                fputc('=', f); /* the Pushgateway's spelling of "" */
                return;
        }
        for (; n >= 3; p += 3, n -= 3)
                fprintf(f, "%c%c%c%c", a[p[0] >> 2], a[((p[0] & 3) << 4) | (p[1] >> 4)],
                        a[((p[1] & 15) << 2) | (p[2] >> 6)], a[p[2] & 63]);
        if (n == 1)
                fprintf(f, "%c%c==", a[p[0] >> 2], a[(p[0] & 3) << 4]);
        else if (n == 2)
                fprintf(f, "%c%c%c=", a[p[0] >> 2], a[((p[0] & 3) << 4) | (p[1] >> 4)],
                        a[(p[1] & 15) << 2]);
}

static void put_segment(FILE *f, const char *name, const char *value)
{
        if (!*value || strchr(value, '/')) {
                fprintf(f, "/%s@base64/", name);
                put_base64url(f, value);
                return;
        }
        fprintf(f, "/%s/", name);
        for (const unsigned char *p = (const unsigned char *)value; *p; p++) {
                if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                    (*p >= '0' && *p <= '9') || strchr("-._~", *p))
                        fputc(*p, f);
                else
                        fprintf(f, "%%%02X", *p);
        }
}

static int group_url(const struct pg_config *c, const char *probe, char **ret)
{
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);

        if (!f)
                return -ENOMEM;
        fputs(c->url, f);
        fputs("/metrics/job/benchwatch", f);
        put_segment(f, "instance", c->instance);
        if (*probe) /* "": the host's info metrics, a group of their own */
                put_segment(f, "probe", probe);
        for (size_t i = 0; i < c->labels.n; i++)
                put_segment(f, c->labels.names[i], c->labels.values[i]);
        if (ferror(f) | fclose(f)) {
                free(buf);
                return -ENOMEM;
        }
        *ret = buf;
        return 0;
}

int sink_pushgateway_group_url(const struct param_set *opts, const char *probe,
                               char **ret, char **ret_error)
{
        struct pg_config c;
        int r = pg_config_parse(opts, &c, ret_error);

        if (r < 0)
                return r;
        r = group_url(&c, probe, ret);
        pg_config_done(&c);
        return r;
}

/* ---- one HTTP request ----------------------------------------------------- */

/* method "PUT" with a body or "DELETE". 0 on a 2xx answer; otherwise -errno,
 * *ret_status (0 when no answer came) and *ret_error saying why. */
/* timeout_ms: at most this long (0: the configured timeout). */
static int http_request(CURL *h, const struct pg_config *c, const char *method,
                        const char *url, const void *body, size_t len, long timeout_ms,
                        long *ret_status, char **ret_error)
{
        struct httpc_opts o = c->conn.http;
        if (timeout_ms > 0 && timeout_ms < o.timeout_ms)
                o.timeout_ms = timeout_ms;
        o.username = c->username;
        o.password = c->password;
        const char *const headers[] = { c->text ?
                "Content-Type: text/plain; version=0.0.4; charset=utf-8" :
                "Content-Type: " PROM_PROTO_CONTENT_TYPE, NULL };
        struct httpc_reply reply;
        int r = httpc_request(h, &o, method, url, body ? headers : NULL, body,
                              len, &reply);

        *ret_status = reply.status;
        if (r < 0)
                *ret_error = reply.error;
        else
                free(reply.error);
        return r;
}

/* ---- the sink ------------------------------------------------------------ */

struct pg_slot {              /* worker-only state of one probe */
        double retry_at;      /* CLOCK_MONOTONIC; 0: now */
        double backoff;
        bool failing;
        long code;            /* HTTP status of the last failure */
        double logged_at;
};

struct pg_sink {
        struct sink base;
        struct pg_config cfg;
        struct mailbox latest;
        struct pg_slot *slots;
        size_t n_slots, rr;
        bool down;            /* the last attempt got no answer */
        bool repush_all;      /* the gateway is back: it may have lost all */
        double stop_deadline; /* stopping: the last round ends then (0: not yet) */
        double down_logged_at;
        /* the daemon's: its configuration's groups, kept in ledger_dir's
         * list once the sink is in use (ledger_due), and the stale groups
         * there to delete */
        char **groups;
        size_t n_groups;
        char *ledger_dir;
        bool ledger_due;
        struct pg_ledger ledger;
        struct pg_slot stale; /* the deletions' backoff */
        CURL *curl;
        pthread_t thread;
        bool thread_started;
};

#define RELOG_INTERVAL 600.0

/* With the lock held: one slot per probe the store knows. */
static int ensure_slots(struct pg_sink *p)
{
        size_t n = p->latest.n;
        struct pg_slot *s;

        if (n <= p->n_slots)
                return 0;
        s = realloc(p->slots, n * sizeof(*s));
        if (!s)
                return -ENOMEM;
        memset(&s[p->n_slots], 0, (n - p->n_slots) * sizeof(*s));
        p->slots = s;
        p->n_slots = n;
        return 0;
}

/* With the lock held: a dirty probe due now (round robin), else -1 and
 * *next_at = the earliest retry time of a waiting one (0: none).  When
 * stopping, only probes that did not fail get their last chance. */
static int choose(struct pg_sink *p, double now, double *next_at)
{
        struct mailbox *l = &p->latest;

        *next_at = 0;
        for (size_t k = 0; k < p->n_slots; k++) {
                size_t i = (p->rr + k) % p->n_slots;
                const struct pg_slot *s = &p->slots[i];
                if (!l->dirty[i] || (l->stopping && s->failing))
                        continue;
                if (l->stopping || s->retry_at <= now) {
                        p->rr = i + 1;
                        return (int)i;
                }
                if (*next_at == 0 || s->retry_at < *next_at)
                        *next_at = s->retry_at;
        }
        return -1;
}

/* With the lock held: the body to push for slot i; marks it delivered. */
static int take(struct pg_sink *p, size_t i, char **ret_probe, void **ret_body,
                size_t *ret_len)
{
        const struct result *r = p->latest.results[i];
        int e;

        *ret_probe = strdup(r->probe);
        if (!*ret_probe)
                return -ENOMEM;
        if (p->cfg.text)
                e = prom_text_to_string(&r, 1, (char **)ret_body, ret_len);
        else
                e = prom_proto_encode(r, (uint8_t **)ret_body, ret_len);
        if (e < 0) {
                free(*ret_probe);
                return e;
        }
        p->latest.dirty[i] = false;
        return 0;
}

static void on_success(struct pg_sink *p, size_t i, const char *probe,
                       const char *url)
{
        struct pg_slot *s = &p->slots[i];

        sink_health_ok(p->base.health, "pushgateway");
        if (p->down)
                log_info("pushgateway: %s answers again; pushing the latest "
                         "result of every probe", p->cfg.url);
        else if (s->failing)
                log_info("pushgateway: probe '%s' pushed to %s again", probe, url);
        else
                log_debug("pushgateway: pushed probe '%s' to %s", probe, url);
        /* The gateway is there: whoever failed for want of it goes now,
         * and, as a restarted gateway without persistence forgot every
         * group, every probe's latest result is pushed again. */
        for (size_t k = 0; p->down && k < p->n_slots; k++)
                if (p->slots[k].failing && p->slots[k].code == 0)
                        p->slots[k].retry_at = 0;
        p->repush_all |= p->down;
        p->down = false;
        memset(s, 0, sizeof(*s));
}

static void on_failure(struct pg_sink *p, size_t i, const char *probe,
                       const char *url, long status, const char *err)
{
        struct pg_slot *s = &p->slots[i];
        double now = now_mono();
        bool log_it;

        sink_health_error(p->base.health, "pushgateway", "cannot push probe '%s' to %s: %s",
                          probe, url, err ? err : strerror(ENOMEM));
        if (status == 0) { /* no answer: one message for the whole gateway */
                log_it = !p->down || now - p->down_logged_at >= RELOG_INTERVAL;
                if (log_it)
                        p->down_logged_at = now;
                p->down = true;
        } else {           /* an answer: this probe's push was refused */
                log_it = !s->failing || s->code != status ||
                         now - s->logged_at >= RELOG_INTERVAL;
                if (log_it)
                        s->logged_at = now;
        }
        if (log_it)
                log_warning("pushgateway: cannot push probe '%s' to %s: %s "
                            "(keeping its latest result, retrying with backoff)",
                            probe, url, err ? err : strerror(ENOMEM));
        s->failing = true;
        s->code = status;
        s->backoff = sinkconf_conn_backoff(&p->cfg.conn, s->backoff);
        s->retry_at = now + s->backoff;
}

/* Unlocked: push one probe's body and account for the outcome. */
static int push_one(struct pg_sink *p, size_t i, const char *probe,
                    const void *body, size_t len, long timeout_ms)
{
        char *url = NULL, *err = NULL;
        long status = 0;
        int r = group_url(&p->cfg, probe, &url);

        if (r >= 0)
                r = http_request(p->curl, &p->cfg, "PUT", url, body, len, timeout_ms,
                                 &status, &err);
        if (r >= 0)
                on_success(p, i, probe, url);
        else
                on_failure(p, i, probe, url ? url : p->cfg.url, status, err);
        free(url);
        free(err);
        return r;
}

/* Unlocked: the configuration's groups into the ledger (pg_ledger.h); a
 * stale group at another gateway is left to the operator. */
static void open_ledger(struct pg_sink *p)
{
        char *here = str_printf("%s/metrics/", p->cfg.url);
        if (!here || pg_ledger_open(p->ledger_dir, (const char *const *)p->groups,
                                    p->n_groups, &p->ledger) < 0) {
                log_warning("pushgateway: out of memory: the groups of probes no longer "
                            "configured stay on the gateway");
                free(here);
                return;
        }
        for (size_t i = 0; i < p->ledger.n_stale;) {
                const char *url = p->ledger.stale[i];
                if (!strncmp(url, here, strlen(here))) {
                        i++;
                        continue;
                }
                log_notice("pushgateway: %s is at another gateway than %s: delete it there "
                           "(curl -X DELETE '%s')", url, p->cfg.url, url);
                pg_ledger_forget(&p->ledger, i);
        }
        free(here);
}

/* Unlocked: delete the first stale group (pg_ledger.h), forgetting it
 * once the gateway took the deletion; else back off as a push does. */
static void delete_stale(struct pg_sink *p)
{
        const char *url = p->ledger.stale[0];
        char *err = NULL;
        long status = 0;
        int r = http_request(p->curl, &p->cfg, "DELETE", url, NULL, 0, 0, &status, &err);
        double now = now_mono();
        if (r >= 0) {
                log_info("pushgateway: deleted %s: no probe of the configuration pushes "
                         "there any more", url);
                pg_ledger_forget(&p->ledger, 0);
                memset(&p->stale, 0, sizeof(p->stale));
        } else {
                if (!p->stale.failing || p->stale.code != status ||
                    now - p->stale.logged_at >= RELOG_INTERVAL) {
                        log_warning("pushgateway: cannot delete %s, whose probe is no longer "
                                    "configured: %s (retrying with backoff)", url,
                                    err ? err : strerror(-r));
                        p->stale.logged_at = now;
                }
                p->stale.failing = true;
                p->stale.code = status;
                p->stale.backoff = sinkconf_conn_backoff(&p->cfg.conn, p->stale.backoff);
                p->stale.retry_at = now + p->stale.backoff;
        }
        free(err);
}

static void *pg_worker(void *arg)
{
        struct pg_sink *p = arg;
        struct mailbox *l = &p->latest;

        pthread_mutex_lock(&l->lock);
        for (;;) {
                double next_at = 0, now = now_mono();
                /* the last round, at a stop or a reload, has one timeout in
                 * all, as remote write's: a probe each once had its own (4
                 * probes and a gateway that never answered: 18 s, the loop
                 * held that long by a reload, past the unit's stop timeout) */
                if (l->stopping && !p->stop_deadline)
                        p->stop_deadline = now + (double)p->cfg.conn.http.timeout_ms / 1000;
                if (l->stopping && now >= p->stop_deadline)
                        break;
                long left_ms = l->stopping ? (long)((p->stop_deadline - now) * 1000) + 1 : 0;
                /* the list read and written only by a set in use (a failed
                 * reload's never is: the groups it would call stale are
                 * live); a stop leaves the stale groups to the next start */
                if (p->ledger_due && l->n && !l->stopping) {
                        p->ledger_due = false;
                        pthread_mutex_unlock(&l->lock);
                        open_ledger(p);
                        pthread_mutex_lock(&l->lock);
                        continue;
                }
                bool stale = !l->stopping && p->ledger.n_stale;
                if (stale && p->stale.retry_at <= now) {
                        pthread_mutex_unlock(&l->lock);
                        delete_stale(p);
                        pthread_mutex_lock(&l->lock);
                        continue;
                }
                int i = ensure_slots(p) < 0 ? -1 : choose(p, now, &next_at);
                if (stale && (!next_at || p->stale.retry_at < next_at))
                        next_at = p->stale.retry_at;
                char *probe;
                void *body;
                size_t len;
                if (i < 0) {
                        if (l->stopping)
                                break;
                        mailbox_wait_once(l, next_at);
                        continue;
                }
                if (take(p, (size_t)i, &probe, &body, &len) < 0) {
                        mailbox_wait_once(l, now_mono() + 1); /* ENOMEM */
                        continue;
                }
                pthread_mutex_unlock(&l->lock);
                int r = push_one(p, (size_t)i, probe, body, len, left_ms);
                free(probe);
                free(body);
                pthread_mutex_lock(&l->lock);
                if (r < 0)
                        l->dirty[i] = true;
                for (size_t k = 0; p->repush_all && k < l->n; k++)
                        l->dirty[k] |= k != (size_t)i;
                p->repush_all = false;
        }
        pthread_mutex_unlock(&l->lock);
        return NULL;
}

static int pg_publish(struct sink *s, const struct result *r)
{
        return mailbox_put(&((struct pg_sink *)s)->latest, r);
}

static void pg_free(struct sink *s)
{
        struct pg_sink *p = (struct pg_sink *)s;

        if (!p)
                return;
        if (p->thread_started)
                mailbox_finish(&p->latest, p->thread);
        httpc_close(p->curl);
        free(p->slots);
        pg_ledger_done(&p->ledger);
        for (size_t i = 0; i < p->n_groups; i++)
                free(p->groups[i]);
        free(p->groups);
        free(p->ledger_dir);
        pg_config_done(&p->cfg);
        free(p);
}

/* The daemon's groups (the host's, every configured probe's), for the
 * ledger the worker opens once the sink is in use. */
static int take_groups(struct pg_sink *p, const struct sink_env *env)
{
        size_t n = 1;
        while (env->probes[n - 1])
                n++;
        if (!(p->groups = calloc(n, sizeof(*p->groups))) ||
            !(p->ledger_dir = strdup(env->state_dir)))
                return -ENOMEM;
        for (; p->n_groups < n; p->n_groups++) {
                size_t i = p->n_groups;
                int r = group_url(&p->cfg, i ? env->probes[i - 1] : "", &p->groups[i]);
                if (r < 0)
                        return r;
        }
        p->ledger_due = true;
        return 0;
}

static int pg_check(const struct param_set *opts, const struct sink_env *env,
                    char **ret_error)
{
        struct pg_config c;
        struct param_set *o = NULL;
        int r = sinkconf_url_given(opts, ret_error);
        (void)env; /* the gateway's options are all it needs */
        if (r <= 0)
                return r; /* 0: no gateway configured, off */
        r = sinkconf_without_secrets(opts, &o);
        if (r >= 0)
                r = pg_config_parse(o, &c, ret_error);
        if (r >= 0)
                pg_config_done(&c);
        param_set_free(o);
        return r;
}

static int pg_create(const struct param_set *opts,
                     const struct sink_env *env, struct sink **ret,
                     char **ret_error)
{
        struct pg_sink *p;
        int r = sinkconf_url_given(opts, ret_error);

        if (r <= 0)
                return r; /* 0: no gateway configured, off */
        p = calloc(1, sizeof(*p));
        if (!p)
                return -ENOMEM;
        p->base.name = "pushgateway";
        p->base.publish = pg_publish;
        p->base.free = pg_free;
        /* a reload pushes every probe again, a deferral its new counts */
        p->base.show = pg_publish;
        p->base.health = env->health;
        r = pg_config_parse(opts, &p->cfg, ret_error);
        if (r >= 0 && env->probes && env->state_dir && *env->state_dir)
                r = take_groups(p, env);
        if (r >= 0)
                r = (p->curl = httpc_open(ret_error)) ? 0 : -ELIBACC;
        if (r >= 0)
                r = mailbox_start(&p->latest, &p->thread, pg_worker, p);
        if (r < 0) {
                pg_free(&p->base);
                return r;
        }
        p->thread_started = true;
        *ret = &p->base;
        return 0;
}

const struct sink_type sink_pushgateway_type = {
        .section = "pushgateway",
        .options = pushgateway_options,
        .default_on = false,
        .create = pg_create,
        .check = pg_check,
};

int sink_pushgateway_delete(const struct param_set *opts,
                            const char *const *probes, size_t n_probes,
                            char **ret_error)
{
        struct pg_config c;
        CURL *h;
        int first = 0;
        const char *url_opt = sinkconf_opt(opts, "url")->s;
        int r = sinkconf_check_url(url_opt ? url_opt : "", ret_error);

        if (r < 0 || (r = pg_config_parse(opts, &c, ret_error)) < 0)
                return r;
        if (!(h = httpc_open(ret_error))) {
                pg_config_done(&c);
                return -ELIBACC;
        }
        for (size_t i = 0; i < n_probes; i++) {
                char *url = NULL, *err = NULL;
                long status;
                r = group_url(&c, probes[i], &url);
                if (r >= 0)
                        r = http_request(h, &c, "DELETE", url, NULL, 0, 0, &status, &err);
                if (r < 0 && first == 0) {
                        first = r;
                        *ret_error = sinkconf_errorf("cannot delete probe '%s' at %s: %s",
                                                     probes[i], url ? url : c.url,
                                                     err ? err : strerror(-r));
                }
                free(url);
                free(err);
        }
        httpc_close(h);
        pg_config_done(&c);
        return first;
}
