/* detector.c — see detector.h. */
#include "detector.h"

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
/* The fast CUSUM: FAST_K times the allowance, FAST_H times the alarm. */
#define FAST_K 2.0
#define FAST_H 0.5

void detector_config_default(struct detector_config *c)
{
        c->min_runs = 10;
        c->reference_runs = 100;
        c->recent_runs = 6;
        c->threshold = 0.05;
        c->allowance = 0.6;
        c->alarm = 8.5;
        c->clamp = 2.75;
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
        /* the lag-1 estimate is biased low by about (1 + 3 rho) / n */
        /* a flat series (noise at the floor) has no correlation to speak
         * of, and fewer than RHO_MIN_RUNS runs cannot tell one (the
         * estimate's error is 1/sqrt(n)): both are taken as independent */
        bool flat = den < 0.01 * (double)n || n < RHO_MIN_RUNS;
        double rho = flat ? 0 : num / den;
        if (!flat)
                rho += (1 + 3 * rho) / (double)n;
        ret->log_level = m;
        ret->sigma = s;
        ret->rho = clampd(rho, 0, RHO_MAX);
        ret->scale = s * sqrt((1 + ret->rho) / (1 - ret->rho));
}

int detector_refresh(struct detector *d)
{
        if (d->n_ref > DETECTOR_REF_MAX || d->n_recent > DETECTOR_RECENT_MAX)
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

/* Worse-positive residual of log value x, in units of the per-run noise,
 * unclamped. */
static double residual_of(const struct detector *d, enum detector_direction dir,
                          double x)
{
        double z = (log(x) - d->rs.log_level) / d->rs.sigma;
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

/* The recent level against the reference, with a 95% interval: the
 * median's standard error is 1.2533 sd/sqrt(n), for the recent runs and
 * the reference runs alike. */
static void change_of(const struct detector *d, const struct detector_config *c,
                      struct detector_verdict *v)
{
        unsigned n = change_runs(d, c);
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

void detector_state(const struct detector *d, const struct detector_config *c,
                    enum detector_direction dir, struct detector_verdict *ret)
{
        struct detector_verdict v = {
                .value = NAN, .ratio = NAN, .residual = NAN,
                .reference = NAN, .noise = NAN,
                .regression = d->regression, .learnt = d->n_ref,
        };
        v.valid = d->pinned;
        if (d->n_ref) {
                v.reference = exp(d->rs.log_level);
                v.noise = d->rs.sigma;
        }
        if (d->pinned) {
                v.reference_time = d->pinned_at;
                double e = fmax(d->cusum / c->alarm, d->fast / (FAST_H * c->alarm));
                v.evidence = d->regression ? fmax(e, 1) : e;
        }
        change_of(d, c, &v);
        (void)dir;
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
        if (!d->regression) {
                unsigned n = d->segment < c->recent_runs ? d->segment : c->recent_runs;
                if (d->cusum < c->alarm && d->fast < FAST_H * c->alarm)
                        return DETECTOR_STEADY;
                /* enough evidence: wait for the effect */
                d->cusum = fmin(d->cusum, c->alarm);
                d->fast = fmin(d->fast, FAST_H * c->alarm);
                if (!effect_big_enough(d, c, dir, n ? n : 1))
                        return DETECTOR_STEADY;
                /* the regressed level, in the innovations' units */
                double lvl = recent_log_level(d, n ? n : 1) - d->rs.log_level;
                double size = (dir == DETECTOR_HIGHER_IS_BETTER ? -lvl : lvl) / d->rs.sigma *
                        sqrt((1 - d->rs.rho) / (1 + d->rs.rho));
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
        double effect = margin_of(dir, c->threshold) / d->rs.sigma *
                        sqrt((1 - d->rs.rho) / (1 + d->rs.rho));
        double bound = fmax(d->shift / 2, effect);
        d->clear = fmax(0, d->clear + clampd(bound - u, -c->clamp, c->clamp));
        if (d->clear < c->alarm)
                return DETECTOR_STEADY;
        d->regression = false;
        d->cusum = d->fast = d->clear = d->shift = 0;
        d->segment = 0;
        return DETECTOR_LEFT;
}

static void learn(struct detector *d, const struct detector_config *c, double value,
                  double t)
{
        push_bounded(d->ref, &d->n_ref, DETECTOR_REF_MAX, value);
        reference_of(d->ref, d->n_ref, &d->rs);
        if (d->n_ref >= c->reference_runs) {
                d->pinned = true;
                d->pinned_at = t;
                d->last_z = 0;
        }
}

int detector_update(struct detector *d, const struct detector_config *c,
                    enum detector_direction dir, double value, double t,
                    bool counted, struct detector_verdict *ret)
{
        if (!value_ok(value) || dir == DETECTOR_NONE || detector_config_check(c) < 0)
                return -EINVAL;
        enum detector_transition tr = DETECTOR_STEADY;
        double z = d->pinned ? residual_of(d, dir, value) : NAN;
        if (counted) {
                push_bounded(d->recent, &d->n_recent, DETECTOR_RECENT_MAX, value);
                if (d->pinned)
                        tr = advance(d, c, dir, z);
                else
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
                 * stricter than the host */
                struct detector_reference now;
                reference_of(d->recent + (d->n_recent - n), n, &now);
                if (now.sigma > ACCEPT_NOISIER * d->rs.sigma)
                        spread = now.sigma / d->rs.sigma;
        }
        /* move (and widen) the reference runs, so that everything derived
         * from them (level, noise, correlation, verify's window) follows */
        for (unsigned i = 0; i < d->n_ref; i++)
                d->ref[i] = exp(level + (log(d->ref[i]) - d->rs.log_level) * spread);
        d->pinned_at = t;
        d->regression = false;
        d->cusum = d->fast = d->clear = d->shift = d->last_z = 0;
        d->segment = 0;
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
        if (!d->pinned || !n || n > DETECTOR_REF_MAX || dir == DETECTOR_NONE ||
            detector_config_check(c) < 0)
                return -EINVAL;
        for (size_t i = 0; i < n; i++)
                if (!value_ok(fresh[i]))
                        return -EINVAL;
        double diff = fresh_log_level(d, fresh, n) - d->rs.log_level;
        double worse = dir == DETECTOR_HIGHER_IS_BETTER ? -diff : diff;
        double se = d->rs.scale * sqrt(1.0 / (double)n + 1.0 / d->n_ref);
        double margin = margin_of(dir, c->threshold);
        v.change = expm1(diff);
        v.change_lo = expm1(diff - Z95 * se);
        v.change_hi = expm1(diff + Z95 * se);
        v.p_worse = 0.5 * erfc(worse / se / M_SQRT2);
        if (n >= min_runs && worse - Z99 * se > margin)
                v.outcome = DETECTOR_VERIFY_FAIL;
        else if (n >= min_runs && worse + Z99 * se < margin)
                v.outcome = DETECTOR_VERIFY_PASS;
        else if (n >= max_runs) {
                v.at_bound = true;
                v.outcome = worse > margin && v.p_worse < 0.01 ?
                        DETECTOR_VERIFY_FAIL : DETECTOR_VERIFY_PASS;
        }
        *ret = v;
        return 0;
}
