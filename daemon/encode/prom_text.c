/* prom_text.c — the Prometheus text exposition format 0.0.4 (see prom_text.h).
 *
 * Written straight to a stdio stream: the textfile sink, the Pushgateway
 * sink (text mode) and the CLI all need the same bytes, and a stream lets
 * each of them choose a file, a pipe or a memory buffer. */
#include "encode/prom_text.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

const char *prom_text_format_double(double v, char *buf, size_t size)
{
        if (isnan(v)) {
                snprintf(buf, size, "NaN");
                return buf;
        }
        if (isinf(v)) {
                snprintf(buf, size, v > 0 ? "+Inf" : "-Inf");
                return buf;
        }
        /* Shortest of %.15g..%.17g that reads back exactly: 0.95 stays
         * "0.95", yet no bit of the measured value is lost. */
        for (int prec = 15; prec <= 17; prec++) {
                snprintf(buf, size, "%.*g", prec, v);
                if (strtod(buf, NULL) == v)
                        break;
        }
        return buf;
}

/* HELP text escapes backslash and newline; label values also '"'. */
static void put_escaped(FILE *f, const char *s, bool quote)
{
        for (; *s; s++) {
                if (*s == '\\')
                        fputs("\\\\", f);
                else if (*s == '\n')
                        fputs("\\n", f);
                else if (quote && *s == '"')
                        fputs("\\\"", f);
                else
                        fputc(*s, f);
        }
}

static void put_label(FILE *f, const char *name, const char *value)
{
        fputs(name, f);
        fputs("=\"", f);
        put_escaped(f, value, true);
        fputc('"', f);
}

/* {probe="...",labels...[,extra_name="extra_value"]}; the daemon's own
 * figures have no probe, and a series without labels has no braces. */
static void put_labels(FILE *f, const char *probe, const struct sample *s,
                       const char *extra_name, const char *extra_value)
{
        bool first = true;

        if (*probe) {
                fputc('{', f);
                put_label(f, "probe", probe);
                first = false;
        }
        for (size_t i = 0; i < s->n_labels; i++) {
                if (!strcmp(s->labels[i].name, "probe"))
                        continue; /* the run's probe name wins */
                fputc(first ? '{' : ',', f);
                put_label(f, s->labels[i].name, s->labels[i].value);
                first = false;
        }
        if (extra_name) {
                fputc(first ? '{' : ',', f);
                put_label(f, extra_name, extra_value);
                first = false;
        }
        if (!first)
                fputc('}', f);
}

static int put_line(const struct prom_text_series *e, void *arg)
{
        FILE *f = arg;
        char num[40];

        fputs(e->name, f);
        fputs(e->suffix, f);
        put_labels(f, e->probe, e->sample, e->extra_name, e->extra_value);
        fputc(' ', f);
        fputs(prom_text_format_double(e->value, num, sizeof(num)), f);
        fputc('\n', f);
        return 0;
}

static int visit_summary(const struct family *fam, const char *probe,
                         const struct sample *s, prom_text_series_fn fn, void *arg)
{
        struct prom_text_series e = { .name = fam->name, .suffix = "", .probe = probe,
                                 .sample = s, .extra_name = "quantile" };
        const struct bw_hist *h = s->hist;
        struct bw_hist empty;
        char q[40];
        int r = 0;

        if (!h) {
                bw_hist_init(&empty);
                h = &empty;
        }
        e.extra_value = q;
        for (size_t i = 0; i < result_n_quantiles && r >= 0; i++) {
                e.value = h->count ?
                        bw_hist_quantile_ns(h, result_quantiles[i]) / 1e9 : NAN;
                prom_text_format_double(result_quantiles[i], q, sizeof(q));
                r = fn(&e, arg);
        }
        e.extra_name = e.extra_value = NULL;
        e.suffix = "_sum";
        e.value = (double)h->sum_ns / 1e9;
        if (r >= 0)
                r = fn(&e, arg);
        e.suffix = "_count";
        e.value = (double)h->count;
        return r < 0 ? r : fn(&e, arg);
}

int prom_text_family_series(const struct result *r, const struct family *fam,
                            prom_text_series_fn fn, void *arg)
{
        int e = 0;

        for (size_t k = 0; k < fam->n_samples && e >= 0; k++) {
                const struct sample *s = &fam->samples[k];
                const struct prom_text_series one = { .name = fam->name, .suffix = "",
                                                 .probe = r->probe, .sample = s,
                                                 .value = s->value };
                if (fam->type == METRIC_SUMMARY)
                        e = visit_summary(fam, r->probe, s, fn, arg);
                else
                        e = fn(&one, arg);
        }
        return e;
}

static const char *type_name(enum metric_type t)
{
        switch (t) {
        case METRIC_COUNTER:
                return "counter";
        case METRIC_SUMMARY:
                return "summary";
        case METRIC_GAUGE:
        default:
                return "gauge";
        }
}

static bool seen_before(const struct result *const *results, size_t i,
                        size_t j)
{
        const char *name = results[i]->families[j].name;

        for (size_t a = 0; a <= i; a++)
                for (size_t b = 0; b < (a == i ? j : results[a]->n_families); b++)
                        if (!strcmp(results[a]->families[b].name, name))
                                return true;
        return false;
}

/* One family: HELP/TYPE from its first appearance, then its samples from
 * this result and every later result that has it. */
static void put_family(FILE *f, const struct result *const *results,
                       size_t n, size_t i, const struct family *fam)
{
        if (fam->help && *fam->help) { /* no HELP rather than an empty one */
                fprintf(f, "# HELP %s ", fam->name);
                put_escaped(f, fam->help, false);
                fputc('\n', f);
        }
        fprintf(f, "# TYPE %s %s\n", fam->name, type_name(fam->type));
        for (size_t a = i; a < n; a++) {
                const struct family *other = result_find(results[a], fam->name);
                /* A family of another type under the same name would make
                 * the exposition invalid: it loses, the first one stays. */
                if (other && other->type == fam->type)
                        prom_text_family_series(results[a], other, put_line, f);
        }
}

int prom_text_write(FILE *f, const struct result *const *results, size_t n)
{
        for (size_t i = 0; i < n; i++)
                for (size_t j = 0; j < results[i]->n_families; j++)
                        if (!seen_before(results, i, j))
                                put_family(f, results, n, i,
                                           &results[i]->families[j]);
        if (fflush(f) != 0 || ferror(f))
                return errno > 0 ? -errno : -EIO;
        return 0;
}

int prom_text_to_string(const struct result *const *results, size_t n,
                        char **ret, size_t *ret_len)
{
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        int r;

        if (!f)
                return -ENOMEM;
        r = prom_text_write(f, results, n);
        if (fclose(f) != 0 && r >= 0)
                r = -ENOMEM;
        if (r < 0) {
                free(buf);
                return r;
        }
        *ret = buf;
        if (ret_len)
                *ret_len = len;
        return 0;
}
