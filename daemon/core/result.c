/* result.c — see result.h. */
#include "core/result.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/strutil.h"

const double result_quantiles[] = { 0.5, 0.9, 0.95, 0.99, 0.999, 1 };
const size_t result_n_quantiles =
        sizeof(result_quantiles) / sizeof(result_quantiles[0]);

struct result *result_new(const char *probe, const char *plugin)
{
        struct result *r = calloc(1, sizeof(*r));
        if (!r)
                return NULL;
        r->probe = strdup(probe);
        r->plugin = strdup(plugin);
        if (!r->probe || !r->plugin) {
                result_free(r);
                return NULL;
        }
        return r;
}

static void free_labels(struct label *l, size_t n)
{
        for (size_t i = 0; i < n; i++) {
                free(l[i].name);
                free(l[i].value);
        }
        free(l);
}

static void free_family(struct family *f)
{
        for (size_t i = 0; i < f->n_samples; i++) {
                free_labels(f->samples[i].labels, f->samples[i].n_labels);
                free(f->samples[i].hist);
        }
        free(f->samples);
        free(f->name);
        free(f->help);
}

void result_free(struct result *r)
{
        if (!r)
                return;
        for (size_t i = 0; i < r->n_families; i++)
                free_family(&r->families[i]);
        free(r->families);
        free_labels(r->params, r->n_params);
        free(r->probe);
        free(r->plugin);
        free(r->error);
        free(r);
}

void result_remove(struct result *r, const char *name)
{
        for (size_t i = 0; i < r->n_families; i++)
                if (!strcmp(r->families[i].name, name)) {
                        free_family(&r->families[i]);
                        memmove(&r->families[i], &r->families[i + 1],
                                (r->n_families - i - 1) * sizeof(r->families[0]));
                        r->n_families--;
                        return;
                }
}

static int push_label(struct label **l, size_t *n, const char *name,
                      const char *value)
{
        struct label *nl = realloc(*l, (*n + 1) * sizeof(**l));
        if (!nl)
                return -ENOMEM;
        *l = nl;
        nl[*n].name = strdup(name);
        nl[*n].value = str_utf8_dup(value); /* every output takes it as UTF-8 */
        if (!nl[*n].name || !nl[*n].value) {
                free(nl[*n].name);
                free(nl[*n].value);
                return -ENOMEM;
        }
        (*n)++;
        return 0;
}

static struct family *get_family(struct result *r, const char *name,
                                 const char *help, enum metric_type type)
{
        for (size_t i = 0; i < r->n_families; i++)
                if (!strcmp(r->families[i].name, name))
                        return r->families[i].type == type ? &r->families[i] : NULL;
        struct family *f = realloc(r->families, (r->n_families + 1) * sizeof(*f));
        if (!f)
                return NULL;
        r->families = f;
        f = &f[r->n_families];
        memset(f, 0, sizeof(*f));
        f->name = strdup(name);
        f->help = strdup(help ? help : "");
        f->type = type;
        if (!f->name || !f->help) {
                free_family(f);
                return NULL;
        }
        r->n_families++;
        return f;
}

int result_add(struct result *r, const char *name, const char *help,
               enum metric_type type, const char *const *labels, double value,
               const struct bw_hist *hist)
{
        struct family *f = get_family(r, name, help, type);
        if (!f)
                return result_find(r, name) ? -EINVAL : -ENOMEM;
        struct sample *s = realloc(f->samples, (f->n_samples + 1) * sizeof(*s));
        if (!s)
                return -ENOMEM;
        f->samples = s;
        s = &s[f->n_samples];
        memset(s, 0, sizeof(*s));
        s->value = value;
        int ret = 0;
        for (size_t i = 0; labels && labels[i] && labels[i + 1] && ret >= 0; i += 2)
                ret = push_label(&s->labels, &s->n_labels, labels[i], labels[i + 1]);
        if (ret >= 0 && type == METRIC_SUMMARY) {
                s->hist = malloc(sizeof(*s->hist));
                if (!s->hist)
                        ret = -ENOMEM;
                else if (hist)
                        *s->hist = *hist;
                else
                        bw_hist_init(s->hist);
        }
        if (ret < 0) {
                free_labels(s->labels, s->n_labels);
                free(s->hist);
                return ret;
        }
        f->n_samples++;
        return 0;
}

int result_add_param(struct result *r, const char *name, const char *value)
{
        return push_label(&r->params, &r->n_params, name, value);
}

int result_set_error(struct result *r, const char *error)
{
        char *e = strdup(error);
        if (!e)
                return -ENOMEM;
        free(r->error);
        r->error = e;
        r->success = false;
        return 0;
}

int result_add_probe_families(struct result *r)
{
        int ret = result_add(r, "benchwatch_probe_success",
                             "1 if the probe's last run succeeded, 0 if it failed",
                             METRIC_GAUGE, NULL, r->success ? 1 : 0, NULL);
        if (ret >= 0)
                ret = result_add(r, "benchwatch_probe_duration_seconds",
                                 "Wall-clock time the probe's last run took",
                                 METRIC_GAUGE, NULL, r->duration, NULL);
        if (ret >= 0)
                ret = result_add(r, "benchwatch_probe_last_run_timestamp_seconds",
                                 "When the probe's last run started, seconds since the epoch",
                                 METRIC_GAUGE, NULL, r->started, NULL);
        return ret;
}

const struct family *result_find(const struct result *r, const char *name)
{
        for (size_t i = 0; i < r->n_families; i++)
                if (!strcmp(r->families[i].name, name))
                        return &r->families[i];
        return NULL;
}

const char *result_sample_label(const struct sample *s, const char *name)
{
        for (size_t i = 0; i < s->n_labels; i++)
                if (!strcmp(s->labels[i].name, name))
                        return s->labels[i].value;
        return NULL;
}

const struct sample *result_find_sample(const struct result *r,
                                        const char *name,
                                        const char *const *match)
{
        const struct family *f = result_find(r, name);
        if (!f)
                return NULL;
        for (size_t i = 0; i < f->n_samples; i++) {
                bool ok = true;
                for (size_t k = 0; match && match[k] && match[k + 1] && ok; k += 2) {
                        const char *v = result_sample_label(&f->samples[i], match[k]);
                        ok = v && !strcmp(v, match[k + 1]);
                }
                if (ok)
                        return &f->samples[i];
        }
        return NULL;
}

struct result *result_copy(const struct result *src)
{
        struct result *r = result_new(src->probe, src->plugin);
        if (!r)
                return NULL;
        r->success = src->success;
        r->started = src->started;
        r->duration = src->duration;
        r->yielded = src->yielded;
        r->priority_from = src->priority_from;
        r->io_bound = src->io_bound;
        r->disk_io = src->disk_io;
        int ret = src->error ? result_set_error(r, src->error) : 0;
        r->success = src->success;
        for (size_t i = 0; i < src->n_params && ret >= 0; i++)
                ret = result_add_param(r, src->params[i].name, src->params[i].value);
        for (size_t i = 0; i < src->n_families && ret >= 0; i++) {
                const struct family *f = &src->families[i];
                for (size_t k = 0; k < f->n_samples && ret >= 0; k++) {
                        const struct sample *s = &f->samples[k];
                        const char *lv[2 * s->n_labels + 1];
                        for (size_t j = 0; j < s->n_labels; j++) {
                                lv[2 * j] = s->labels[j].name;
                                lv[2 * j + 1] = s->labels[j].value;
                        }
                        lv[2 * s->n_labels] = NULL;
                        ret = result_add(r, f->name, f->help, f->type, lv,
                                         s->value, s->hist);
                }
        }
        if (ret < 0) {
                result_free(r);
                return NULL;
        }
        return r;
}
