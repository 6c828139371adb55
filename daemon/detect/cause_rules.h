/* cause_rules.h — the rules of the cause engine, and what they share.
 *
 * cause.c summarises the regressed runs and walks the rules in the order
 * of enum cause_kind; cause_rules.c holds each rule and its sentence.
 * This is the state between the two (the regressed runs' figures, the
 * reference) and the tests every rule is made of, so that the thresholds
 * read the same everywhere.  Private to the two files. */
#ifndef BENCHWATCH_CAUSE_RULES_H
#define BENCHWATCH_CAUSE_RULES_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>

#include "detect/cause.h"

/* A figure over the regressed runs. */
struct cause_agg {
        double median, sum, mean;
        double low_median;              /* the lower of the middle two: a
                                         * level some run had (a link's
                                         * generation, its lanes) */
        size_t n;                       /* runs that have it */
};

struct cause_ctx {
        const struct cause_input *in;
        const struct cause_reference *ref;
        struct cause_agg a[CAUSE_N_FIGURES];
};

/* Figure f is there in at least half of the regressed runs. */
static inline bool cause_present(const struct cause_ctx *c, int f)
{
        return c->a[f].n && 2 * c->a[f].n >= c->in->n_runs;
}

static inline bool cause_in_ref(const struct cause_ctx *c, int f)
{
        return c->ref->n[f] > 0;
}

/* A level at least floor and, where the reference has it, margin above
 * the reference runs' 90th percentile. */
static inline bool cause_above(const struct cause_ctx *c, int f, double floor, double margin)
{
        double m = c->a[f].median;
        return cause_present(c, f) && m >= floor &&
               (!cause_in_ref(c, f) || m >= c->ref->high[f] + margin);
}

/* A wait (run delay, steal) the reference's typical run did not have:
 * at least CAUSE_TAIL_MIN_WAIT, three times the reference runs' median
 * and CAUSE_TAIL_MIN_WAIT above it.  The median, not the 90th
 * percentile: a tail is held up by waits that a few reference runs had
 * too (2 of 10 runs of the interrupts injection's reference waited as
 * long as its regressed runs, 7 December), and a small reference's 90th
 * percentile is its second-worst run. */
static inline bool cause_wait_rose(const struct cause_ctx *c, int f)
{
        double m = c->a[f].median, mid = c->ref->median[f];
        return cause_present(c, f) && m >= CAUSE_TAIL_MIN_WAIT &&
               (!cause_in_ref(c, f) || (m >= 3 * mid && m >= mid + CAUSE_TAIL_MIN_WAIT));
}

/* Of a tail's verdict (cause_input.tail), a wait that rose. */
static inline bool cause_tail_above(const struct cause_ctx *c, int f)
{
        return c->in->tail > 0 && cause_wait_rose(c, f);
}

/* Events in the regressed runs, more a run than the reference's 90th
 * percentile (than none when it has no figure). */
static inline bool cause_more_events(const struct cause_ctx *c, int f)
{
        const struct cause_agg *a = &c->a[f];
        return a->n && a->sum >= 1 && a->mean > (cause_in_ref(c, f) ? c->ref->high[f] : 0);
}

/* A rule: 1 when its evidence holds, with *ret (when ret is not NULL)
 * its sentence, malloc'd; 0 when it does not; -ENOMEM. */
typedef int (*cause_rule_fn)(const struct cause_ctx *c, char **ret);
extern const cause_rule_fn cause_rules[CAUSE_N_KINDS];

#endif
