/* selfstats.c — see selfstats.h.  One result under one mutex: the figures
 * are few and change once per request at most. */
#include "sink/selfstats.h"

#include <errno.h>
#include <pthread.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct result *stats;

/* With the lock held: the sample of `name`, created at 0. */
static struct sample *sample_of(const char *name, const char *help,
                                enum metric_type type)
{
        const struct family *f;

        if (!stats && !(stats = result_new("", "benchwatch")))
                return NULL;
        stats->success = true;
        f = result_find(stats, name);
        if (!f && result_add(stats, name, help, type, NULL, 0, NULL) < 0)
                return NULL;
        f = result_find(stats, name);
        return f->type == type && f->n_samples ? &f->samples[0] : NULL;
}

static int update(const char *name, const char *help, enum metric_type type,
                  double v)
{
        struct sample *s;
        int r = 0;

        pthread_mutex_lock(&lock);
        s = sample_of(name, help, type);
        if (s && type == METRIC_COUNTER)
                s->value += v;
        else if (s)
                s->value = v;
        else
                r = stats && result_find(stats, name) ? -EINVAL : -ENOMEM;
        pthread_mutex_unlock(&lock);
        return r;
}

int selfstats_add(const char *name, const char *help, double delta)
{
        return update(name, help, METRIC_COUNTER, delta);
}

int selfstats_set(const char *name, const char *help, double value)
{
        return update(name, help, METRIC_GAUGE, value);
}

struct result *selfstats_snapshot(void)
{
        struct result *copy = NULL;

        pthread_mutex_lock(&lock);
        if (stats && stats->n_families)
                copy = result_copy(stats);
        pthread_mutex_unlock(&lock);
        return copy;
}
