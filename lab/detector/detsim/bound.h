/* bound.h — the best detection share a decline allows (see bound.c). */
#ifndef DETSIM_BOUND_H
#define DETSIM_BOUND_H

enum bound_family { BOUND_GAUSS, BOUND_T3, BOUND_OUTLIERS };

/* What the clairvoyant knows: the noise of the logs (family, sd, AR(1)
 * coefficient) and the decline, per_run of the reference a run. */
struct bound_model {
        enum bound_family family;
        double sigma;
        double phi;
        double per_run;
        double fa_rate; /* false alarms a run its alarm level is set for;
                           0: 1 in 10,000 */
};

/* One run's figure at `level` (reference 1), from the caller's noise. */
typedef double (*bound_draw_fn)(void *ctx, double level);

struct bound_result {
        double share;        /* declines flagged within `within` runs, the
                                level learnt from the reference runs */
        double known_level;  /* ... the level known */
        double noise_learnt; /* ... the noise's scale learnt too, as the
                                level is (NAN under AR(1)) */
        double alarm;        /* the alarm level found (log likelihood ratio) */
        double false_alarms; /* its false alarms per 10,000 clean runs */
        double known_start;  /* the ceiling: start known, one test at run
                                `within` of size `within` x fa_rate
                                (Gaussian innovations; NAN otherwise) */
};

/* The clairvoyant detector on `null_runs` clean runs (its alarm level:
 * the lowest that gives at most m->fa_rate false alarms a run) and on
 * `trials` declines after `pre` clean runs (an alarm before the decline
 * is a miss), each series with its level learnt from `ref_runs` runs (at
 * most 1000), and with the level known.  -EINVAL, or 0. */
int bound_drift(const struct bound_model *m, bound_draw_fn draw, void *ctx,
                unsigned long null_runs, unsigned trials, unsigned ref_runs, unsigned pre,
                unsigned within, struct bound_result *ret);

#endif
