/* detector.h — has this series got worse than the host's own normal?
 *
 * One detector follows one series (a figure of a probe, e.g. the read IOPS
 * of disk probe "root").  It keeps two references:
 *
 * - a *reference*, learnt over the first `reference_runs` counted runs (the
 *   commissioning window), then pinned and changed only on purpose
 *   (`baseline reset` forgets it, `baseline accept` moves it to the recent
 *   level).  Its level is the median of the logs of those runs and its
 *   noise the scaled MAD of the logs (a relative spread: one wild run moves
 *   neither), inflated by the lag-1 autocorrelation the window showed, since
 *   runs that drift together carry less evidence each.  A slow drift is
 *   measured against it, so it can never become the new normal by itself.
 * - a *recent level*: the median of the last `recent_runs` counted runs
 *   (while evidence accumulates, of the runs since it began), which is
 *   what `change` reports and what `accept` pins.
 *
 * Verdicts start once the reference holds `min_runs` runs, long before it
 * is pinned: each run is judged against the *predictive* distribution of
 * the reference (Hawkins 1987, the self-starting CUSUM): its residual is
 * divided by the noise times sqrt(1 + 1/n), for the level's own error, and
 * mapped from a Student-t with n - 1 degrees of freedom, for the noise's,
 * to a normal score (Wallace 1959).  For Gaussian runs that score is
 * exactly N(0,1) whatever n, and successive scores are independent when
 * each run joins the reference right after it is judged, so the same
 * CUSUM at the same alarm level keeps the pinned reference's false-alarm
 * rate from the first verdict on; its power grows as the reference does.
 * A run judged while the series is in a regression does not join it.
 *
 * Evidence accumulates across runs in a one-sided CUSUM (Page 1954) of the
 * standardised residuals of the logs, signed so that "worse" (lower IOPS,
 * higher latency) is positive and clamped to ±`clamp` noise units, so that
 * no single run — however wild — can alarm on its own:
 *     S = max(0, S + min(max(z, -clamp), clamp) - allowance)
 * where z is the run's residual with the part the previous run predicts
 * taken out (the AR(1) innovation), so that runs which drift together with
 * the host's neighbours count once.  Beside it run a fast CUSUM with twice
 * the allowance and half the alarm level, which catches large steps in
 * fewer runs (Lucas 1982 combines a CUSUM with a quicker rule for the same
 * reason), and, once the reference is pinned, a test matched to a drift:
 * the likelihood ratio of "a decline of 0.5% a run began k runs ago"
 * against "no change", for every k up to the last DETECTOR_RECENT_MAX runs
 * judged against this reference,
 *     L = max over k of  sum over j = 1..k of  loss(u_j) - loss(u_j - b j),
 * u the runs' residuals against the reference's skipped mean (a level the
 * outliers of one side do not pull) in units of the long-run noise, b the
 * slope in those units, loss a Huber loss that is flat beyond `clamp` (a
 * wild run is as likely under either); D = sqrt(2 L) / (1 + 0.6 rho) is
 * in noise units, its level raised for a correlated reference, whose
 * long-run noise is less sure.  Each run is weighed by how far the
 * decline has gone by then, so a 0.5%-a-run drift is flagged before a
 * step rule has seen a step (lab/detector/detector.sh prints the best
 * share any detector can reach, beside it).  A
 * regression is entered when either CUSUM reaches its alarm level or D
 * reaches `drift_alarm`, AND the recent level is worse than the reference
 * by at least `threshold` (a minimum effect: a very quiet host must not
 * alarm on a meaningless 2%).  It is left when a second CUSUM, testing
 * "back" (inside the minimum effect, or half way to the reference)
 * against "still at the regressed level", reaches `alarm`; then all start
 * afresh.
 *
 * Runs taken while the host was busy are judged (the verdict says how this
 * run compares) but change nothing.
 *
 * verify is a sequential two-sample comparison of fresh runs against the
 * reference window, in logs, with the same noise estimate and minimum
 * effect, pinned or still being learnt: see detector_verify().
 *
 * Pure computation on a plain struct: no I/O, no allocation, no clock (the
 * caller passes each run's time). */
#ifndef BENCHWATCH_DETECTOR_H
#define BENCHWATCH_DETECTOR_H

#include <stdbool.h>
#include <stddef.h>

/* The most runs a reference is learnt over and a recent level spans. */
#define DETECTOR_REF_MAX 100
#define DETECTOR_RECENT_MAX 30
/* MAD × this estimates the standard deviation of gaussian noise. */
#define DETECTOR_MAD_SCALE 1.4826
/* Fewest reference runs `baseline import` accepts. */
#define DETECTOR_REF_MIN 4

enum detector_direction {
        DETECTOR_NONE = 0,          /* no clear "worse": not tracked */
        DETECTOR_HIGHER_IS_BETTER,  /* IOPS, bytes/s, requests/s, TPS */
        DETECTOR_LOWER_IS_BETTER,   /* latency */
};

struct detector_config {
        unsigned min_runs;       /* reference runs before the first verdict; 10
                                    (at most reference_runs) */
        unsigned reference_runs; /* counted runs the pinned reference is learnt over; 100 */
        unsigned recent_runs;    /* counted runs the recent level is the median of; 6 */
        double threshold;        /* minimum relative change that is a regression; 0.05 */
        double allowance;        /* CUSUM allowance k, noise units; 0.6 */
        double alarm;            /* CUSUM decision interval h, noise units; 8.5 */
        double clamp;            /* a run's residual is clamped to ±this; 2.75 */
        double drift_alarm;      /* drift test's decision level, noise units; 3.9;
                                    0: off */
        /* Of a rate with a CPU-time twin (baseline.h), judge the CPU-time
         * one ([regression] judge = cpu_time); false, the default (which
         * detector_config_default leaves as it finds it: zero the struct
         * first), judges the wall-clock one. */
        bool judge_cpu_time;
};

/* What the pinned reference says, derived from its runs (not stored). */
struct detector_reference {
        double log_level;   /* median of the logs */
        double sigma;       /* robust sd of the logs (relative noise) */
        double mad;         /* their scaled MAD (a cruder, sturdier sd) */
        double rho;         /* lag-1 autocorrelation, clamped to [0, 0.8] */
        double scale;       /* sigma × sqrt((1 + rho) / (1 - rho)) */
        double drift_level; /* the drift test's: the mean of the logs within
                               ±3 mad of their median */
};

struct detector {
        double ref[DETECTOR_REF_MAX];     /* reference runs, oldest first */
        unsigned n_ref;
        bool pinned;                      /* false: still learning */
        double pinned_at;                 /* UNIX time of pinning or accept */
        double recent[DETECTOR_RECENT_MAX]; /* last counted runs, oldest first */
        unsigned n_recent;
        double last_z;                    /* last counted run's clamped residual */
        double cusum;                     /* evidence of "worse" */
        double fast;                      /* ... for large steps */
        unsigned segment;                 /* counted runs since cusum was 0 */
        double clear;                     /* evidence of "back to normal" */
        double shift;                     /* size of the regression (noise units) */
        unsigned n_judged;                /* last recent[] runs judged against this
                                             pinned reference (the drift test's) */
        bool regression;
        struct detector_reference rs;     /* derived: detector_refresh() */
};

enum detector_transition {
        DETECTOR_STEADY = 0,
        DETECTOR_ENTERED,   /* this run started a regression */
        DETECTOR_LEFT,      /* this run ended one */
};

struct detector_verdict {
        bool valid;            /* the reference holds min_runs: a judgement was made */
        bool pinned;           /* ... and is pinned */
        double value;          /* the run's figure */
        double reference;      /* the reference, in the figure's unit; NAN before any run */
        double reference_time; /* when it was pinned (UNIX time); 0 while learning */
        double noise;          /* the reference's relative noise per run */
        double ratio;          /* value / reference */
        double change;         /* recent level / reference - 1: the median of the
                                  runs since the evidence began to accumulate
                                  (while it does; in a regression, of those
                                  from its shift's likeliest start), else of
                                  the last recent_runs, at most recent_runs */
        double change_lo, change_hi; /* its 95% confidence interval */
        double residual;       /* this run, worse positive, noise units (clamped) */
        double evidence;       /* cusum / alarm (or the drift test's share of
                                  drift_alarm): 1 is enough to alarm */
        unsigned learnt;       /* reference runs so far (learning progress) */
        bool regression;       /* the series' state after this run */
        enum detector_transition transition;
};

void detector_config_default(struct detector_config *c);
/* -EINVAL unless DETECTOR_REF_MIN <= min_runs, reference_runs <= DETECTOR_REF_MAX
 * (a min_runs above reference_runs means reference_runs),
 * 1 <= recent_runs <= DETECTOR_RECENT_MAX, threshold >= 0, allowance >= 0,
 * alarm > 0 and clamp > allowance. */
int detector_config_check(const struct detector_config *c);

void detector_init(struct detector *d);
/* Recompute the derived reference (after filling ref[] by hand, as the
 * store does); -EINVAL when a value is not finite and > 0. */
int detector_refresh(struct detector *d);

/* Judge `value` (> 0) of a run at time `t` and, if `counted` (the run was
 * not taken while the host was busy), advance the state.  -EINVAL for a
 * value that is not finite and > 0, a bad config or DETECTOR_NONE; the
 * detector is untouched on error. */
int detector_update(struct detector *d, const struct detector_config *c,
                    enum detector_direction dir, double value, double t,
                    bool counted, struct detector_verdict *ret);

/* The verdict the current state gives, without a new run. */
void detector_state(const struct detector *d, const struct detector_config *c,
                    enum detector_direction dir, struct detector_verdict *ret);

/* `baseline accept`: the recent level (the median of the runs since the
 * evidence began to accumulate, i.e. since the change, when there are 3
 * or more; else of the last c->recent_runs) becomes the reference, pinned
 * at t, with no regression.  The reference runs are moved to it, so the
 * noise estimate is kept, or widened when 8 or more runs of the new level
 * are clearly (1.5 times) noisier.  -EAGAIN while learning or with fewer than 3 recent runs. */
int detector_accept(struct detector *d, const struct detector_config *c, double t);

/* `baseline import`: pin the reference on the last DETECTOR_REF_MAX of
 * v[0..n) at time t.  -EINVAL with fewer than DETECTOR_REF_MIN values or a
 * value that is not finite and > 0. */
int detector_import(struct detector *d, const double *v, size_t n, double t);

enum detector_verify_outcome {
        DETECTOR_VERIFY_MORE = 0, /* not clear yet: run again */
        DETECTOR_VERIFY_PASS,
        DETECTOR_VERIFY_FAIL,
};

struct detector_verify_verdict {
        enum detector_verify_outcome outcome;
        bool at_bound;       /* decided because max_runs was reached */
        unsigned runs;
        double change;       /* fresh level / reference - 1 */
        double change_lo, change_hi; /* 95% confidence interval */
        double detectable;   /* the smallest worsening (a positive fraction)
                                these runs detect with 80% power */
        double p_worse;      /* one-sided p-value of "not worse" */
};

/* verify: fresh[0..n) against the reference, pinned or holding at least
 * c->min_runs runs.  The change is the
 * mean of the fresh logs against the reference's level, both winsorised at
 * ±2.5 noise (a two-sample comparison of means, with the reference's noise
 * for both samples, inflated by its autocorrelation; its quantiles those of
 * a Student-t with the reference's runs - 1 degrees of freedom, so a short
 * reference widens the interval).  FAIL as soon as the change is worse than `threshold`
 * with 99% confidence; PASS as soon as it is better than `threshold` with
 * 99% confidence; at max_runs, FAIL when worse than `threshold` and
 * significantly worse than the reference (p < 0.01), else PASS.  No
 * decision before min_runs.  -EINVAL before the reference holds
 * c->min_runs runs, or on bad values. */
int detector_verify(const struct detector *d, const struct detector_config *c,
                    enum detector_direction dir, const double *fresh, size_t n,
                    unsigned min_runs, unsigned max_runs,
                    struct detector_verify_verdict *ret);

/* Median of v[0..n) (NAN when n == 0); does not modify v.
 * n <= DETECTOR_REF_MAX. */
double detector_median(const double *v, size_t n);

#endif
