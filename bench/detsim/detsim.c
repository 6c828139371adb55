/* detsim.c — the regression detector judged on many synthetic series.
 *
 * A detector change is judged by its false-alarm rate and its detection
 * delay under several noise models, not argued: this program feeds the
 * daemon's detector (daemon/detector.c, the same code the daemon and
 * `benchwatch replay` run) and, beside it, a frozen copy of the detector
 * benchwatch had before (olddet.c: per-run median ± MAD rule with a
 * rolling window), with the same series, and prints both.
 *
 * Every series learns its reference from its own first runs (the
 * commissioning window), as on a host; nothing is given.  Noise is
 * multiplicative, value = level × exp(e), with e of standard deviation
 * `noise` drawn from one of four models: Gaussian; Student-t with 3
 * degrees of freedom (scaled to the same sd); Gaussian with 2% outlier
 * runs at ×0.5–0.8; AR(1) with φ = 0.5 (marginal sd `noise`).
 *
 * With --oracle the new detector is handed the true level, noise and
 * autocorrelation instead of learning them: what the same rule could do
 * if a host knew them, to tell a limit of the rule from one of the data.
 *
 * Usage: detsim [--trials N] [--fa-trials N] [--fa-runs N] [--seed S]
 *               [--new-only] [--oracle] [--k K] [--h H] [--clamp C]
 *               [--ref N] [--recent N] [--threshold T]
 * Prints one table; exit 0 when every target of the new detector is met,
 * 1 when one is missed. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "detector.h"
#include "olddet.h"

/* ---- random numbers: splitmix64, Box-Muller --------------------------- */

static uint64_t rng_state = 20261201;

static uint64_t rng_next(void)
{
        uint64_t z = (rng_state += 0x9e3779b97f4a7c15u);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
        return z ^ (z >> 31);
}

static double uniform(void) /* (0, 1] */
{
        return ((double)(rng_next() >> 11) + 1) / 9007199254740992.0;
}

static double gauss(void)
{
        return sqrt(-2 * log(uniform())) * cos(2 * M_PI * uniform());
}

/* Student-t, 3 degrees of freedom, scaled to unit variance. */
static double student3(void)
{
        double chi = 0;
        for (int i = 0; i < 3; i++) {
                double g = gauss();
                chi += g * g;
        }
        return gauss() / sqrt(chi / 3) / sqrt(3.0);
}

/* ---- noise models --------------------------------------------------------- */

enum model { M_GAUSS, M_T3, M_OUTLIERS, M_AR1, N_MODELS };
static const char *const model_names[] = { "gaussian", "student-t3", "2% outliers", "AR(1) 0.5" };

struct noise {
        enum model m;
        double sigma;
        double ar; /* AR(1) state */
};

static void noise_init(struct noise *n, enum model m, double sigma)
{
        n->m = m;
        n->sigma = sigma;
        n->ar = sigma * gauss();
}

/* One run's figure at `level`. */
static double draw(struct noise *n, double level)
{
        double e;
        switch (n->m) {
        case M_T3:
                e = n->sigma * student3();
                break;
        case M_AR1:
                n->ar = 0.5 * n->ar + n->sigma * sqrt(1 - 0.25) * gauss();
                e = n->ar;
                break;
        default:
                e = n->sigma * gauss();
        }
        double v = level * exp(e);
        if (n->m == M_OUTLIERS && uniform() <= 0.02)
                v *= 0.5 + 0.3 * uniform();
        return v;
}

/* ---- the two detectors behind one face ------------------------------------ */

struct det {
        bool old;
        struct detector d;
        struct olddet o;
        struct detector_config c;
        struct olddet_config oc;
        double t;
};

static struct detector_config new_config;

static void det_init(struct det *x, bool old)
{
        memset(x, 0, sizeof(*x));
        x->old = old;
        x->c = new_config;
        detector_init(&x->d);
        olddet_config_default(&x->oc);
        olddet_init(&x->o);
}

/* Feeds one counted run; returns 1 when it entered a regression, -1 when
 * it left one, 0 otherwise. */
static int det_feed(struct det *x, double v)
{
        x->t += 600;
        if (x->old) {
                struct olddet_verdict ov;
                olddet_update(&x->o, &x->oc, OLDDET_HIGHER_IS_BETTER, v, true, &ov);
                return ov.transition == OLDDET_ENTERED ? 1 : ov.transition == OLDDET_LEFT ? -1 : 0;
        }
        struct detector_verdict dv;
        detector_update(&x->d, &x->c, DETECTOR_HIGHER_IS_BETTER, v, x->t, true, &dv);
        return dv.transition == DETECTOR_ENTERED ? 1 : dv.transition == DETECTOR_LEFT ? -1 : 0;
}

static bool det_regression(const struct det *x)
{
        return x->old ? x->o.regression : x->d.regression;
}

static bool oracle;

/* The commissioning window, from the series itself; or, with --oracle,
 * the true level, noise and autocorrelation handed to the new detector
 * (what no host can know: the best the same decision rule can do). */
static void commission(struct det *x, struct noise *n)
{
        for (unsigned i = 0; i < new_config.reference_runs; i++)
                det_feed(x, draw(n, 1.0));
        if (oracle && !x->old) {
                double rho = n->m == M_AR1 ? 0.5 : 0;
                x->d.rs.log_level = 0;
                x->d.rs.sigma = n->m == M_T3 ? n->sigma * 0.8 : n->sigma;
                x->d.rs.rho = rho;
                x->d.rs.scale = x->d.rs.sigma * sqrt((1 + rho) / (1 - rho));
        }
}

/* ---- scenarios -------------------------------------------------------------- */

static unsigned trials = 2000, fa_trials = 400, fa_runs = 5000;

/* Alarms entered per 10,000 clean runs after commissioning. */
#define FA_BATCHES 10

/* Alarms entered per 10,000 clean runs after commissioning; *ret_lo and
 * *ret_hi get the lowest and highest rate of FA_BATCHES batches of the
 * series (the spread: a few series whose reference came out unlucky
 * carry most of the alarms, so it is wider than counting suggests). */
static double false_alarms(bool old, enum model m, double sigma, double *ret_lo,
                           double *ret_hi)
{
        unsigned long alarms = 0, runs = 0, batch[FA_BATCHES] = { 0 };
        for (unsigned t = 0; t < fa_trials; t++) {
                struct det x;
                struct noise n;
                det_init(&x, old);
                noise_init(&n, m, sigma);
                commission(&x, &n);
                for (unsigned i = 0; i < fa_runs; i++) {
                        bool alarm = det_feed(&x, draw(&n, 1.0)) == 1;
                        alarms += alarm;
                        batch[t % FA_BATCHES] += alarm;
                }
                runs += fa_runs;
        }
        *ret_lo = INFINITY;
        *ret_hi = 0;
        for (int b = 0; b < FA_BATCHES; b++) {
                double per = 1e4 * (double)batch[b] * FA_BATCHES / (double)runs;
                *ret_lo = fmin(*ret_lo, per);
                *ret_hi = fmax(*ret_hi, per);
        }
        return 1e4 * (double)alarms / (double)runs;
}

#define PRE_RUNS 20 /* clean runs between commissioning and the change */

/* A commissioned detector that has seen PRE_RUNS more clean runs; false
 * when it alarmed on them (a trial that then counts as a miss). */
static bool settled(struct det *x, struct noise *n, bool old, enum model m, double sigma)
{
        det_init(x, old);
        noise_init(n, m, sigma);
        commission(x, n);
        for (unsigned i = 0; i < PRE_RUNS; i++)
                det_feed(x, draw(n, 1.0));
        return !det_regression(x);
}

/* Share of trials in which a step to level `to` is flagged within `within`
 * runs (an alarm before the step counts as a miss); *ret_delay gets the
 * median delay of the flagged ones. */
static double step_detected(bool old, enum model m, double sigma, double to,
                            unsigned within, double *ret_delay)
{
        unsigned hit = 0, delays[64] = { 0 };
        for (unsigned t = 0; t < trials; t++) {
                struct det x;
                struct noise n;
                if (!settled(&x, &n, old, m, sigma))
                        continue;
                for (unsigned i = 1; i <= within; i++)
                        if (det_feed(&x, draw(&n, to)) == 1) {
                                hit++;
                                delays[i]++;
                                break;
                        }
        }
        unsigned acc = 0, k = 0;
        while (k < 63 && (acc += delays[k]) * 2 < hit)
                k++;
        *ret_delay = hit ? k : NAN;
        return (double)hit / trials;
}

/* Share of trials in which a decline of `per_run` of the reference per run
 * is flagged before the level is `limit` below it; *ret_depth gets the
 * median depth (fraction below the reference) at which it was flagged. */
static double drift_detected(bool old, enum model m, double sigma, double per_run,
                             double limit, double *ret_depth)
{
        unsigned hit = 0;
        unsigned steps = (unsigned)ceil(limit / per_run);
        unsigned *at = calloc(steps + 1, sizeof(*at));
        for (unsigned t = 0; t < trials && at; t++) {
                struct det x;
                struct noise n;
                if (!settled(&x, &n, old, m, sigma))
                        continue;
                for (unsigned i = 1; i < steps; i++)
                        if (det_feed(&x, draw(&n, 1 - per_run * i)) == 1) {
                                hit++;
                                at[i]++;
                                break;
                        }
        }
        unsigned acc = 0, k = 0;
        while (at && k < steps && (acc += at[k]) * 2 < hit)
                k++;
        *ret_depth = hit ? per_run * k : NAN;
        free(at);
        return (double)hit / trials;
}

#define VERIFY_MIN 3
#define VERIFY_MAX 20

/* verify after commissioning (and PRE_RUNS daemon runs) on a host whose
 * level is now `to`: share of trials that fail, and the mean runs used. */
static double verify_fails(bool old, enum model m, double sigma, double to,
                           double *ret_runs)
{
        unsigned fails = 0;
        double runs = 0;
        for (unsigned t = 0; t < trials; t++) {
                struct det x;
                struct noise n;
                det_init(&x, old);
                noise_init(&n, m, sigma);
                commission(&x, &n);
                for (unsigned i = 0; i < PRE_RUNS; i++)
                        det_feed(&x, draw(&n, 1.0));
                double fresh[VERIFY_MAX];
                if (old) {
                        /* today: the median of 3 runs, judged by the per-run rule */
                        struct olddet_verdict ov;
                        for (unsigned i = 0; i < 3; i++)
                                fresh[i] = draw(&n, to);
                        olddet_evaluate(&x.o, &x.oc, OLDDET_HIGHER_IS_BETTER,
                                        olddet_median(fresh, 3), &ov);
                        fails += ov.bad;
                        runs += 3;
                        continue;
                }
                struct detector_verify_verdict vv = { 0 };
                for (unsigned i = 0; i < VERIFY_MAX && vv.outcome == DETECTOR_VERIFY_MORE; i++) {
                        fresh[i] = draw(&n, to);
                        detector_verify(&x.d, &x.c, DETECTOR_HIGHER_IS_BETTER, fresh, i + 1,
                                        VERIFY_MIN, VERIFY_MAX, &vv);
                }
                fails += vv.outcome == DETECTOR_VERIFY_FAIL;
                runs += vv.runs;
        }
        *ret_runs = runs / trials;
        return (double)fails / trials;
}

/* ---- the table ------------------------------------------------------------------- */

static bool all_met = true;
static bool new_only;

static void row(const char *what, const char *model, double sigma, double old_v,
                const char *old_extra, double new_v, const char *new_extra,
                const char *target, bool met)
{
        char o[64], nw[64];
        if (new_only)
                snprintf(o, sizeof(o), "-");
        else
                snprintf(o, sizeof(o), "%.3g%s", old_v, old_extra);
        snprintf(nw, sizeof(nw), "%.3g%s", new_v, new_extra);
        printf("%-30s %-12s %3.0f%% | %-27s | %-27s | %-10s %s\n", what, model,
               sigma * 100, o, nw, target, met ? "met" : "MISSED");
        all_met &= met;
        fflush(stdout);
}

static void fa_rows(void)
{
        for (int m = 0; m < N_MODELS; m++)
                for (int s = 0; s < 2; s++) {
                        double sigma = s ? 0.06 : 0.03, lo = 0, hi = 0;
                        char oe[32], ne[32];
                        double o = new_only ? 0 : false_alarms(true, m, sigma, &lo, &hi);
                        snprintf(oe, sizeof(oe), " (%.2g..%.2g)", lo, hi);
                        double nv = false_alarms(false, m, sigma, &lo, &hi);
                        snprintf(ne, sizeof(ne), " (%.2g..%.2g)", lo, hi);
                        row("false alarms /10k runs", model_names[m], sigma, o, oe, nv, ne,
                            "<= 1", nv <= 1);
                }
}

/* Half-width of the 95% interval of a share p of `trials` trials. */
static double ci95(double p)
{
        return 1.96 * sqrt(p * (1 - p) / trials);
}

static void step_row(const char *what, enum model m, double sigma, double to,
                     unsigned within, double goal)
{
        double od = NAN, nd, o = new_only ? 0 : step_detected(true, m, sigma, to, within, &od);
        double nv = step_detected(false, m, sigma, to, within, &nd);
        char oe[40], ne[40], tg[16];
        snprintf(oe, sizeof(oe), " \u00b1%.2f (median %.0f)", ci95(o), od);
        snprintf(ne, sizeof(ne), " \u00b1%.2f (median %.0f)", ci95(nv), nd);
        snprintf(tg, sizeof(tg), ">= %.2f", goal);
        row(what, model_names[m], sigma, o, isnan(od) ? "" : oe, nv, isnan(nd) ? "" : ne, tg,
            nv >= goal);
}

static void step_rows(void)
{
        for (int m = 0; m < N_MODELS; m++)
                step_row("15% drop flagged in 6 runs", m, 0.06, 0.85, 6,
                         m == M_GAUSS || m == M_T3 ? 0.90 : 0.80);
        for (int m = 0; m < N_MODELS; m++)
                step_row("10% drop flagged in 12 runs", m, 0.06, 0.90, 12, 0.80);
        for (int m = 0; m < N_MODELS; m++)
                step_row("10% drop flagged in 5 runs", m, 0.03, 0.90, 5, 0.90);
}

static void drift_rows(void)
{
        for (int m = 0; m < N_MODELS; m++)
                for (int s = 0; s < 2; s++) {
                        double sigma = s ? 0.06 : 0.03, od = NAN, nd;
                        double o = new_only ? 0 : drift_detected(true, m, sigma, 0.005, 0.12, &od);
                        double nv = drift_detected(false, m, sigma, 0.005, 0.12, &nd);
                        char oe[40], ne[40];
                        snprintf(oe, sizeof(oe), " \u00b1%.2f (at -%.1f%%)", ci95(o), od * 100);
                        snprintf(ne, sizeof(ne), " \u00b1%.2f (at -%.1f%%)", ci95(nv), nd * 100);
                        row("-0.5%/run flagged before -12%", model_names[m], sigma, o,
                            isnan(od) ? "" : oe, nv, isnan(nd) ? "" : ne, ">= 0.95", nv >= 0.95);
                }
}

static void verify_rows(void)
{
        for (int m = 0; m < N_MODELS; m++) {
                double orun = 3, nrun, o = new_only ? 0 : verify_fails(true, m, 0.06, 1.0, &orun);
                double nv = verify_fails(false, m, 0.06, 1.0, &nrun);
                char oe[40], ne[40];
                snprintf(oe, sizeof(oe), " \u00b1%.3f (%.0f runs)", ci95(o), orun);
                snprintf(ne, sizeof(ne), " \u00b1%.3f (%.1f runs)", ci95(nv), nrun);
                row("verify passes, unchanged", model_names[m], 0.06, 1 - o, oe, 1 - nv, ne,
                    ">= 0.99", 1 - nv >= 0.99);
                o = new_only ? 0 : verify_fails(true, m, 0.06, 0.85, &orun);
                nv = verify_fails(false, m, 0.06, 0.85, &nrun);
                snprintf(oe, sizeof(oe), " \u00b1%.3f (%.0f runs)", ci95(o), orun);
                snprintf(ne, sizeof(ne), " \u00b1%.3f (%.1f runs)", ci95(nv), nrun);
                row("verify fails, 15% drop", model_names[m], 0.06, o, oe, nv, ne, ">= 0.95",
                    nv >= 0.95);
        }
}

static void usage(FILE *f)
{
        fprintf(f, "Usage: detsim [--trials N] [--fa-trials N] [--fa-runs N] [--seed S] [--new-only] [--oracle]\n"
                   "              [--k K] [--h H] [--clamp C] [--ref N] [--recent N] [--threshold T]\n");
}

static int parse_args(int argc, char **argv)
{
        static const struct option opts[] = {
                { "trials", required_argument, NULL, 't' },
                { "fa-trials", required_argument, NULL, 'F' },
                { "fa-runs", required_argument, NULL, 'f' },
                { "seed", required_argument, NULL, 's' },
                { "new-only", no_argument, NULL, 'n' },
                { "oracle", no_argument, NULL, 'o' },
                { "k", required_argument, NULL, 'k' },
                { "h", required_argument, NULL, 'H' },
                { "clamp", required_argument, NULL, 'c' },
                { "ref", required_argument, NULL, 'r' },
                { "recent", required_argument, NULL, 'R' },
                { "threshold", required_argument, NULL, 'T' },
                { "help", no_argument, NULL, '?' },
                { 0 },
        };
        int c;
        detector_config_default(&new_config);
        while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
                switch (c) {
                case 't': trials = (unsigned)strtoul(optarg, NULL, 10); break;
                case 'F': fa_trials = (unsigned)strtoul(optarg, NULL, 10); break;
                case 'f': fa_runs = (unsigned)strtoul(optarg, NULL, 10); break;
                case 's': rng_state = strtoull(optarg, NULL, 10); break;
                case 'n': new_only = true; break;
                case 'o': oracle = true; break;
                case 'k': new_config.allowance = strtod(optarg, NULL); break;
                case 'H': new_config.alarm = strtod(optarg, NULL); break;
                case 'c': new_config.clamp = strtod(optarg, NULL); break;
                case 'r': new_config.reference_runs = (unsigned)strtoul(optarg, NULL, 10); break;
                case 'R': new_config.recent_runs = (unsigned)strtoul(optarg, NULL, 10); break;
                case 'T': new_config.threshold = strtod(optarg, NULL); break;
                default: usage(stderr); return -EINVAL;
                }
        }
        if (detector_config_check(&new_config) < 0 || !trials || !fa_trials || !fa_runs) {
                fprintf(stderr, "detsim: invalid settings\n");
                return -EINVAL;
        }
        return 0;
}

int main(int argc, char **argv)
{
        if (parse_args(argc, argv) < 0)
                return 2;
        printf("new detector: reference %u runs, recent %u, threshold %.2f, k %.2f, h %.2f, clamp %.2f\n"
               "today's: window 20, warmup 5, threshold 0.10, k 3 x MAD, debounce 3\n"
               "%u trials per cell (false alarms: %u series x %u runs after commissioning)\n\n",
               new_config.reference_runs, new_config.recent_runs, new_config.threshold,
               new_config.allowance, new_config.alarm, new_config.clamp, trials, fa_trials, fa_runs);
        printf("%-30s %-12s %4s | %-27s | %-27s | %s\n", "figure", "noise model", "sd",
               "today", "new", "target");
        fa_rows();
        step_rows();
        drift_rows();
        verify_rows();
        printf("\n%s\n", all_met ? "every target met" : "some target MISSED");
        return all_met ? 0 : 1;
}
