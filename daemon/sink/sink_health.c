/* sink_health.c — see sink_health.h.  One record under one mutex: the
 * sinks are few, and each reports once per delivery at most. */
#include "sink/sink_health.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "util/strutil.h"
#include "util/timeutil.h"

struct sink_health {
        pthread_mutex_t lock;
        unsigned refs;
        struct sink_health_entry *entries;
        size_t n;
        struct result *figures; /* probe "", created on first use */
};

int sink_health_new(struct sink_health **ret)
{
        struct sink_health *h = calloc(1, sizeof(*h));
        if (!h)
                return -ENOMEM;
        int r = pthread_mutex_init(&h->lock, NULL);
        if (r) {
                free(h);
                return -r;
        }
        h->refs = 1;
        *ret = h;
        return 0;
}

struct sink_health *sink_health_ref(struct sink_health *h)
{
        if (h) {
                pthread_mutex_lock(&h->lock);
                h->refs++;
                pthread_mutex_unlock(&h->lock);
        }
        return h;
}

void sink_health_unref(struct sink_health *h)
{
        if (!h)
                return;
        pthread_mutex_lock(&h->lock);
        unsigned left = --h->refs;
        pthread_mutex_unlock(&h->lock);
        if (left)
                return;
        sink_health_entries_free(h->entries, h->n);
        result_free(h->figures);
        pthread_mutex_destroy(&h->lock);
        free(h);
}

/* With the lock held: the entry of `sink`, created; NULL when out of
 * memory. */
static struct sink_health_entry *entry_of(struct sink_health *h, const char *sink)
{
        for (size_t i = 0; i < h->n; i++)
                if (!strcmp(h->entries[i].name, sink))
                        return &h->entries[i];
        struct sink_health_entry *grown = realloc(h->entries, (h->n + 1) * sizeof(*grown));
        if (!grown)
                return NULL;
        h->entries = grown;
        h->entries[h->n] = (struct sink_health_entry){ .name = strdup(sink) };
        return h->entries[h->n].name ? &h->entries[h->n++] : NULL;
}

void sink_health_ok(struct sink_health *h, const char *sink)
{
        if (!h)
                return;
        pthread_mutex_lock(&h->lock);
        struct sink_health_entry *e = entry_of(h, sink);
        if (e)
                e->last_ok = now_wall();
        pthread_mutex_unlock(&h->lock);
}

void sink_health_error(struct sink_health *h, const char *sink, const char *fmt, ...)
{
        if (!h)
                return;
        va_list ap;
        va_start(ap, fmt);
        char *text = str_vprintf(fmt, ap);
        va_end(ap);
        pthread_mutex_lock(&h->lock);
        struct sink_health_entry *e = entry_of(h, sink);
        if (e) {
                e->last_error = now_wall();
                free(e->error);
                e->error = text;
                text = NULL;
        }
        pthread_mutex_unlock(&h->lock);
        free(text);
}

/* With the lock held: the sample of figure `name`, created at 0. */
static struct sample *figure_of(struct sink_health *h, const char *name, const char *help,
                                enum metric_type type)
{
        if (!h->figures && !(h->figures = result_new("", "benchwatch")))
                return NULL;
        h->figures->success = true;
        const struct family *f = result_find(h->figures, name);
        if (!f && result_add(h->figures, name, help, type, NULL, 0, NULL) < 0)
                return NULL;
        f = result_find(h->figures, name);
        return f->type == type && f->n_samples ? &f->samples[0] : NULL;
}

static int update(struct sink_health *h, const char *name, const char *help,
                  enum metric_type type, double v)
{
        int r = 0;
        if (!h)
                return 0;
        pthread_mutex_lock(&h->lock);
        struct sample *s = figure_of(h, name, help, type);
        if (s && type == METRIC_COUNTER)
                s->value += v;
        else if (s)
                s->value = v;
        else
                r = h->figures && result_find(h->figures, name) ? -EINVAL : -ENOMEM;
        pthread_mutex_unlock(&h->lock);
        return r;
}

int sink_health_count(struct sink_health *h, const char *name, const char *help,
                      double delta)
{
        return update(h, name, help, METRIC_COUNTER, delta);
}

int sink_health_gauge(struct sink_health *h, const char *name, const char *help,
                      double value)
{
        return update(h, name, help, METRIC_GAUGE, value);
}

struct result *sink_health_figures(struct sink_health *h)
{
        struct result *copy = NULL;
        if (!h)
                return NULL;
        pthread_mutex_lock(&h->lock);
        if (h->figures && h->figures->n_families)
                copy = result_copy(h->figures);
        pthread_mutex_unlock(&h->lock);
        return copy;
}

int sink_health_entries(struct sink_health *h, struct sink_health_entry **ret, size_t *ret_n)
{
        struct sink_health_entry *copy = NULL;
        size_t n = 0;
        int r = 0;
        if (h)
                pthread_mutex_lock(&h->lock);
        if (h && h->n && !(copy = calloc(h->n, sizeof(*copy))))
                r = -ENOMEM;
        for (; copy && n < h->n && r >= 0; n++) {
                copy[n] = h->entries[n];
                copy[n].name = strdup(h->entries[n].name);
                copy[n].error = h->entries[n].error ? strdup(h->entries[n].error) : NULL;
                if (!copy[n].name || (h->entries[n].error && !copy[n].error))
                        r = -ENOMEM;
        }
        if (h)
                pthread_mutex_unlock(&h->lock);
        if (r < 0) {
                sink_health_entries_free(copy, n);
                return r;
        }
        *ret = copy;
        *ret_n = n;
        return 0;
}

void sink_health_entries_free(struct sink_health_entry *e, size_t n)
{
        for (size_t i = 0; e && i < n; i++) {
                free(e[i].name);
                free(e[i].error);
        }
        free(e);
}
