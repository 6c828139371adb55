/* bound.c — the best detection share a decline allows, for detsim.
 *
 * A target no detector can meet is no target (issue 28): before the
 * daemon's detector is blamed for missing "a -0.5%/run decline flagged
 * before -12% in 95% of trials", this computes what a clairvoyant does on
 * the same series.  It knows the reference level, the noise (its density,
 * outliers included, and its AR(1) coefficient) and the decline's exact
 * shape; only not when the decline starts.  Its statistic is the log
 * likelihood ratio of "a decline began j runs ago" against "no change",
 * over the innovations, for every j up to BOUND_WINDOW, combined two ways:
 * the largest (a CUSUM matched to the ramp, Lorden 1971) and the log of
 * their sum (Shiryaev-Roberts, the optimal rule for a start that could be
 * any run).  Each one's alarm level gives 1 false alarm per 10,000 clean
 * runs, or the rate the caller asks for (restarted after each alarm, as
 * the daemon's detector is), found on clean series for a grid of levels at
 * once; the better of the two is the bound.  Like the daemon's detector,
 * each series learns its level from its own first reference runs (the mean
 * of their logs, or the maximum likelihood level for heavy tails and
 * outliers); the same with the level known is printed beside it.
 *
 * The ceiling beside it knows the start as well: one test of the whole
 * decline at its last run (the Neyman-Pearson test: the known-slope
 * statistic, of signal-to-noise sqrt(sum of the squared mean shifts) /
 * sd), of the size a monitor's false alarms have over as many clean runs
 * (`within` in 10,000).  A monitor that meets its false-alarm rate is one
 * such test of the decline's runs, so none beats it; it only says how
 * far knowing the start would go. */
#include "bound.h"

#include <errno.h>
#include <stdbool.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define BOUND_WINDOW 48 /* ages a decline is tried at: twice the runs judged */
#define GRID_LO 2.0     /* alarm levels tried: GRID_LO, + GRID_STEP, ... */
#define GRID_STEP 0.05
#define GRID_N 320
#define SERIES_RUNS 5000 /* clean runs of one series, after its reference */
#define BOUND_REF_MAX 1000
#define FA_RATE 1e-4 /* unless the model says */
#define OUT_SHARE 0.02 /* detsim's outliers: 2% of runs, x0.5-0.8 */
#define OUT_LO 0.5
#define OUT_HI 0.8

enum { GLR, SR, N_STATS };

struct state {
        const struct bound_model *m;
        double s;                    /* sd of the innovations */
        double d[BOUND_WINDOW + 1];  /* their mean at age j (0: none) */
        double L[BOUND_WINDOW + 1];  /* log likelihood ratio by age */
        double level;                /* the reference level it judges against */
        double prev;                 /* last run's log, less the level */
        unsigned long since;         /* runs since the statistic began */
};

static double log_normal_cdf(double z)
{
        return log(0.5 * erfc(-z / M_SQRT2));
}

/* Log density (up to a constant) of an innovation e. */
static double log_density(const struct state *st, double e)
{
        double s = st->s;
        switch (st->m->family) {
        case BOUND_T3:
                return -2 * log1p(e * e / (s * s));
        case BOUND_OUTLIERS: {
                /* the run's log is e, or e + log(u) for u uniform on
                 * [OUT_LO, OUT_HI]: e^y / (OUT_HI - OUT_LO) on the logs */
                double g = -e * e / (2 * s * s) - log(s * sqrt(2 * M_PI));
                double a = (log(OUT_LO) - e - s * s) / s, b = (log(OUT_HI) - e - s * s) / s;
                double hb = log_normal_cdf(b), ha = log_normal_cdf(a);
                double h = e + s * s / 2 - log(OUT_HI - OUT_LO) + hb + log1p(-exp(ha - hb));
                double big = fmax(g, h);
                return big + log((1 - OUT_SHARE) * exp(g - big) + OUT_SHARE * exp(h - big));
        }
        default:
                return -e * e / (2 * s * s);
        }
}

static void state_init(struct state *st, const struct bound_model *m)
{
        memset(st, 0, sizeof(*st));
        st->m = m;
        st->s = m->sigma * sqrt(1 - m->phi * m->phi);
        for (int j = 1; j <= BOUND_WINDOW; j++)
                st->d[j] = log1p(-m->per_run * j) - m->phi * log1p(-m->per_run * (j - 1));
}

/* One run (its log x): the statistics, each as a prefix over ages,
 * out[k][j] = the statistic over ages 1..j. */
static void state_feed(struct state *st, double x, double out[N_STATS][BOUND_WINDOW + 1])
{
        x -= st->level;
        double e = x - st->m->phi * st->prev, l0 = log_density(st, e);
        st->prev = x;
        st->since++;
        for (int j = BOUND_WINDOW; j >= 1; j--)
                st->L[j] = (j > 1 ? st->L[j - 1] : 0) + log_density(st, e - st->d[j]) - l0;
        out[GLR][0] = out[SR][0] = -INFINITY;
        for (int j = 1; j <= BOUND_WINDOW; j++) {
                double a = out[SR][j - 1], b = st->L[j], hi = fmax(a, b);
                out[GLR][j] = fmax(out[GLR][j - 1], b);
                out[SR][j] = hi + log1p(exp(fmin(a, b) - hi));
        }
}

/* The statistic over the ages since it began. */
static double stat_of(const double *prefix, unsigned long since)
{
        return prefix[since < BOUND_WINDOW ? since : BOUND_WINDOW];
}

/* Log likelihood of the logs x[0..n) at `level`, with the state's noise
 * (normalised: the noise's scale is learnt too). */
static double log_lik(const struct state *st, const double *x, unsigned n, double level)
{
        double l = 0;
        for (unsigned i = 0; i < n; i++)
                l += log_density(st, x[i] - level);
        return st->m->family == BOUND_OUTLIERS ? l : l - n * log(st->s);
}

/* The maximum of f over [lo, hi] by golden-section search: the level
 * (what == 0) or the noise's scale (what == 1) with the other held. */
static double golden(struct state *st, const double *x, unsigned n, int what, double lo,
                     double hi)
{
        const double g = (sqrt(5) - 1) / 2;
        double keep = what ? st->level : st->s;
        while (hi - lo > 1e-4 * st->m->sigma) {
                double a = hi - g * (hi - lo), b = lo + g * (hi - lo), la, lb;
                *(what ? &st->s : &st->level) = a;
                la = log_lik(st, x, n, st->level);
                *(what ? &st->s : &st->level) = b;
                lb = log_lik(st, x, n, st->level);
                *(la > lb ? &hi : &lo) = la > lb ? b : a;
        }
        *(what ? &st->level : &st->s) = keep;
        return (lo + hi) / 2;
}

/* What a clairvoyant that knows the noise's shape learns from the
 * reference runs' logs x[0..n): the level (their mean; for heavy tails
 * and outliers, the maximum likelihood level) and, with `noise`, the
 * noise's scale too (their sd; the maximum likelihood scale). */
static void learn(struct state *st, const double *x, unsigned n, bool noise)
{
        double sum = 0, sq = 0;
        for (unsigned i = 0; i < n; i++)
                sum += x[i];
        st->level = sum / n;
        if (st->m->family == BOUND_GAUSS) {
                for (unsigned i = 0; i < n; i++)
                        sq += (x[i] - st->level) * (x[i] - st->level);
                if (noise && n > 1)
                        st->s = sqrt(sq / (n - 1));
                return;
        }
        double sigma = st->m->sigma;
        for (int round = 0; round < (noise ? 3 : 1); round++) {
                st->level = golden(st, x, n, 0, st->level - sigma, st->level + sigma);
                if (noise)
                        st->s = golden(st, x, n, 1, 0.5 * sigma, 2 * sigma);
        }
}

/* A fresh series: its reference learnt from `ref_runs` clean runs (or,
 * with ref_runs 0, the true level), with `noise` its noise too, then
 * judged against. */
static void series_start(struct state *st, const struct bound_model *m, bound_draw_fn draw,
                         void *ctx, unsigned ref_runs, bool noise)
{
        double x[BOUND_REF_MAX];
        state_init(st, m);
        for (unsigned i = 0; i < ref_runs; i++)
                x[i] = log(draw(ctx, 1.0));
        if (ref_runs) {
                learn(st, x, ref_runs, noise);
                st->prev = x[ref_runs - 1] - st->level;
        }
}

/* The level at which the false alarms counted on the grid come to
 * fa_rate a run: the tail of a likelihood ratio's alarms falls
 * exponentially with the level, so a line fitted to the logs of the
 * counts from 20 to 20 times fa_rate's (weighted by the counts, as
 * Poisson errors are) places it more surely than the few alarms at the
 * level itself would; *ret_rate gets the count at the grid level next
 * above it, per 10,000 runs. */
static void fit_level(const unsigned long *alarms, unsigned long runs, double fa_rate,
                      double *ret_level, double *ret_rate)
{
        double sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0, want = fa_rate * (double)runs;
        for (int g = 0; g < GRID_N; g++) {
                double n = (double)alarms[g], x = GRID_LO + GRID_STEP * g;
                if (n < 20 || n > 20 * want)
                        continue;
                sw += n;
                sx += n * x;
                sy += n * log(n);
                sxx += n * x * x;
                sxy += n * x * log(n);
        }
        double slope = (sw * sxy - sx * sy) / (sw * sxx - sx * sx);
        double h = sw > 0 && slope < 0 ? (log(want) - (sy - slope * sx) / sw) / slope : NAN;
        if (isnan(h)) {
                int g = GRID_N - 1;
                while (g > 0 && (double)alarms[g - 1] <= want)
                        g--;
                h = GRID_LO + GRID_STEP * g;
        }
        int g = (int)ceil((h - GRID_LO) / GRID_STEP);
        g = g < 0 ? 0 : g >= GRID_N ? GRID_N - 1 : g;
        *ret_level = h;
        *ret_rate = 1e4 * (double)alarms[g] / (double)runs;
}

/* The alarm level of each statistic for m->fa_rate false alarms a run, on
 * `runs` clean runs of series of SERIES_RUNS after their reference
 * (restarted after each alarm). */
static void calibrate(const struct bound_model *m, bound_draw_fn draw, void *ctx,
                      unsigned long runs, unsigned ref_runs, bool noise,
                      double ret_level[N_STATS],
                      double ret_rate[N_STATS])
{
        static unsigned long alarms[N_STATS][GRID_N], last[N_STATS][GRID_N];
        double p[N_STATS][BOUND_WINDOW + 1];
        struct state st;
        memset(alarms, 0, sizeof(alarms));
        for (unsigned long n = 0; n < runs; n++) {
                if (n % SERIES_RUNS == 0) {
                        series_start(&st, m, draw, ctx, ref_runs, noise);
                        for (int k = 0; k < N_STATS; k++)
                                for (int g = 0; g < GRID_N; g++)
                                        last[k][g] = n;
                }
                state_feed(&st, log(draw(ctx, 1.0)), p);
                for (int k = 0; k < N_STATS; k++)
                        for (int g = 0; g < GRID_N; g++)
                                if (stat_of(p[k], n + 1 - last[k][g]) >=
                                    GRID_LO + GRID_STEP * g) {
                                        alarms[k][g]++;
                                        last[k][g] = n + 1;
                                }
        }
        for (int k = 0; k < N_STATS; k++)
                fit_level(alarms[k], runs, m->fa_rate, &ret_level[k], &ret_rate[k]);
}

/* Share of `trials` declines flagged within `within` runs after `pre`
 * clean runs, by the better of the two statistics at their levels. */
static double detected(const struct bound_model *m, bound_draw_fn draw, void *ctx,
                       unsigned trials, unsigned ref_runs, bool noise, unsigned pre,
                       unsigned within,
                       const double level[N_STATS], int *ret_best)
{
        double p[N_STATS][BOUND_WINDOW + 1];
        unsigned hit[N_STATS] = { 0 };
        for (unsigned t = 0; t < trials; t++) {
                struct state st;
                double before[N_STATS] = { -INFINITY, -INFINITY };
                double during[N_STATS] = { -INFINITY, -INFINITY };
                series_start(&st, m, draw, ctx, ref_runs, noise);
                for (unsigned i = 1; i <= pre + within; i++) {
                        double lvl = i <= pre ? 1.0 : 1 - m->per_run * (i - pre);
                        state_feed(&st, log(draw(ctx, lvl)), p);
                        for (int k = 0; k < N_STATS; k++) {
                                double s = stat_of(p[k], st.since);
                                if (i <= pre)
                                        before[k] = fmax(before[k], s);
                                else
                                        during[k] = fmax(during[k], s);
                        }
                }
                for (int k = 0; k < N_STATS; k++)
                        hit[k] += before[k] < level[k] && during[k] >= level[k];
        }
        *ret_best = hit[SR] > hit[GLR] ? SR : GLR;
        return trials ? (double)hit[*ret_best] / trials : NAN;
}

/* The ceiling: the Neyman-Pearson test of the whole decline at its last
 * run, of size within x fa_rate (Gaussian innovations). */
static double known_start(const struct bound_model *m, unsigned within)
{
        double snr = 0, lo = 0, hi = 10, size = within * m->fa_rate;
        for (unsigned j = 1; j <= within; j++) {
                double d = log1p(-m->per_run * j) - m->phi * log1p(-m->per_run * (j - 1));
                snr += d * d;
        }
        snr = sqrt(snr) / (m->sigma * sqrt(1 - m->phi * m->phi));
        for (int i = 0; i < 60; i++) {
                double z = (lo + hi) / 2;
                *(0.5 * erfc(z / M_SQRT2) > size ? &lo : &hi) = z;
        }
        return m->family == BOUND_GAUSS ? 0.5 * erfc(-(snr - lo) / M_SQRT2) : NAN;
}

int bound_drift(const struct bound_model *model, bound_draw_fn draw, void *ctx,
                unsigned long null_runs, unsigned trials, unsigned ref_runs, unsigned pre,
                unsigned within, struct bound_result *ret)
{
        double level[N_STATS], rate[N_STATS];
        int best;
        struct bound_model mm = *model, *m = &mm;
        if (!(m->fa_rate > 0))
                m->fa_rate = FA_RATE;
        if (within >= BOUND_WINDOW || m->per_run * BOUND_WINDOW >= 1 ||
            ref_runs > BOUND_REF_MAX)
                return -EINVAL;
        calibrate(m, draw, ctx, null_runs, 0, false, level, rate);
        ret->known_level = detected(m, draw, ctx, trials, 0, false, pre, within, level, &best);
        ret->noise_learnt = NAN;
        if (m->phi == 0) {
                calibrate(m, draw, ctx, null_runs, ref_runs, true, level, rate);
                ret->noise_learnt = detected(m, draw, ctx, trials, ref_runs, true, pre, within,
                                             level, &best);
        }
        calibrate(m, draw, ctx, null_runs, ref_runs, false, level, rate);
        ret->share = detected(m, draw, ctx, trials, ref_runs, false, pre, within, level,
                              &best);
        ret->alarm = level[best];
        ret->false_alarms = rate[best];
        ret->known_start = known_start(m, within);
        return 0;
}
