/* detector.c — see detector.h. */
#include "detect/detector.h"

#include <assert.h>
#include <errno.h>
#include <math.h>
#include <string.h>

#define RHO_MAX 0.8
#define RHO_MIN_RUNS 30
#define ACCEPT_NOISE_RUNS 8 /* fewest runs accept takes a new noise from */
#define ACCEPT_NOISIER 1.5
#define LAST_Z_MAX 50 /* a residual that large is a broken run, not a level */
#define NOISE_FLOOR 1e-4 /* a relative noise below 0.01% is a flat series */
#define Z95 1.959964     /* two-sided 95% */
#define Z99 2.326348     /* one-sided 99% */
#define Z80 0.841621     /* one-sided 80% */
/* The fast CUSUM: FAST_K times the allowance, FAST_H times the alarm. */
#define FAST_K 2.0
#define FAST_H 0.5
#define DRIFT_MIN_RUNS 10 /* runs judged against a pinned reference before
                              the drift test starts */
#define DRIFT_SLOPE 0.005  /* the decline it is matched to: 0.5% a run (12%
                              in 24 runs); steeper ones are caught sooner by
                              it and the CUSUMs, shallower ones by the CUSUM */
#define DRIFT_HUBER 2.0    /* a residual's loss is quadratic within this */
#define DRIFT_RHO 0.6      /* the drift test's level rises by this times the
                              reference's autocorrelation: a long-run noise
                              learnt from correlated runs is less sure, and
                              one too low makes a sum of false alarms
                              (lab/detector/detector.sh: without it, AR(1)
                              0.5 at 6% gave 1.4 in 10,000 runs) */

void detector_config_default(struct detector_config *c)
{
        c->min_runs = 10;
        c->reference_runs = 100;
        c->recent_runs = 6;
        c->threshold = 0.05;
        c->allowance = 0.6;
        c->alarm = 8.5;
        c->clamp = 2.75;
        c->drift_alarm = 3.9;
}

int detector_config_check(const struct detector_config *c)
{
        if (c->reference_runs < DETECTOR_REF_MIN || c->reference_runs > DETECTOR_REF_MAX)
                return -EINVAL;
        if (c->min_runs < DETECTOR_REF_MIN || c->min_runs > DETECTOR_REF_MAX)
                return -EINVAL;
        if (c->recent_runs < 1 || c->recent_runs > DETECTOR_RECENT_MAX)
                return -EINVAL;
        if (!(c->threshold >= 0) || !isfinite(c->threshold))
                return -EINVAL;
        if (!(c->allowance >= 0) || !isfinite(c->allowance))
                return -EINVAL;
        if (!(c->alarm > 0) || !isfinite(c->alarm))
                return -EINVAL;
        if (!(c->clamp > c->allowance) || !isfinite(c->clamp))
                return -EINVAL;
        if (!(c->drift_alarm >= 0) || !isfinite(c->drift_alarm))
                return -EINVAL;
        return 0;
}

void detector_init(struct detector *d)
{
        memset(d, 0, sizeof(*d));
}

/* Insertion sort: n is at most DETECTOR_REF_MAX. */
static void sort_doubles(double *v, size_t n)
{
        for (size_t i = 1; i < n; i++) {
                double x = v[i];
                size_t j = i;
                for (; j > 0 && v[j - 1] > x; j--)
                        v[j] = v[j - 1];
                v[j] = x;
        }
}

double detector_median(const double *v, size_t n)
{
        double tmp[DETECTOR_REF_MAX];
        assert(n <= DETECTOR_REF_MAX);
        if (n == 0)
                return NAN;
        memcpy(tmp, v, n * sizeof(*v));
        sort_doubles(tmp, n);
        return n % 2 ? tmp[n / 2] : (tmp[n / 2 - 1] + tmp[n / 2]) / 2;
}

static bool value_ok(double v)
{
        return isfinite(v) && v > 0;
}

static double clampd(double x, double lo, double hi)
{
        return x < lo ? lo : x > hi ? hi : x;
}

/* Gaussian consistency of a standard deviation winsorised at ±WINSOR. */
#define WINSOR 2.5
#define WINSOR_CONSISTENCY 0.98872
/* The drift test's level leaves out the runs beyond ±SKIP. */
#define SKIP 3.0

/* The drift test's level: the mean of the logs of v[0..n) within ±SKIP
 * of their median m0 (s0 the scaled MAD), the others left out.  A drift
 * is measured by a sum over many runs, so a bias of the level matters
 * more than to a step: outlier runs, which on a host come from one side
 * (a disturbed run is slower), pull a winsorised mean towards them by
 * about their share times WINSOR noise units (0.05 for 2% of them, which
 * cost the drift test a tenth of its detections), a skipped mean only by
 * those that fall inside SKIP. */
static double skipped_level(const double *v, size_t n, double m0, double s0)
{
        double sum = 0, k = 0;
        for (size_t i = 0; i < n; i++)
                if (fabs(log(v[i]) - m0) <= SKIP * s0) {
                        sum += log(v[i]);
                        k++;
                }
        return k ? sum / k : m0;
}

/* Level, noise and lag-1 autocorrelation of the logs of v[0..n): a median
 * and a scaled MAD first, then the mean and the standard deviation of the
 * logs winsorised at ±2.5 of that, which keep the median's robustness to
 * a few wild runs at nearly the efficiency of a plain mean and sd (the MAD
 * alone is only 37% efficient: its error over 50 runs moved the false
 * alarm rate by a factor of four). */
static void reference_of(const double *v, size_t n, struct detector_reference *ret)
{
        double lg[DETECTOR_REF_MAX] = { 0 }, dev[DETECTOR_REF_MAX] = { 0 };
        for (size_t i = 0; i < n; i++)
                lg[i] = log(v[i]);
        double m0 = detector_median(lg, n);
        for (size_t i = 0; i < n; i++)
                dev[i] = fabs(lg[i] - m0);
        double s0 = fmax(DETECTOR_MAD_SCALE * detector_median(dev, n), NOISE_FLOOR);
        double sum = 0, sq = 0;
        for (size_t i = 0; i < n; i++) {
                double w = m0 + s0 * clampd((lg[i] - m0) / s0, -WINSOR, WINSOR);
                sum += w;
                lg[i] = w;
        }
        double m = sum / (double)n;
        ret->drift_level = skipped_level(v, n, m0, s0);
        for (size_t i = 0; i < n; i++)
                sq += (lg[i] - m) * (lg[i] - m);
        double s = n > 1 ? sqrt(sq / (double)(n - 1)) / WINSOR_CONSISTENCY : s0;
        s = fmax(s, NOISE_FLOOR);
        double num = 0, den = 0;
        for (size_t i = 0; i < n; i++) {
                double r = (lg[i] - m) / s;
                den += r * r;
                num += i ? r * (lg[i - 1] - m) / s : 0;
        }
        /* the lag-1 estimate is biased low by about (1 + 3 rho) / n, and
         * its error is about sqrt((1 - rho^2) / n): an estimate too low
         * leaves the runs' common swings in the evidence (false alarms),
         * one too high only costs power, so a correlation the runs show
         * clearly (two errors above 0) is taken 3/8 of an error higher
         * (lab/detector/detector.sh: at 1/4 the AR(1) false alarms went over 1 in
         * 10,000 runs, at 1/2 the detection fell below 0.9 of the oracle's).  Fewer
         * than RHO_MIN_RUNS runs take only a clear one; a flat series
         * (noise at the floor) has none to speak of. */
        double rho = 0;
        if (den >= 0.01 * (double)n && n >= 3) {
                double r = num / den;
                r += (1 + 3 * r) / (double)n;
                double se = sqrt((1 - fmin(r * r, RHO_MAX * RHO_MAX)) / (double)n);
                if (r > 2 * se)
                        rho = r + se * 3 / 8;
                else if (n >= RHO_MIN_RUNS)
                        rho = r;
        }
        ret->log_level = m;
        ret->sigma = s;
        ret->mad = s0;
        ret->rho = clampd(rho, 0, RHO_MAX);
        ret->scale = s * sqrt((1 + ret->rho) / (1 - ret->rho));
}

int detector_refresh(struct detector *d)
{
        if (d->n_ref > DETECTOR_REF_MAX || d->n_recent > DETECTOR_RECENT_MAX ||
            d->n_judged > d->n_recent)
                return -EINVAL;
        for (unsigned i = 0; i < d->n_ref; i++)
                if (!value_ok(d->ref[i]))
                        return -EINVAL;
        for (unsigned i = 0; i < d->n_recent; i++)
                if (!value_ok(d->recent[i]))
                        return -EINVAL;
        if (d->pinned && d->n_ref < DETECTOR_REF_MIN)
                return -EINVAL;
        memset(&d->rs, 0, sizeof(d->rs));
        if (d->n_ref)
                reference_of(d->ref, d->n_ref, &d->rs);
        return 0;
}

/* The reference runs a verdict needs (min_runs, at most reference_runs). */
static unsigned min_runs_of(const struct detector_config *c)
{
        return c->min_runs < c->reference_runs ? c->min_runs : c->reference_runs;
}

static bool judged(const struct detector *d, const struct detector_config *c)
{
        return d->pinned || d->n_ref >= min_runs_of(c);
}

/* The normal score of a Student-t value t with nu degrees of freedom
 * (Wallace 1959: within 0.01 of the exact score for nu >= 5 out to
 * |t| = 10, and exact as nu grows). */
static double t_to_normal(double t, double nu)
{
        double z = (8 * nu + 1) / (8 * nu + 3) * sqrt(nu * log1p(t * t / nu));
        return t < 0 ? -z : z;
}

/* Its inverse: the Student-t quantile with the normal score z. */
static double normal_to_t(double z, double nu)
{
        double w = z * (8 * nu + 3) / (8 * nu + 1);
        double t = sqrt(nu * expm1(w * w / nu));
        return z < 0 ? -t : t;
}

/* Worse-positive residual of log value x against the predictive
 * distribution of the reference's n runs, as a normal score: the
 * difference from the level in units of the noise times sqrt(1 + 1/n)
 * (the level's own error), a Student-t with n - 1 degrees of freedom (the
 * noise's), mapped to N(0,1).  Unclamped. */
static double residual_of(const struct detector *d, enum detector_direction dir,
                          double x)
{
        double n = d->n_ref;
        double t = (log(x) - d->rs.log_level) / (d->rs.sigma * sqrt(1 + 1 / n));
        double z = n > 1 ? t_to_normal(t, n - 1) : t;
        return dir == DETECTOR_HIGHER_IS_BETTER ? -z : z;
}

/* What this run adds to the evidence: the residual with the part the
 * previous run predicts taken out (the AR(1) innovation, in its own
 * noise units), so that runs which drift together count once. */
static double innovation_of(const struct detector *d, double zc)
{
        double rho = d->rs.rho;
        return (zc - rho * d->last_z) / sqrt(1 - rho * rho);
}

/* Median of the last n recent runs' logs. */
static double recent_log_level(const struct detector *d, unsigned n)
{
        double lg[DETECTOR_RECENT_MAX];
        if (n > d->n_recent)
                n = d->n_recent;
        for (unsigned i = 0; i < n; i++)
                lg[i] = log(d->recent[d->n_recent - n + i]);
        return detector_median(lg, n);
}

/* The runs the change is measured over: those since the evidence began
 * to accumulate while it does (so a step is measured on its own runs),
 * else the last recent_runs; at most recent_runs either way. */
static unsigned change_runs(const struct detector *d, const struct detector_config *c)
{
        unsigned n = d->cusum > 0 && d->segment ? d->segment : c->recent_runs;
        if (n > c->recent_runs)
                n = c->recent_runs;
        return n < d->n_recent ? n : d->n_recent;
}

/* Of a regression's last n runs, those from the likeliest start of its
 * shift on: the last k that maximise the sum of their worse-signed log
 * residuals over sqrt(k), the likelihood of a level shifted the worse way
 * from that run on; k at least 3 (or n), so that one wild run among them
 * is outvoted, as in a median.  The CUSUM's segment can begin a run or
 * two before a step (noise held it above 0), and a median over both
 * levels halved the step in logs: one entry in five reported a 50% drop
 * as about 30%, with an interval that left out the truth
 * (lab/detector/detsim's change rows). */
static unsigned shift_runs(const struct detector *d, enum detector_direction dir, unsigned n)
{
        double sign = dir == DETECTOR_HIGHER_IS_BETTER ? -1 : 1, sum = 0, best = 0;
        unsigned from = n, least = n < 3 ? n : 3;
        for (unsigned k = 1; k <= n; k++) {
                sum += sign * (log(d->recent[d->n_recent - k]) - d->rs.log_level);
                if (k >= least && sum / sqrt(k) > best) {
                        best = sum / sqrt(k);
                        from = k;
                }
        }
        return from;
}

/* The recent level against the reference, with a 95% interval: the
 * median's standard error is 1.2533 sd/sqrt(n), for the recent runs and
 * the reference runs alike. */
static void change_of(const struct detector *d, const struct detector_config *c,
                      enum detector_direction dir, struct detector_verdict *v)
{
        unsigned n = change_runs(d, c);
        if (n && d->regression && d->cusum > 0 && dir != DETECTOR_NONE)
                n = shift_runs(d, dir, n);
        if (!n || !d->n_ref) {
                v->change = v->change_lo = v->change_hi = NAN;
                return;
        }
        double diff = recent_log_level(d, n) - d->rs.log_level;
        double se = 1.2533 * d->rs.scale * sqrt(1.0 / n + 1.0 / d->n_ref);
        v->change = expm1(diff);
        v->change_lo = expm1(diff - Z95 * se);
        v->change_hi = expm1(diff + Z95 * se);
}

/* Loss of a residual r in the ramp's likelihood: r^2 / 2 within
 * ±DRIFT_HUBER, linear beyond (Huber 1964), and flat beyond ±cap, where
 * a run says nothing of the level (an outlier is as likely under either
 * hypothesis). */
static double ramp_loss(double r, double cap)
{
        double a = fmin(fabs(r), cap);
        return a <= DRIFT_HUBER ? a * a / 2 : DRIFT_HUBER * a - DRIFT_HUBER * DRIFT_HUBER / 2;
}

/* The drift test: the log likelihood ratio of "a decline of DRIFT_SLOPE a
 * run began k runs ago" against "no change", over the last n_judged
 * recent runs (those judged against this pinned reference), for every k,
 * with each run's worse-positive residual u against the reference's
 * skipped level in units of the long-run noise (the noise inflated by the
 * autocorrelation: what a sum over many runs varies by); the largest, as
 * its signed root (noise units, as a z-score), divided by
 * 1 + DRIFT_RHO × rho.  0 until the reference is pinned and has judged
 * DRIFT_MIN_RUNS runs. */
static double drift_of(const struct detector *d, const struct detector_config *c,
                       enum detector_direction dir)
{
        unsigned n = d->n_judged < d->n_recent ? d->n_judged : d->n_recent;
        double u[DETECTOR_RECENT_MAX], best = 0;
        if (!d->pinned || n < DRIFT_MIN_RUNS || !(c->drift_alarm > 0))
                return 0;
        for (unsigned i = 0; i < n; i++) {
                double z = (log(d->recent[d->n_recent - n + i]) - d->rs.drift_level) / d->rs.scale;
                u[i] = dir == DETECTOR_HIGHER_IS_BETTER ? -z : z;
        }
        double beta = DRIFT_SLOPE / d->rs.scale;
        for (unsigned k = 1; k <= n; k++) {
                double lr = 0;
                for (unsigned j = 1; j <= k; j++) {
                        double x = u[n - k + j - 1];
                        lr += ramp_loss(x, c->clamp) - ramp_loss(x - beta * j, c->clamp);
                }
                best = fmax(best, lr);
        }
        return sqrt(2 * best) / (1 + DRIFT_RHO * d->rs.rho);
}

void detector_state(const struct detector *d, const struct detector_config *c,
                    enum detector_direction dir, struct detector_verdict *ret)
{
        struct detector_verdict v = {
                .value = NAN, .ratio = NAN, .residual = NAN,
                .reference = NAN, .noise = NAN,
                .regression = d->regression, .learnt = d->n_ref,
        };
        v.valid = judged(d, c);
        v.pinned = d->pinned;
        if (d->n_ref) {
                v.reference = exp(d->rs.log_level);
                v.noise = d->rs.sigma;
        }
        if (d->pinned)
                v.reference_time = d->pinned_at;
        if (v.valid) {
                double e = fmax(d->cusum / c->alarm, d->fast / (FAST_H * c->alarm));
                if (c->drift_alarm > 0)
                        e = fmax(e, drift_of(d, c, dir) / c->drift_alarm);
                v.evidence = d->regression ? fmax(e, 1) : e;
        }
        change_of(d, c, dir, &v);
        *ret = v;
}

static void push_bounded(double *v, unsigned *n, unsigned max, double x)
{
        if (*n >= max) {
                memmove(v, v + 1, (max - 1) * sizeof(*v));
                *n = max - 1;
        }
        v[(*n)++] = x;
}

/* The minimum effect as a worse-positive difference of logs: a figure
 * that must rise is `threshold` worse at ×(1 - threshold), one that must
 * fall at ×(1 + threshold). */
static double margin_of(enum detector_direction dir, double threshold)
{
        return dir == DETECTOR_HIGHER_IS_BETTER ? -log1p(-fmin(threshold, 0.99))
                                                : log1p(threshold);
}

/* The recent level is worse than the reference by at least threshold. */
static bool effect_big_enough(const struct detector *d, const struct detector_config *c,
                              enum detector_direction dir, unsigned n)
{
        double diff = recent_log_level(d, n) - d->rs.log_level;
        double worse = dir == DETECTOR_HIGHER_IS_BETTER ? -diff : diff;
        return worse > 0 && worse >= margin_of(dir, c->threshold) * (1 - 1e-9);
}

/* The innovation every run adds while the level stays `worse` (a
 * worse-positive difference of logs) off the reference: its residual,
 * scored as a run's is (through a small reference's t quantiles, which
 * cap a far level near 6), times sqrt((1 - rho) / (1 + rho)), what is
 * left of a residual that repeats once the previous run's share is
 * taken out.  The way back is judged in these units, so that a run far
 * beyond the minimum effect is never scored inside it. */
static double sustained_innovation(const struct detector *d, enum detector_direction dir,
                                   double worse)
{
        double x = exp(d->rs.log_level + (dir == DETECTOR_HIGHER_IS_BETTER ? -worse : worse));
        return residual_of(d, dir, x) * sqrt((1 - d->rs.rho) / (1 + d->rs.rho));
}

/* One counted run of a pinned series, z its worse-positive residual. */
static enum detector_transition advance(struct detector *d, const struct detector_config *c,
                                        enum detector_direction dir, double z)
{
        /* clamped after the correlation is taken out: a sustained step
         * keeps adding up to clamp - allowance a run, and one wild run is
         * still bounded (the next run's innovation pays some back) */
        double u = innovation_of(d, clampd(z, -LAST_Z_MAX, LAST_Z_MAX));
        double zc = clampd(u, -c->clamp, c->clamp);
        d->last_z = clampd(z, -LAST_Z_MAX, LAST_Z_MAX);
        d->cusum = fmax(0, d->cusum + zc - c->allowance);
        d->fast = fmax(0, d->fast + zc - FAST_K * c->allowance);
        d->segment = d->cusum > 0 ? d->segment + 1 : 0;
        if (d->pinned && d->n_judged < DETECTOR_RECENT_MAX)
                d->n_judged++;
        if (!d->regression) {
                unsigned n = d->segment < c->recent_runs ? d->segment : c->recent_runs;
                bool drift = c->drift_alarm > 0 && drift_of(d, c, dir) >= c->drift_alarm;
                if (drift && n < c->recent_runs)
                        n = c->recent_runs; /* a decline: its latest runs */
                if (d->cusum < c->alarm && d->fast < FAST_H * c->alarm && !drift)
                        return DETECTOR_STEADY;
                /* enough evidence: wait for the effect */
                d->cusum = fmin(d->cusum, c->alarm);
                d->fast = fmin(d->fast, FAST_H * c->alarm);
                if (!effect_big_enough(d, c, dir, n ? n : 1))
                        return DETECTOR_STEADY;
                /* the regressed level, in the innovations' units */
                double lvl = recent_log_level(d, n ? n : 1) - d->rs.log_level;
                double size = sustained_innovation(d, dir,
                                                   dir == DETECTOR_HIGHER_IS_BETTER ? -lvl : lvl);
                d->shift = clampd(size, 2 * c->allowance + 0.5, c->clamp);
                d->regression = true;
                d->clear = 0;
                return DETECTOR_ENTERED;
        }
        d->cusum = fmin(d->cusum, c->alarm);
        d->fast = fmin(d->fast, FAST_H * c->alarm);
        /* "back" against "still at shift": each run adds the boundary minus
         * its (unclamped) innovation, clamped, the boundary being half way
         * to the regressed level
         * or the minimum effect, whichever is further, so that a level back
         * inside the minimum effect always clears, even on a reference so
         * steady that the way back is many noise units long */
        double effect = sustained_innovation(d, dir, margin_of(dir, c->threshold));
        double bound = fmax(d->shift / 2, effect);
        d->clear = fmax(0, d->clear + clampd(bound - u, -c->clamp, c->clamp));
        if (d->clear < c->alarm)
                return DETECTOR_STEADY;
        d->regression = false;
        d->cusum = d->fast = d->clear = d->shift = 0;
        d->segment = d->n_judged = 0;
        return DETECTOR_LEFT;
}

/* A counted run joins the reference still being learnt, right after it
 * was judged (so the next run's score is independent of this one's),
 * unless the series is in a regression; at reference_runs it is pinned. */
static void learn(struct detector *d, const struct detector_config *c, double value,
                  double t)
{
        if (d->regression)
                return;
        push_bounded(d->ref, &d->n_ref, DETECTOR_REF_MAX, value);
        reference_of(d->ref, d->n_ref, &d->rs);
        if (d->n_ref >= c->reference_runs) {
                d->pinned = true;
                d->pinned_at = t;
                d->n_judged = 0;
        }
}

int detector_update(struct detector *d, const struct detector_config *c,
                    enum detector_direction dir, double value, double t,
                    bool counted, struct detector_verdict *ret)
{
        if (!value_ok(value) || dir == DETECTOR_NONE || detector_config_check(c) < 0)
                return -EINVAL;
        enum detector_transition tr = DETECTOR_STEADY;
        double z = judged(d, c) ? residual_of(d, dir, value) : NAN;
        if (counted && d->regression && !judged(d, c)) {
                /* the settings now withhold verdicts from a reference this
                 * short (min_runs raised above the runs it holds): no
                 * regression stands without one, and one that stood would
                 * keep the reference from learning, for good */
                d->regression = false;
                d->cusum = d->fast = d->clear = d->shift = 0;
                d->segment = d->n_judged = 0;
                tr = DETECTOR_LEFT;
        }
        if (counted) {
                push_bounded(d->recent, &d->n_recent, DETECTOR_RECENT_MAX, value);
                if (!isnan(z))
                        tr = advance(d, c, dir, z);
                if (!d->pinned)
                        learn(d, c, value, t);
        }
        detector_state(d, c, dir, ret);
        ret->value = value;
        ret->transition = tr;
        if (d->n_ref)
                ret->ratio = value / exp(d->rs.log_level);
        ret->residual = isnan(z) ? NAN : clampd(z, -c->clamp, c->clamp);
        return 0;
}

/* The runs accept takes the new level from: those since the evidence
 * began to accumulate (the runs since the change) when there are at least
 * 3, else the last recent_runs. */
static unsigned accept_runs(const struct detector *d, const struct detector_config *c)
{
        unsigned n = d->cusum > 0 && d->segment >= 3 ? d->segment : c->recent_runs;
        return n < d->n_recent ? n : d->n_recent;
}

int detector_accept(struct detector *d, const struct detector_config *c, double t)
{
        if (!d->pinned || d->n_recent < 3)
                return -EAGAIN;
        unsigned n = accept_runs(d, c);
        double level = recent_log_level(d, n), spread = 1;
        if (n >= ACCEPT_NOISE_RUNS) {
                /* a new normal that is clearly noisier than the old one (half
                 * as noisy again: more than the error of a noise estimate over
                 * a few runs) keeps its own noise, so the reference is not
                 * stricter than the host; judged by the scaled MAD, which a
                 * run or two of the old level among them (the CUSUM's change
                 * point can be a run early) does not move */
                struct detector_reference now;
                reference_of(d->recent + (d->n_recent - n), n, &now);
                if (now.mad > ACCEPT_NOISIER * d->rs.sigma)
                        spread = now.mad / d->rs.sigma;
        }
        /* move (and widen) the reference runs, so that everything derived
         * from them (level, noise, correlation, verify's window) follows */
        for (unsigned i = 0; i < d->n_ref; i++)
                d->ref[i] = exp(level + (log(d->ref[i]) - d->rs.log_level) * spread);
        d->pinned_at = t;
        d->regression = false;
        d->cusum = d->fast = d->clear = d->shift = d->last_z = 0;
        d->segment = d->n_judged = 0;
        reference_of(d->ref, d->n_ref, &d->rs);
        return 0;
}

int detector_import(struct detector *d, const double *v, size_t n, double t)
{
        if (n < DETECTOR_REF_MIN)
                return -EINVAL;
        for (size_t i = 0; i < n; i++)
                if (!value_ok(v[i]))
                        return -EINVAL;
        size_t k = n > DETECTOR_REF_MAX ? DETECTOR_REF_MAX : n;
        detector_init(d);
        memcpy(d->ref, v + (n - k), k * sizeof(*v));
        d->n_ref = (unsigned)k;
        d->pinned = true;
        d->pinned_at = t;
        reference_of(d->ref, d->n_ref, &d->rs);
        return 0;
}

/* Mean of the logs of v[0..n), each winsorised at ±WINSOR of the
 * reference's noise around their median, as the reference itself was: one
 * wild fresh run moves it by at most WINSOR × noise / n. */
static double fresh_log_level(const struct detector *d, const double *v, size_t n)
{
        double lg[DETECTOR_REF_MAX] = { 0 }, s = 0, sd = d->rs.sigma;
        for (size_t i = 0; i < n; i++)
                lg[i] = log(v[i]);
        double m = detector_median(lg, n);
        for (size_t i = 0; i < n; i++)
                s += m + sd * clampd((lg[i] - m) / sd, -WINSOR, WINSOR);
        return s / (double)n;
}

int detector_verify(const struct detector *d, const struct detector_config *c,
                    enum detector_direction dir, const double *fresh, size_t n,
                    unsigned min_runs, unsigned max_runs,
                    struct detector_verify_verdict *ret)
{
        struct detector_verify_verdict v = { .runs = (unsigned)n };
        if (!n || n > DETECTOR_REF_MAX || dir == DETECTOR_NONE ||
            detector_config_check(c) < 0 || !judged(d, c))
                return -EINVAL;
        for (size_t i = 0; i < n; i++)
                if (!value_ok(fresh[i]))
                        return -EINVAL;
        double diff = fresh_log_level(d, fresh, n) - d->rs.log_level;
        double worse = dir == DETECTOR_HIGHER_IS_BETTER ? -diff : diff;
        double se = d->rs.scale * sqrt(1.0 / (double)n + 1.0 / d->n_ref);
        double margin = margin_of(dir, c->threshold);
        /* the noise is the reference's estimate: Student-t quantiles with
         * its n - 1 degrees of freedom (a short reference is less sure) */
        double nu = d->n_ref > 1 ? d->n_ref - 1 : 1;
        double q95 = normal_to_t(Z95, nu), q99 = normal_to_t(Z99, nu);
        v.change = expm1(diff);
        v.change_lo = expm1(diff - q95 * se);
        v.change_hi = expm1(diff + q95 * se);
        /* the smallest worsening FAIL would catch half the time (at the
         * minimum effect plus the 99% margin), and four times in five */
        v.detectable = expm1(margin + (q99 + Z80) * se);
        v.p_worse = 0.5 * erfc(t_to_normal(worse / se, nu) / M_SQRT2);
        if (n >= min_runs && worse - q99 * se > margin)
                v.outcome = DETECTOR_VERIFY_FAIL;
        else if (n >= min_runs && worse + q99 * se < margin)
                v.outcome = DETECTOR_VERIFY_PASS;
        else if (n >= max_runs) {
                v.at_bound = true;
                v.outcome = worse > margin && v.p_worse < 0.01 ?
                        DETECTOR_VERIFY_FAIL : DETECTOR_VERIFY_PASS;
        }
        *ret = v;
        return 0;
}
