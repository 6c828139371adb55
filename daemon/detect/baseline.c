/* baseline.c — see baseline.h.  Series keys (built from results, parsed
 * back for the store), the series of a probe, the verdicts and the
 * families they become.  The file is baseline_store.c's business. */
#include "detect/baseline.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/format.h"
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

int baseline_probe_file(const char *state_dir, const char *what, const char *probe,
                        char **ret_path)
{
        if (!state_dir || !baseline_probe_name_ok(probe))
                return -EINVAL;
        char *p = str_printf("%s/%s-%s.txt", state_dir, what, probe);
        if (!p)
                return -ENOMEM;
        *ret_path = p;
        return 0;
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

/* ---- series keys ------------------------------------------------------- */

static void put_escaped(FILE *f, const char *v)
{
        for (; *v; v++) {
                if (*v == '\\' || *v == '"')
                        fputc('\\', f);
                if (*v == '\n')
                        fputs("\\n", f);
                else
                        fputc(*v, f);
        }
}

/* metric{a="x",b="y"} from labels already sorted by name. */
static int build_key(const char *metric, const struct label *l, size_t n,
                     char **ret)
{
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        if (!f)
                return -ENOMEM;
        fputs(metric, f);
        for (size_t i = 0; i < n; i++) {
                fprintf(f, "%s%s=\"", i ? "," : "{", l[i].name);
                put_escaped(f, l[i].value);
                fputc('"', f);
        }
        if (n)
                fputc('}', f);
        bool bad = ferror(f);
        if (fclose(f) != 0 || bad) {
                free(buf);
                return -ENOMEM;
        }
        *ret = buf;
        return 0;
}

static int cmp_label(const void *a, const void *b)
{
        return strcmp(((const struct label *)a)->name,
                      ((const struct label *)b)->name);
}

static int push_label(struct label **l, size_t *n, const char *name,
                      size_t name_len, char *value)
{
        struct label *nl = realloc(*l, (*n + 1) * sizeof(**l));
        if (!nl)
                return -ENOMEM;
        *l = nl;
        nl[*n].name = strndup(name, name_len);
        if (!nl[*n].name)
                return -ENOMEM;
        nl[*n].value = value;
        (*n)++;
        return 0;
}

/* ---- which figures, which direction ------------------------------------ */

static bool has_suffix(const char *s, const char *suffix)
{
        size_t n = strlen(s), m = strlen(suffix);
        return n >= m && !strcmp(s + n - m, suffix);
}

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
        bool cpu = has_suffix(family, CPU_TWIN);
        const char *from = cpu ? CPU_TWIN : WALL_RATE, *to = cpu ? WALL_RATE : CPU_TWIN;
        size_t n = strlen(family), stem = n - strlen(from);
        if (!cpu && !has_suffix(family, WALL_RATE))
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
        return has_suffix(family, CPU_TWIN) ? c->judge_cpu_time : !c->judge_cpu_time;
}

bool baseline_judges_cpu_time(const struct result *res, const struct detector_config *c)
{
        for (size_t i = 0; i < res->n_families && c->judge_cpu_time; i++)
                if (has_suffix(res->families[i].name, CPU_TWIN) &&
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
                return has_suffix(family, "_seconds") ?
                        DETECTOR_LOWER_IS_BETTER : DETECTOR_NONE;
        if (type != METRIC_GAUGE)
                return DETECTOR_NONE;
        if (has_suffix(family, "_per_second") || has_suffix(family, CPU_TWIN) ||
            strstr(family, "iops"))
                return DETECTOR_HIGHER_IS_BETTER;
        if (strstr(family, "latency") && has_suffix(family, "_seconds"))
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
        qsort(l, n, sizeof(*l), cmp_label);
        int r = build_key(f->name, l, n, &key);
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

const char *baseline_format_figure(const struct baseline_series *s, double v, char *buf,
                                   unsigned size)
{
        return format_quantity(v, has_suffix(s->metric, "_seconds"), buf, size);
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
                r = v ? push_label(&s->labels, &s->n_labels, fig->labels[k].name,
                                   strlen(fig->labels[k].name), v) : -ENOMEM;
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

/* ---- keys read back (for the store) ------------------------------------ */

#define NAME_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_:"
#define LABEL_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"

/* A quoted label value with \\, \" and \n escapes; *p is past the opening
 * quote and ends past the closing one. */
static int parse_label_value(const char **p, char **ret)
{
        const char *s = *p;
        char *v = malloc(strlen(s) + 1), *o = v;
        if (!v)
                return -ENOMEM;
        for (; *s && *s != '"'; s++) {
                if (*s == '\\') {
                        s++;
                        if (*s != '\\' && *s != '"' && *s != 'n')
                                break;
                        *o++ = *s == 'n' ? '\n' : *s;
                } else
                        *o++ = *s;
        }
        if (*s != '"') {
                free(v);
                return -EINVAL;
        }
        *o = '\0';
        *p = s + 1;
        *ret = v;
        return 0;
}

/* Splits a key into metric and labels, and insists it is canonical (labels
 * sorted, each once; rebuilding it gives the same text, so the escaping was
 * ours), as every key built from a result is. */
static int parse_key(const char *key, struct baseline_series *s)
{
        const char *p = key;
        size_t n = strspn(p, NAME_CHARS);
        char *again = NULL;
        int r = n ? 0 : -EINVAL;

        if (r >= 0 && !(s->metric = strndup(p, n)))
                r = -ENOMEM;
        p += n;
        if (r >= 0 && *p == '{') {
                do {
                        p++;
                        n = strspn(p, LABEL_CHARS);
                        const char *name = p;
                        char *v = NULL;
                        if (!n || p[n] != '=' || p[n + 1] != '"') {
                                r = -EINVAL;
                                break;
                        }
                        p += n + 2;
                        r = parse_label_value(&p, &v);
                        if (r >= 0 && (r = push_label(&s->labels, &s->n_labels, name, n, v)) < 0)
                                free(v);
                } while (r >= 0 && *p == ',');
                if (r >= 0 && *p++ != '}')
                        r = -EINVAL;
        }
        if (r >= 0 && *p)
                r = -EINVAL;
        for (size_t i = 1; i < s->n_labels && r >= 0; i++)
                if (strcmp(s->labels[i - 1].name, s->labels[i].name) >= 0)
                        r = -EINVAL; /* unsorted or repeated */
        if (r >= 0)
                r = build_key(s->metric, s->labels, s->n_labels, &again);
        if (r >= 0 && strcmp(again, key))
                r = -EINVAL;
        free(again);
        return r;
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
        int r = (s.key = strdup(key)) ? parse_key(key, &s) : -ENOMEM;
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
                r = (s.key = strdup(key)) ? parse_key(key, &s) : -ENOMEM;
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

/* Label list of a series' gauges: metric="<family>" then its labels. */
static const char **series_labels(const struct baseline_series *s)
{
        const char **lv = malloc((2 * s->n_labels + 3) * sizeof(*lv));
        if (!lv)
                return NULL;
        lv[0] = "metric";
        lv[1] = s->metric;
        for (size_t i = 0; i < s->n_labels; i++) {
                /* "metric" is ours here (Prometheus' way out of a clash),
                 * and "quantile" is reserved to summaries: these are gauges */
                const char *n = s->labels[i].name;
                lv[2 + 2 * i] = !strcmp(n, "metric")     ? "exported_metric"
                                : !strcmp(n, "quantile") ? "metric_quantile"
                                                         : n;
                lv[3 + 2 * i] = s->labels[i].value;
        }
        lv[2 + 2 * s->n_labels] = NULL;
        return lv;
}

static const struct {
        const char *name, *help;
} series_families[] = {
        { "benchwatch_regression", "1 while the figure named by `metric` is in a regression "
                                   "against its reference, else 0" },
        { "benchwatch_baseline_runs", "Counted runs the reference of the figure named by `metric` "
                                      "holds: verdicts from [regression] min_runs, pinned at "
                                      "reference_runs" },
        { "benchwatch_baseline", "Reference of the figure named by `metric` (learnt over the "
                                 "commissioning window, pinned at its end), in its unit" },
        { "benchwatch_baseline_timestamp_seconds", "When the reference of the figure named by "
                                                   "`metric` was pinned or last accepted, UNIX "
                                                   "time" },
        { "benchwatch_baseline_noise_ratio", "Relative per-run noise of the figure named by "
                                             "`metric` in its reference window (robust sd of the "
                                             "log)" },
        { "benchwatch_regression_ratio", "This run's figure divided by its reference" },
        { "benchwatch_regression_change_ratio", "Recent level of the figure against its reference, "
                                                "minus 1 (-0.14 is 14% lower): the median of the "
                                                "runs since the evidence began to accumulate, else "
                                                "of the last recent_runs counted runs" },
        { "benchwatch_regression_change_low_ratio", "Lower end of the 95% confidence interval of "
                                                    "the change ratio" },
        { "benchwatch_regression_change_high_ratio", "Upper end of the 95% confidence interval of "
                                                     "the change ratio" },
        { "benchwatch_regression_evidence", "Accumulated evidence that the figure got worse (CUSUM "
                                            "over the alarm level): 1 or more is enough" },
};

static int add_series_metrics(const struct baseline_series *s, struct result *res)
{
        const struct detector_verdict *v = &s->verdict;
        const double values[] = {
                v->regression ? 1 : 0, v->learnt, v->reference,
                v->pinned ? v->reference_time : NAN, v->noise, v->ratio,
                v->change, v->change_lo, v->change_hi, v->evidence,
        };
        const char **lv = series_labels(s);
        int r = lv ? 0 : -ENOMEM;
        for (size_t i = 0; i < sizeof(values) / sizeof(values[0]) && r >= 0; i++) {
                /* state and runs always; the figures once verdicts are given */
                if (i > 1 && (!v->valid || !isfinite(values[i])))
                        continue;
                r = result_add(res, series_families[i].name, series_families[i].help,
                               METRIC_GAUGE, lv, values[i], NULL);
        }
        free(lv);
        return r;
}

int baseline_add_metrics(const struct baseline *b, struct result *res, bool counted)
{
        int r = result_add(res, "benchwatch_probe_counted",
                           "1 when the run counted towards the references, 0 when it was "
                           "judged only (taken while the host was busy)", METRIC_GAUGE, NULL,
                           counted ? 1 : 0, NULL);
        for (size_t i = 0; i < b->n_series && r >= 0; i++)
                if (b->series[i].seen)
                        r = add_series_metrics(&b->series[i], res);
        return r;
}

/* "2026-11-30", UTC, of a UNIX time; "?" when it has none. */
static void format_day(double t, char *buf, size_t size)
{
        time_t tt = (time_t)t;
        struct tm tm;
        if (!(t > 0) || !gmtime_r(&tt, &tm) || !strftime(buf, size, "%Y-%m-%d", &tm))
                snprintf(buf, size, "?");
}

char *baseline_change_text(const struct baseline_series *s, double change, double lo,
                           double hi)
{
        char day[32];
        format_day(s->verdict.reference_time, day, sizeof(day));
        return str_printf("%+.1f%% vs the reference of %s (95%% CI %+.0f..%+.0f%%)",
                          change * 100, day, lo * 100, hi * 100);
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

char *baseline_context_change(const struct baseline *b)
{
        return context_diff(&b->context, &b->seen);
}

char *baseline_transition_message(const struct baseline *b,
                                  const struct baseline_series *s)
{
        const struct detector_verdict *v = &s->verdict;
        if (!s->seen || v->transition == DETECTOR_STEADY)
                return NULL;
        char *change = baseline_change_text(s, v->change, v->change_lo, v->change_hi);
        char *ctx = v->transition == DETECTOR_ENTERED ? baseline_context_change(b) : NULL;
        char *m =
                change ? str_printf("probe '%s': %s %s: %s; this run %.6g, reference %.6g "
                                    "(noise %.1f%% a run, %s is worse)%s%s",
                                    b->probe, s->key,
                                    v->transition == DETECTOR_ENTERED ? "entered a regression"
                                                                      : "recovered from its "
                                                                        "regression",
                                    change, v->value, v->reference, v->noise * 100,
                                    s->direction == DETECTOR_HIGHER_IS_BETTER ? "lower" : "higher",
                                    ctx ? "; measured on another context than the reference: " : "",
                                    ctx ? ctx : "")
                       : NULL;
        free(ctx);
        free(change);
        return m;
}
