/* sink.c — the sink registry, the fan-out and the latest-result store
 * (see sink.h). */
#include "sink.h"

#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sink_journal.h"
#include "sink_pushgateway.h"
#include "sink_remote_write.h"
#include "sink_textfile.h"

const struct sink_type *const sink_types[] = {
        &sink_pushgateway_type,
        &sink_remote_write_type,
        &sink_journal_type,
        &sink_syslog_type,
        &sink_textfile_type,
        NULL,
};

const struct sink_type *sink_type_find(const char *section)
{
        for (size_t i = 0; sink_types[i]; i++)
                if (!strcmp(sink_types[i]->section, section))
                        return sink_types[i];
        return NULL;
}

const struct bw_param_value *sink_opt(const struct param_set *ps,
                                      const char *name)
{
        int i = param_index(ps->defs, name);

        assert(i >= 0);
        return &ps->values[i];
}

/* ---- the fan-out ------------------------------------------------------------ */

struct sink_set {
        struct sink **sinks;
        size_t n;
        struct result **latest; /* per probe, for sink_set_carry_over() */
        size_t n_latest;
};

static char *section_error(const char *section, const char *why)
{
        char *e = NULL;

        if (asprintf(&e, "[%s]: %s", section, why ? why : strerror(ENOMEM)) < 0)
                return NULL;
        return e;
}

static const struct sink_env no_env = { .state_dir = NULL };

/* Create the sink of type t, or leave *ret NULL when it is not enabled. */
static int create_one(const struct sink_type *t, const struct param_set *opts,
                      const struct sink_env *env, struct sink **ret,
                      char **ret_error)
{
        struct param_set *defaults = NULL;
        char *why = NULL;
        int r = 0;

        *ret = NULL;
        if (!opts && !t->default_on)
                return 0;
        if (!opts) {
                r = param_set_new(t->options, &defaults, &why);
                if (r < 0)
                        goto out;
                opts = defaults;
        }
        if (param_index(opts->defs, "enabled") >= 0 && !sink_opt(opts, "enabled")->b)
                goto out;
        r = t->create(opts, env ? env : &no_env, ret, &why);
out:
        if (r < 0)
                *ret_error = section_error(t->section, why);
        free(why);
        param_set_free(defaults);
        return r < 0 ? r : 0;
}

void sink_set_free(struct sink_set *set)
{
        if (!set)
                return;
        for (size_t i = 0; i < set->n; i++)
                set->sinks[i]->free(set->sinks[i]);
        for (size_t i = 0; i < set->n_latest; i++)
                result_free(set->latest[i]);
        free(set->latest);
        free(set->sinks);
        free(set);
}

/* Where journald is missing, [journal] falls back to syslog; with an
 * explicit [syslog] too, every result would be logged twice. */
static void drop_duplicate_syslog(struct sink_set *set)
{
        bool have_syslog = false;

        for (size_t i = 0; i < set->n; i++)
                have_syslog |= !strcmp(set->sinks[i]->name, "syslog");
        for (size_t i = 0; have_syslog && i < set->n; i++)
                if (sink_journal_uses_syslog(set->sinks[i])) {
                        set->sinks[i]->free(set->sinks[i]);
                        memmove(&set->sinks[i], &set->sinks[i + 1],
                                (set->n - i - 1) * sizeof(*set->sinks));
                        set->n--;
                        return;
                }
}

int sink_set_new(const struct param_set *const *opts,
                 const struct sink_env *env, struct sink_set **ret,
                 char **ret_error)
{
        size_t n_types = 0;
        struct sink_set *set;
        int r = 0;

        while (sink_types[n_types])
                n_types++;
        set = calloc(1, sizeof(*set));
        if (set)
                set->sinks = calloc(n_types, sizeof(*set->sinks));
        if (!set || !set->sinks) {
                sink_set_free(set);
                return -ENOMEM;
        }
        for (size_t i = 0; i < n_types && r >= 0; i++) {
                struct sink *s = NULL;
                r = create_one(sink_types[i], opts ? opts[i] : NULL, env, &s,
                               ret_error);
                if (s)
                        set->sinks[set->n++] = s;
        }
        if (r < 0) {
                sink_set_free(set);
                return r;
        }
        drop_duplicate_syslog(set);
        *ret = set;
        return 0;
}

/* Keep a copy of r as its probe's latest result. */
static int remember(struct sink_set *set, const struct result *r)
{
        struct result *copy = result_copy(r), **nl;
        size_t i = 0;

        if (!copy)
                return -ENOMEM;
        while (i < set->n_latest && strcmp(set->latest[i]->probe, r->probe))
                i++;
        if (i == set->n_latest) {
                nl = realloc(set->latest, (i + 1) * sizeof(*nl));
                if (!nl) {
                        result_free(copy);
                        return -ENOMEM;
                }
                set->latest = nl;
                set->latest[set->n_latest++] = NULL;
        }
        result_free(set->latest[i]);
        set->latest[i] = copy;
        return 0;
}

int sink_set_carry_over(struct sink_set *to, const struct sink_set *from)
{
        int first = 0;

        for (size_t i = 0; to && from && i < from->n_latest; i++) {
                int r = remember(to, from->latest[i]);
                for (size_t k = 0; k < to->n && r >= 0; k++)
                        if (to->sinks[k]->seed)
                                r = to->sinks[k]->seed(to->sinks[k], from->latest[i]);
                if (r < 0 && first == 0)
                        first = r;
        }
        return first;
}

int sink_set_publish(struct sink_set *set, const struct result *res)
{
        int first = set ? remember(set, res) : 0;

        for (size_t i = 0; set && i < set->n; i++) {
                int r = set->sinks[i]->publish(set->sinks[i], res);
                if (r < 0 && first == 0)
                        first = r;
        }
        return first;
}

size_t sink_set_count(const struct sink_set *set)
{
        return set ? set->n : 0;
}

/* ---- latest result per probe --------------------------------------------- */

int sink_latest_init(struct sink_latest *l)
{
        pthread_condattr_t attr;
        int r;

        memset(l, 0, sizeof(*l));
        r = pthread_condattr_init(&attr);
        if (r)
                return -r;
        r = pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
        if (!r)
                r = pthread_cond_init(&l->cond, &attr);
        pthread_condattr_destroy(&attr);
        if (r)
                return -r;
        r = pthread_mutex_init(&l->lock, NULL);
        if (r) {
                pthread_cond_destroy(&l->cond);
                return -r;
        }
        return 0;
}

void sink_latest_done(struct sink_latest *l)
{
        for (size_t i = 0; i < l->n; i++)
                result_free(l->results[i]);
        free(l->results);
        free(l->dirty);
        pthread_mutex_destroy(&l->lock);
        pthread_cond_destroy(&l->cond);
}

/* With the lock held: the slot of `probe`, appended when new. */
static int slot_of(struct sink_latest *l, const char *probe)
{
        for (size_t i = 0; i < l->n; i++)
                if (l->results[i] && !strcmp(l->results[i]->probe, probe))
                        return (int)i;
        struct result **nr = realloc(l->results, (l->n + 1) * sizeof(*nr));
        if (!nr)
                return -ENOMEM;
        l->results = nr;
        bool *nd = realloc(l->dirty, (l->n + 1) * sizeof(*nd));
        if (!nd)
                return -ENOMEM;
        l->dirty = nd;
        l->results[l->n] = NULL;
        l->dirty[l->n] = false;
        return (int)l->n++;
}

int sink_latest_put(struct sink_latest *l, const struct result *r)
{
        struct result *copy = result_copy(r);
        struct result *old = NULL;
        int i;

        if (!copy)
                return -ENOMEM;
        pthread_mutex_lock(&l->lock);
        i = slot_of(l, r->probe);
        if (i >= 0) {
                old = l->results[i];
                l->results[i] = copy;
                l->dirty[i] = true;
                pthread_cond_signal(&l->cond);
        }
        pthread_mutex_unlock(&l->lock);
        result_free(i >= 0 ? old : copy);
        return i < 0 ? i : 0;
}

int sink_latest_next_dirty(const struct sink_latest *l)
{
        for (size_t i = 0; i < l->n; i++)
                if (l->dirty[i])
                        return (int)i;
        return -1;
}

void sink_latest_wait(struct sink_latest *l, double until)
{
        struct timespec ts;

        if (until > 0) {
                ts.tv_sec = (time_t)until;
                ts.tv_nsec = (long)((until - floor(until)) * 1e9);
        }
        while (!l->stopping && sink_latest_next_dirty(l) < 0) {
                if (until <= 0)
                        pthread_cond_wait(&l->cond, &l->lock);
                else if (pthread_cond_timedwait(&l->cond, &l->lock, &ts) == ETIMEDOUT)
                        return;
        }
}

void sink_latest_sleep(struct sink_latest *l, double until)
{
        struct timespec ts = { .tv_sec = (time_t)until,
                               .tv_nsec = (long)((until - floor(until)) * 1e9) };

        while (!l->stopping)
                if (pthread_cond_timedwait(&l->cond, &l->lock, &ts) == ETIMEDOUT)
                        return;
}

void sink_latest_wait_once(struct sink_latest *l, double until)
{
        struct timespec ts = { .tv_sec = (time_t)until,
                               .tv_nsec = (long)((until - floor(until)) * 1e9) };

        if (l->stopping)
                return;
        if (until > 0)
                pthread_cond_timedwait(&l->cond, &l->lock, &ts);
        else
                pthread_cond_wait(&l->cond, &l->lock);
}

void sink_latest_stop(struct sink_latest *l)
{
        pthread_mutex_lock(&l->lock);
        l->stopping = true;
        pthread_cond_broadcast(&l->cond);
        pthread_mutex_unlock(&l->lock);
}
