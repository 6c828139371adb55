/* cause.c — see cause.h.  The regressed runs are summarised figure by
 * figure (the median of a level, the sum and mean of a count) and the
 * rules of cause_rules.c walked in order: the first that holds names the
 * cause and gives its sentence. */
#include "detect/cause.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "detect/cause_rules.h"
#include "util/strutil.h"

const char *const cause_labels[CAUSE_N_KINDS] = {
        "inventory", "kernel_log", "memory_errors", "heat", "cpu_quota", "clock",
        "hypervisor", "memory_pressure", "neighbour", "disk_queue", "disk_device", "host",
        "component",
};

const char *const cause_names[CAUSE_N_KINDS] = {
        "inventory", "kernel log", "memory errors", "heat", "CPU quota", "CPU clock",
        "hypervisor", "memory pressure", "neighbour", "others' disk I/O", "disk device",
        "the whole host", "the component",
};

void cause_run_init(struct cause_run *r)
{
        for (int f = 0; f < CAUSE_N_FIGURES; f++)
                r->f[f] = NAN;
}

static int by_value(const void *a, const void *b)
{
        double x = *(const double *)a, y = *(const double *)b;
        return x < y ? -1 : x > y;
}

/* The p-quantile of sorted v[0..n), interpolated. */
static double quantile(const double *v, size_t n, double p)
{
        double pos = p * (double)(n - 1);
        size_t lo = (size_t)pos;
        return lo + 1 < n ? v[lo] + (v[lo + 1] - v[lo]) * (pos - (double)lo) : v[lo];
}

/* Figure f of runs[0..n) that have it, sorted into buf; their count. */
static size_t gather(const struct cause_run *runs, size_t n, int f, double *buf)
{
        size_t k = 0;
        for (size_t i = 0; i < n; i++)
                if (isfinite(runs[i].f[f]))
                        buf[k++] = runs[i].f[f];
        qsort(buf, k, sizeof(*buf), by_value);
        return k;
}

int cause_reference_of(const struct cause_run *runs, size_t n, struct cause_reference *ret)
{
        double *buf = malloc((n ? n : 1) * sizeof(*buf));
        if (!buf)
                return -ENOMEM;
        for (int f = 0; f < CAUSE_N_FIGURES; f++) {
                size_t k = gather(runs, n, f, buf);
                ret->n[f] = k;
                ret->median[f] = k ? quantile(buf, k, 0.5) : NAN;
                ret->low[f] = k ? quantile(buf, k, 0.1) : NAN;
                ret->high[f] = k ? quantile(buf, k, 0.9) : NAN;
        }
        free(buf);
        return 0;
}

static int aggregate(struct cause_ctx *c)
{
        const struct cause_input *in = c->in;
        double *buf = malloc(in->n_runs * sizeof(*buf));
        if (!buf)
                return -ENOMEM;
        for (int f = 0; f < CAUSE_N_FIGURES; f++) {
                struct cause_agg *a = &c->a[f];
                a->n = gather(in->runs, in->n_runs, f, buf);
                a->sum = 0;
                for (size_t i = 0; i < a->n; i++)
                        a->sum += buf[i];
                a->median = a->n ? quantile(buf, a->n, 0.5) : NAN;
                a->low_median = a->n ? buf[(a->n - 1) / 2] : NAN;
                a->mean = a->n ? a->sum / (double)a->n : NAN;
        }
        free(buf);
        return 0;
}

/* Causes that reach every probe of the host alike: when several
 * independent probes regressed together, the event is the host's, and the
 * host-wide cause is said as part of it. */
static bool host_wide(enum cause_kind k)
{
        return k == CAUSE_CPU_QUOTA || k == CAUSE_CLOCK || k == CAUSE_HEAT ||
               k == CAUSE_HYPERVISOR || k == CAUSE_NEIGHBOUR || k == CAUSE_MEMORY_PRESSURE ||
               k == CAUSE_COMPONENT;
}

/* out was named for a host-wide cause while the host's rule matched too:
 * the host's, with the other cause's numbers after its own. */
static int to_host(struct cause_ctx *c, struct cause *out)
{
        char *host = NULL;
        int r = cause_rules[CAUSE_HOST](c, &host);
        if (r <= 0)
                return r;
        char *both = out->kind == CAUSE_COMPONENT || !out->evidence ? NULL :
                     str_printf("%s; %s: %s", host ? host : "", cause_names[out->kind],
                                out->evidence);
        if (out->kind != CAUSE_COMPONENT && out->evidence && !both) {
                free(host);
                return -ENOMEM;
        }
        free(out->evidence);
        out->evidence = both ? both : host;
        if (both)
                free(host);
        out->kind = CAUSE_HOST;
        return 0;
}

int cause_find(const struct cause_input *in, struct cause *ret)
{
        struct cause_ctx c = { .in = in, .ref = in->ref };
        struct cause out = { .kind = CAUSE_COMPONENT };
        bool chosen = false;
        if (!in->n_runs || !in->runs || !in->ref || in->direction == DETECTOR_NONE)
                return -EINVAL;
        int r = aggregate(&c);
        for (int k = 0; r >= 0 && k < CAUSE_N_KINDS; k++) {
                char *text = NULL;
                r = cause_rules[k](&c, chosen ? NULL : &text);
                if (r > 0 && !chosen) {
                        out.kind = (enum cause_kind)k;
                        out.evidence = text;
                        chosen = true;
                }
                /* the component is what is left: not a match beside another */
                if (r > 0 && (k != CAUSE_COMPONENT || out.kind == CAUSE_COMPONENT))
                        out.matched |= 1u << k;
        }
        if (r >= 0 && (out.matched & (1u << CAUSE_HOST)) && out.kind != CAUSE_HOST &&
            host_wide(out.kind))
                r = to_host(&c, &out);
        if (r < 0) {
                free(out.evidence);
                return r;
        }
        out.label = cause_labels[out.kind];
        out.name = cause_names[out.kind];
        *ret = out;
        return 0;
}

int cause_of_label(const char *label, struct cause *ret)
{
        *ret = (struct cause){ 0 };
        for (int k = 0; label && k < CAUSE_N_KINDS; k++)
                if (!strcmp(cause_labels[k], label)) {
                        ret->kind = k;
                        ret->label = cause_labels[k];
                        ret->name = cause_names[k];
                        return 0;
                }
        return -ENOENT;
}

void cause_clear(struct cause *c)
{
        free(c->evidence);
        c->evidence = NULL;
}

