/* baseline.c — see baseline.h.  Which figures of a run are followed and
 * in which direction, the series of a probe, their updates and verdicts.
 * The keys are baseline_key.c's, the file baseline_store.c's, the words
 * and gauges baseline_report.c's. */
#include "detect/baseline.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "detect/baseline_key.h"
#include "util/strutil.h"

#define PROBE_NAME_MAX 200

/* Summary quantiles followed as series, as the encoders spell them. */
static const char *const tracked_quantiles[] = { "0.5", "0.95", "0.99" };
static const double tracked_q[] = { 0.5, 0.95, 0.99 };

bool baseline_probe_name_ok(const char *probe)
{
        size_t n = probe ? strlen(probe) : 0;
        if (n == 0 || n > PROBE_NAME_MAX || probe[0] == '.')
                return false;
        for (size_t i = 0; i < n; i++)
                if (probe[i] == '/' || iscntrl((unsigned char)probe[i]))
                        return false;
        return true;
}

struct baseline *baseline_new(const char *probe)
{
        if (!baseline_probe_name_ok(probe))
                return NULL;
        struct baseline *b = calloc(1, sizeof(*b));
        if (!b)
                return NULL;
        b->probe = strdup(probe);
        if (!b->probe) {
                free(b);
                return NULL;
        }
        return b;
}

static void series_done(struct baseline_series *s)
{
        for (size_t i = 0; i < s->n_labels; i++) {
                free(s->labels[i].name);
                free(s->labels[i].value);
        }
        free(s->labels);
        free(s->metric);
        free(s->key);
}

void baseline_free(struct baseline *b)
{
        if (!b)
                return;
        for (size_t i = 0; i < b->n_series; i++)
                series_done(&b->series[i]);
        free(b->series);
        context_clear(&b->context);
        context_clear(&b->seen);
        free(b->probe);
        free(b);
}

/* ---- which figures, which direction ------------------------------------ */

#define WALL_RATE "_per_second"
#define CPU_TWIN "_per_cpu_second"

/* The one rule of which figure of a pair is judged (baseline.h): of a rate
 * per wall-clock second (X_per_second) whose run also has the same work
 * per second of the probe's own CPU time (X_per_cpu_second), one is
 * exported and not judged: the CPU-time one, or with judge_cpu_time the
 * wall-clock one.  The pair's other family, when family is one of a
 * pair; NULL otherwise. */
static const char *twin_of(const struct result *res, const char *family)
{
        bool cpu = str_has_suffix(family, CPU_TWIN);
        const char *from = cpu ? CPU_TWIN : WALL_RATE, *to = cpu ? WALL_RATE : CPU_TWIN;
        size_t n = strlen(family), stem = n - strlen(from);
        if (!cpu && !str_has_suffix(family, WALL_RATE))
                return NULL;
        for (size_t i = 0; i < res->n_families; i++) {
                const char *t = res->families[i].name;
                if (strlen(t) == stem + strlen(to) && !strncmp(t, family, stem) &&
                    !strcmp(t + stem, to))
                        return t;
        }
        return NULL;
}

static bool judged(const struct result *res, const char *family, const struct detector_config *c)
{
        if (!twin_of(res, family))
                return true;
        return str_has_suffix(family, CPU_TWIN) ? c->judge_cpu_time : !c->judge_cpu_time;
}

bool baseline_judges_cpu_time(const struct result *res, const struct detector_config *c)
{
        for (size_t i = 0; i < res->n_families && c->judge_cpu_time; i++)
                if (str_has_suffix(res->families[i].name, CPU_TWIN) &&
                    twin_of(res, res->families[i].name))
                        return true;
        return false;
}

enum detector_direction baseline_direction(const char *family,
                                           enum metric_type type)
{
        if (!strncmp(family, "benchwatch_probe_", 17) ||
            !strcmp(family, "benchwatch_baseline") ||
            !strncmp(family, "benchwatch_regression", 21))
                return DETECTOR_NONE;
        if (type == METRIC_SUMMARY)
                return str_has_suffix(family, "_seconds") ?
                        DETECTOR_LOWER_IS_BETTER : DETECTOR_NONE;
        if (type != METRIC_GAUGE)
                return DETECTOR_NONE;
        if (str_has_suffix(family, "_per_second") || str_has_suffix(family, CPU_TWIN) ||
            strstr(family, "iops"))
                return DETECTOR_HIGHER_IS_BETTER;
        if (strstr(family, "latency") && str_has_suffix(family, "_seconds"))
                return DETECTOR_LOWER_IS_BETTER;
        return DETECTOR_NONE;
}

struct figure {
        const char *metric;
        const struct label *labels; /* sorted by name */
        size_t n_labels;
        const char *key;
        enum detector_direction dir;
        double value;
};

typedef int (*figure_fn)(void *ud, const struct figure *fig);

static int emit_figure(const struct family *f, const struct sample *s,
                       const char *quantile, double value,
                       enum detector_direction dir, figure_fn fn, void *ud)
{
        struct figure fig = { .metric = f->name, .dir = dir, .value = value };
        size_t n = s->n_labels;
        char *key = NULL;

        if (!isfinite(value))
                return 0; /* nothing to judge */
        struct label *l = malloc((n + 1) * sizeof(*l));
        if (!l)
                return -ENOMEM;
        if (n)
                memcpy(l, s->labels, n * sizeof(*l));
        if (quantile)
                l[n++] = (struct label){ .name = (char *)"quantile",
                                         .value = (char *)quantile };
        baseline_key_sort(l, n);
        int r = baseline_key_build(f->name, l, n, &key);
        if (r >= 0) {
                fig.labels = l;
                fig.n_labels = n;
                fig.key = key;
                r = fn(ud, &fig);
        }
        free(key);
        free(l);
        return r;
}

static int family_figures(const struct family *f, figure_fn fn, void *ud)
{
        enum detector_direction dir = baseline_direction(f->name, f->type);
        int r = 0;

        for (size_t i = 0; i < f->n_samples && r >= 0 && dir; i++) {
                const struct sample *s = &f->samples[i];
                if (f->type == METRIC_GAUGE) {
                        r = emit_figure(f, s, NULL, s->value, dir, fn, ud);
                        continue;
                }
                if (!s->hist || s->hist->count == 0)
                        continue;
                for (size_t q = 0; q < 3 && r >= 0; q++)
                        r = emit_figure(f, s, tracked_quantiles[q],
                                        bw_hist_quantile_ns(s->hist, tracked_q[q]) / 1e9,
                                        dir, fn, ud);
        }
        return r;
}

static int for_each_figure(const struct result *res, const struct detector_config *c,
                           figure_fn fn, void *ud)
{
        int r = 0;
        for (size_t i = 0; i < res->n_families && r >= 0; i++)
                if (judged(res, res->families[i].name, c))
                        r = family_figures(&res->families[i], fn, ud);
        return r;
}

/* ---- series of a baseline ---------------------------------------------- */

static ssize_t find_index(const struct baseline *b, const char *key)
{
        for (size_t i = 0; i < b->n_series; i++)
                if (!strcmp(b->series[i].key, key))
                        return (ssize_t)i;
        return -1;
}

const struct baseline_series *baseline_find(const struct baseline *b,
                                            const char *key)
{
        ssize_t i = find_index(b, key);
        return i < 0 ? NULL : &b->series[i];
}

/* Index of the figure's series, appended (empty history) when new.  Takes
 * the figure's current direction: the rules may change with an upgrade. */
static ssize_t find_or_add(struct baseline *b, const struct figure *fig)
{
        ssize_t i = find_index(b, fig->key);
        if (i >= 0) {
                b->series[i].direction = fig->dir;
                return i;
        }
        struct baseline_series *ns = realloc(b->series, (b->n_series + 1) * sizeof(*ns));
        if (!ns)
                return -ENOMEM;
        b->series = ns;
        struct baseline_series *s = &ns[b->n_series];
        memset(s, 0, sizeof(*s));
        detector_init(&s->det);
        s->direction = fig->dir;
        s->key = strdup(fig->key);
        s->metric = strdup(fig->metric);
        int r = s->key && s->metric ? 0 : -ENOMEM;
        for (size_t k = 0; k < fig->n_labels && r >= 0; k++) {
                char *v = strdup(fig->labels[k].value);
                r = v ? baseline_key_push_label(&s->labels, &s->n_labels, fig->labels[k].name,
                                            strlen(fig->labels[k].name), v)
                      : -ENOMEM;
                if (r < 0)
                        free(v);
        }
        if (r < 0) {
                series_done(s);
                return r;
        }
        return (ssize_t)b->n_series++;
}

static void unsee_all(struct baseline *b)
{
        for (size_t i = 0; i < b->n_series; i++) {
                b->series[i].seen = false;
                memset(&b->series[i].verdict, 0, sizeof(b->series[i].verdict));
        }
}

/* s's key, metric and labels from key (what the store reads back). */
static int series_of_key(const char *key, struct baseline_series *s)
{
        if (!(s->key = strdup(key)))
                return -ENOMEM;
        return baseline_key_parse(key, &s->metric, &s->labels, &s->n_labels);
}

static int append_series(struct baseline *b, struct baseline_series *s)
{
        struct baseline_series *ns = realloc(b->series, (b->n_series + 1) * sizeof(*ns));
        if (!ns)
                return -ENOMEM;
        b->series = ns;
        ns[b->n_series++] = *s;
        return 0;
}

int baseline_add_series(struct baseline *b, const char *key,
                        enum detector_direction dir, const struct detector *det)
{
        struct baseline_series s = { .direction = dir };
        if (dir == DETECTOR_NONE)
                return -EINVAL;
        if (find_index(b, key) >= 0)
                return -EEXIST;
        int r = series_of_key(key, &s);
        if (r >= 0) {
                s.det = *det;
                r = detector_refresh(&s.det);
        }
        if (r >= 0)
                r = append_series(b, &s);
        if (r < 0)
                series_done(&s);
        return r;
}

/* ---- verdicts ------------------------------------------------------------ */

struct update_ctx {
        struct baseline *b;
        const struct detector_config *c;
        double t;
        bool counted;
};

static int update_one(void *ud, const struct figure *fig)
{
        struct update_ctx *u = ud;
        ssize_t i = find_or_add(u->b, fig);
        if (i < 0)
                return (int)i;
        struct baseline_series *s = &u->b->series[i];
        if (!(fig->value > 0))
                return 0; /* a zero rate or latency says nothing about the level */
        int r = detector_update(&s->det, u->c, fig->dir, fig->value, u->t, u->counted,
                                &s->verdict);
        if (r >= 0)
                s->seen = true;
        return r;
}

int baseline_update(struct baseline *b, const struct result *res,
                    const struct detector_config *c, bool counted)
{
        struct update_ctx u = { .b = b, .c = c, .t = res->started, .counted = counted };
        if (detector_config_check(c) < 0)
                return -EINVAL;
        unsee_all(b);
        if (!res->success)
                return 0;
        return for_each_figure(res, c, update_one, &u);
}

struct verify_ctx {
        struct baseline *b;
        double *values;   /* [series][run], NAN where a run lacks it */
        size_t n_runs, run;
};

static int verify_add(void *ud, const struct figure *fig)
{
        struct verify_ctx *x = ud;
        ssize_t i = find_or_add(x->b, fig);
        return i < 0 ? (int)i : 0;
}

static int verify_fill(void *ud, const struct figure *fig)
{
        struct verify_ctx *x = ud;
        ssize_t i = find_index(x->b, fig->key);
        if (i >= 0 && fig->value > 0)
                x->values[(size_t)i * x->n_runs + x->run] = fig->value;
        return 0;
}

static int verify_judge(struct verify_ctx *x, const struct detector_config *c,
                        unsigned min_runs, unsigned max_runs)
{
        int outcome = DETECTOR_VERIFY_PASS, judged = 0;
        for (size_t i = 0; i < x->b->n_series; i++) {
                struct baseline_series *s = &x->b->series[i];
                double v[DETECTOR_REF_MAX];
                size_t n = 0;
                for (size_t k = 0; k < x->n_runs; k++)
                        if (!isnan(x->values[i * x->n_runs + k]))
                                v[n++] = x->values[i * x->n_runs + k];
                if (n == 0)
                        continue;
                s->seen = true;
                detector_state(&s->det, c, s->direction, &s->verdict);
                s->verdict.value = detector_median(v, n);
                if (!s->verdict.valid)
                        continue; /* fewer than min_runs: nothing to compare with yet */
                int r = detector_verify(&s->det, c, s->direction, v, n, min_runs, max_runs,
                                        &s->check);
                if (r < 0)
                        return r;
                judged++;
                if (s->check.outcome == DETECTOR_VERIFY_FAIL)
                        outcome = DETECTOR_VERIFY_FAIL;
                else if (s->check.outcome == DETECTOR_VERIFY_MORE &&
                         outcome != DETECTOR_VERIFY_FAIL)
                        outcome = DETECTOR_VERIFY_MORE;
        }
        return judged ? outcome : -ENODATA;
}

int baseline_verify(struct baseline *b, const struct result *const *runs, size_t n_runs,
                    const struct detector_config *c, unsigned min_runs, unsigned max_runs)
{
        struct verify_ctx x = { .b = b, .n_runs = n_runs };
        int r = 0;

        if (detector_config_check(c) < 0 || n_runs > DETECTOR_REF_MAX || n_runs == 0)
                return -EINVAL;
        unsee_all(b);
        for (size_t k = 0; k < n_runs && r >= 0; k++)
                if (runs[k]->success)
                        r = for_each_figure(runs[k], c, verify_add, &x);
        if (r < 0)
                return r;
        if (b->n_series == 0)
                return -ENODATA;
        x.values = malloc(b->n_series * n_runs * sizeof(double));
        if (!x.values)
                return -ENOMEM;
        for (size_t i = 0; i < b->n_series * n_runs; i++)
                x.values[i] = NAN;
        for (x.run = 0; x.run < n_runs; x.run++)
                if (runs[x.run]->success)
                        for_each_figure(runs[x.run], c, verify_fill, &x);
        r = verify_judge(&x, c, min_runs, max_runs);
        free(x.values);
        return r;
}

int baseline_accept(struct baseline *b, const struct detector_config *c, double t)
{
        int accepted = 0;
        for (size_t i = 0; i < b->n_series; i++)
                accepted += detector_accept(&b->series[i].det, c, t) >= 0;
        /* the new reference is the last runs': so is its context */
        if (accepted && b->seen.n && context_copy(&b->context, &b->seen) < 0)
                return -ENOMEM;
        return accepted ? accepted : -EAGAIN;
}

int baseline_import(struct baseline *b, const char *key, const double *v, size_t n,
                    double t)
{
        struct baseline_series s = { 0 };
        ssize_t i = find_index(b, key);
        int r = 0;
        if (i < 0) {
                r = series_of_key(key, &s);
                bool quantile = false;
                for (size_t k = 0; r >= 0 && k < s.n_labels; k++)
                        quantile |= !strcmp(s.labels[k].name, "quantile");
                if (r >= 0)
                        s.direction = baseline_direction(s.metric, quantile ? METRIC_SUMMARY
                                                                           : METRIC_GAUGE);
                if (r >= 0 && s.direction == DETECTOR_NONE)
                        r = -EDOM;
                if (r >= 0)
                        r = append_series(b, &s);
                if (r < 0) {
                        series_done(&s);
                        return r;
                }
                i = (ssize_t)b->n_series - 1;
        }
        return detector_import(&b->series[i].det, v, n, t);
}

static bool any_pinned(const struct baseline *b)
{
        for (size_t i = 0; i < b->n_series; i++)
                if (b->series[i].det.pinned)
                        return true;
        return false;
}

int baseline_note_context(struct baseline *b, const struct context *now,
                          char **ret_change)
{
        *ret_change = b->seen.n ? context_diff(&b->seen, now) : NULL;
        int r = context_copy(&b->seen, now);
        if (r >= 0 && (!any_pinned(b) || !b->context.n))
                r = context_copy(&b->context, now);
        if (r < 0) {
                free(*ret_change);
                *ret_change = NULL;
        }
        return r;
}
