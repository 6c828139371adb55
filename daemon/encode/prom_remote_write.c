/* prom_remote_write.c — see prom_remote_write.h.
 *
 * Built in two steps: the series are collected first as flat, owned label
 * lists (the exposition visitor hands out short-lived strings), sorted,
 * then pointed at by protobuf-c messages, packed and compressed. */
#include "encode/prom_remote_write.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <snappy-c.h>

#include "encode/prom_text.h"
#include "proto/remote.pb-c.h"
#include "util/strutil.h"

struct rw_series {
        struct label *labels; /* owned strings, sorted by name */
        size_t n;
        double value;
};

struct collect {
        const struct prom_remote_write_target *t;
        struct rw_series *series;
        size_t n, cap;
};

static void series_done(struct rw_series *s)
{
        for (size_t i = 0; i < s->n; i++) {
                free(s->labels[i].name);
                free(s->labels[i].value);
        }
        free(s->labels);
}

/* Append name=value unless the value is empty or the name is taken (the
 * first of two wins: target labels before the run's own). */
static int push(struct rw_series *s, const char *name, const char *value)
{
        if (!value || !*value)
                return 0;
        for (size_t i = 0; i < s->n; i++)
                if (!strcmp(s->labels[i].name, name))
                        return 0;
        s->labels[s->n].name = strdup(name);
        s->labels[s->n].value = strdup(value);
        s->n++;
        return s->labels[s->n - 1].name && s->labels[s->n - 1].value ? 0 : -ENOMEM;
}

static int by_name(const void *a, const void *b)
{
        return strcmp(((const struct label *)a)->name, ((const struct label *)b)->name);
}

static int fill(struct rw_series *s, const struct prom_text_series *e,
                const struct prom_remote_write_target *t)
{
        char *name = str_printf("%s%s", e->name, e->suffix);
        int r = name ? push(s, "__name__", name) : -ENOMEM;

        free(name);
        if (r >= 0)
                r = push(s, "job", t->job);
        if (r >= 0)
                r = push(s, "instance", t->instance);
        for (size_t i = 0; r >= 0 && i < t->n_labels; i++)
                r = push(s, t->label_names[i], t->label_values[i]);
        if (r >= 0)
                r = push(s, "probe", e->probe);
        for (size_t i = 0; r >= 0 && i < e->sample->n_labels; i++)
                r = push(s, e->sample->labels[i].name, e->sample->labels[i].value);
        if (r >= 0 && e->extra_name)
                r = push(s, e->extra_name, e->extra_value);
        return r;
}

static int collect_one(const struct prom_text_series *e, void *arg)
{
        struct collect *c = arg;
        struct rw_series *s;
        int r;

        if (c->n == c->cap) {
                size_t cap = c->cap ? c->cap * 2 : 64;
                s = realloc(c->series, cap * sizeof(*s));
                if (!s)
                        return -ENOMEM;
                c->series = s;
                c->cap = cap;
        }
        s = &c->series[c->n++];
        memset(s, 0, sizeof(*s));
        s->value = e->value;
        s->labels = calloc(5 + c->t->n_labels + e->sample->n_labels, sizeof(*s->labels));
        r = s->labels ? fill(s, e, c->t) : -ENOMEM;
        if (r >= 0)
                qsort(s->labels, s->n, sizeof(*s->labels), by_name);
        return r;
}

static void collect_done(struct collect *c)
{
        for (size_t i = 0; i < c->n; i++)
                series_done(&c->series[i]);
        free(c->series);
}

/* The run's timestamp on the wire: r->started in milliseconds. */
static int64_t timestamp_ms(const struct result *r)
{
        return (int64_t)llround(r->started * 1000.0);
}

/* Everything the packed WriteRequest points to. */
struct pb {
        Prometheus__WriteRequest req;
        Prometheus__TimeSeries *ts, **ts_ptrs;
        Prometheus__Sample *samples, **sample_ptrs;
        Prometheus__Label *labels, **label_ptrs;
};

static void pb_done(struct pb *p)
{
        free(p->ts);
        free(p->ts_ptrs);
        free(p->samples);
        free(p->sample_ptrs);
        free(p->labels);
        free(p->label_ptrs);
}

static size_t count_labels(const struct collect *c)
{
        size_t n = 0;

        for (size_t i = 0; i < c->n; i++)
                n += c->series[i].n;
        return n;
}

static void build_one(struct pb *p, size_t i, const struct rw_series *s,
                      int64_t ts, size_t *next_label)
{
        prometheus__time_series__init(&p->ts[i]);
        prometheus__sample__init(&p->samples[i]);
        p->samples[i].value = s->value;
        p->samples[i].timestamp = ts;
        p->sample_ptrs[i] = &p->samples[i];
        p->ts[i].n_samples = 1;
        p->ts[i].samples = &p->sample_ptrs[i];
        p->ts[i].labels = &p->label_ptrs[*next_label];
        p->ts[i].n_labels = s->n;
        for (size_t k = 0; k < s->n; k++, (*next_label)++) {
                Prometheus__Label *l = &p->labels[*next_label];
                prometheus__label__init(l);
                l->name = s->labels[k].name;
                l->value = s->labels[k].value;
                p->label_ptrs[*next_label] = l;
        }
        p->ts_ptrs[i] = &p->ts[i];
}

static int build(struct pb *p, const struct collect *c, int64_t ts)
{
        size_t nl = count_labels(c), next = 0;

        prometheus__write_request__init(&p->req);
        p->ts = calloc(c->n + 1, sizeof(*p->ts));
        p->ts_ptrs = calloc(c->n + 1, sizeof(*p->ts_ptrs));
        p->samples = calloc(c->n + 1, sizeof(*p->samples));
        p->sample_ptrs = calloc(c->n + 1, sizeof(*p->sample_ptrs));
        p->labels = calloc(nl + 1, sizeof(*p->labels));
        p->label_ptrs = calloc(nl + 1, sizeof(*p->label_ptrs));
        if (!p->ts || !p->ts_ptrs || !p->samples || !p->sample_ptrs ||
            !p->labels || !p->label_ptrs)
                return -ENOMEM;
        for (size_t i = 0; i < c->n; i++)
                build_one(p, i, &c->series[i], ts, &next);
        p->req.n_timeseries = c->n;
        p->req.timeseries = p->ts_ptrs;
        return 0;
}

/* Pack and compress the request. */
static int pack(const struct pb *p, uint8_t **ret, size_t *ret_len)
{
        size_t n = prometheus__write_request__get_packed_size(&p->req);
        uint8_t *raw = malloc(n + 1);
        size_t out_len = snappy_max_compressed_length(n);
        char *out = malloc(out_len + 1);
        int r = raw && out ? 0 : -ENOMEM;

        if (r >= 0) {
                prometheus__write_request__pack(&p->req, raw);
                if (snappy_compress((const char *)raw, n, out, &out_len) != SNAPPY_OK)
                        r = -EINVAL;
        }
        free(raw);
        if (r < 0) {
                free(out);
                return r;
        }
        *ret = (uint8_t *)out;
        *ret_len = out_len;
        return 0;
}

int prom_remote_write_encode(const struct result *r, const struct result *also,
                             const struct prom_remote_write_target *t, uint8_t **ret,
                             size_t *ret_len, size_t *ret_series)
{
        struct collect c = { .t = t };
        struct pb p;
        int e = 0;

        memset(&p, 0, sizeof(p));
        for (size_t i = 0; i < r->n_families && e >= 0; i++)
                e = prom_text_family_series(r, &r->families[i], collect_one, &c);
        for (size_t i = 0; also && i < also->n_families && e >= 0; i++)
                e = prom_text_family_series(also, &also->families[i], collect_one, &c);
        if (e >= 0)
                e = build(&p, &c, timestamp_ms(r));
        if (e >= 0)
                e = pack(&p, ret, ret_len);
        if (e >= 0 && ret_series)
                *ret_series = c.n;
        pb_done(&p);
        collect_done(&c);
        return e;
}
