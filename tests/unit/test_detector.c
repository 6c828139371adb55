/* test_detector.c — the regression detector on synthetic series.
 *
 * The series come from a fixed-seed PRNG, so every run of the test sees the
 * same numbers.  Each series learns its reference from its own first runs,
 * as on a host.  Noise alone must not alarm; real steps and drifts in the
 * bad direction must, within the runs the design promises, and clear when
 * the level comes back; improvements, wild single runs, changes below the
 * minimum effect and runs that are not counted must not; accept, import
 * and verify do what `baseline accept|import` and `benchwatch verify`
 * promise.  (The statistical targets over thousands of series are measured
 * by lab/detector/detector.sh, not here.) */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "test.h"
#include "detect/detector.h"

/* splitmix64 and Box-Muller: deterministic gaussian noise. */
static uint64_t rng_state;

static uint64_t rng_next(void)
{
        uint64_t z = (rng_state += 0x9e3779b97f4a7c15u);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
        return z ^ (z >> 31);
}

static double rng_uniform(void) /* (0, 1] */
{
        return ((double)(rng_next() >> 11) + 1) / 9007199254740992.0;
}

static double rng_gauss(void)
{
        return sqrt(-2 * log(rng_uniform())) * cos(2 * M_PI * rng_uniform());
}

/* level × exp(sigma × N(0,1)) */
static double noisy(double level, double sigma)
{
        return level * exp(sigma * rng_gauss());
}

struct tally {
        unsigned entered, left;
        int first_entered, first_left; /* run index, -1 if none */
};

static double clock_t0 = 1764547200; /* 2025-12-01, each run 10 min later */

/* Feeds n values of `level` with relative noise `sigma`, counted or not;
 * run indices are counted from 1 within this call. */
static struct tally feed_as(struct detector *d, const struct detector_config *c,
                            enum detector_direction dir, double level, double sigma,
                            unsigned n, bool counted)
{
        struct tally t = { .first_entered = -1, .first_left = -1 };
        for (unsigned i = 1; i <= n; i++) {
                struct detector_verdict v;
                clock_t0 += 600;
                int r = detector_update(d, c, dir, noisy(level, sigma), clock_t0, counted, &v);
                EXPECT(r == 0);
                if (v.transition == DETECTOR_ENTERED && t.entered++ == 0)
                        t.first_entered = (int)i;
                if (v.transition == DETECTOR_LEFT && t.left++ == 0)
                        t.first_left = (int)i;
        }
        return t;
}

static struct tally feed(struct detector *d, const struct detector_config *c,
                         enum detector_direction dir, double level, double sigma, unsigned n)
{
        return feed_as(d, c, dir, level, sigma, n, true);
}

/* A detector that learnt level 1000 at noise sigma over the default window. */
static void commissioned(struct detector *d, const struct detector_config *c,
                         enum detector_direction dir, double sigma)
{
        detector_init(d);
        struct tally t = feed(d, c, dir, 1000, sigma, c->reference_runs);
        while (!d->pinned && t.entered == 0 && clock_t0 < 1e9)
                t.entered += feed(d, c, dir, 1000, sigma, 1).entered;
        EXPECT(t.entered == 0 && d->pinned);
}

static void test_config(void)
{
        struct detector_config c;
        detector_config_default(&c);
        EXPECT(detector_config_check(&c) == 0);
        EXPECT(c.reference_runs == 100 && c.recent_runs == 6 && c.threshold == 0.05);
        struct detector_config bad = c;
        bad.reference_runs = DETECTOR_REF_MIN - 1;
        EXPECT(detector_config_check(&bad) == -EINVAL);
        bad = c;
        bad.reference_runs = DETECTOR_REF_MAX + 1;
        EXPECT(detector_config_check(&bad) == -EINVAL);
        bad = c;
        bad.clamp = bad.allowance;
        EXPECT(detector_config_check(&bad) == -EINVAL);
        bad = c;
        bad.alarm = 0;
        EXPECT(detector_config_check(&bad) == -EINVAL);
        bad = c;
        bad.threshold = NAN;
        EXPECT(detector_config_check(&bad) == -EINVAL);

        struct detector d;
        struct detector_verdict v;
        detector_init(&d);
        EXPECT(detector_update(&d, &c, DETECTOR_HIGHER_IS_BETTER, 0, 0, true, &v) == -EINVAL);
        EXPECT(detector_update(&d, &c, DETECTOR_HIGHER_IS_BETTER, -1, 0, true, &v) == -EINVAL);
        EXPECT(detector_update(&d, &c, DETECTOR_HIGHER_IS_BETTER, INFINITY, 0, true, &v) ==
               -EINVAL);
        EXPECT(detector_update(&d, &c, DETECTOR_NONE, 1, 0, true, &v) == -EINVAL);
        EXPECT(detector_update(&d, &bad, DETECTOR_HIGHER_IS_BETTER, 1, 0, true, &v) == -EINVAL);
        EXPECT(d.n_ref == 0 && d.n_recent == 0);
}

/* No verdict before min_runs, verdicts while learning after it; pinned on
 * the last reference run, at its time, with the level and noise the runs
 * had. */
static void test_learning(void)
{
        struct detector_config c;
        struct detector d;
        struct detector_verdict v;
        detector_config_default(&c);
        c.reference_runs = 50;
        detector_init(&d);
        rng_state = 1;
        unsigned i = 0;
        while (!d.pinned && i < 200) {
                i++;
                EXPECT(detector_update(&d, &c, DETECTOR_HIGHER_IS_BETTER, noisy(500, 0.04),
                                       1000 + i, true, &v) == 0);
                EXPECT(v.valid == (i >= c.min_runs) && v.pinned == d.pinned &&
                       !v.regression && v.learnt == i);
                EXPECT(isnan(v.residual) == (i <= c.min_runs));
        }
        EXPECT(i == 50);
        EXPECT(v.valid && v.pinned && d.pinned && d.pinned_at == 1000 + i &&
               v.reference_time == 1000 + i);
        EXPECT_NEAR_ABS(v.reference, 500, 500 * 0.03);
        EXPECT_NEAR_ABS(v.noise, 0.04, 0.012);
        EXPECT(d.rs.rho < 0.3); /* independent runs */
        EXPECT(v.evidence < 1 && v.transition == DETECTOR_STEADY);
        /* later runs never move the pinned reference */
        double ref = v.reference;
        feed(&d, &c, DETECTOR_HIGHER_IS_BETTER, 520, 0.04, 30);
        detector_state(&d, &c, DETECTOR_HIGHER_IS_BETTER, &v);
        EXPECT(v.reference == ref && d.n_ref == 50);
}

/* Clean runs at 3% and 6% noise, 3000 runs each: never an alarm. */
static void test_noise_only(void)
{
        struct detector_config c;
        struct detector d;
        detector_config_default(&c);
        for (int k = 0; k < 2; k++) {
                rng_state = 100 + k;
                commissioned(&d, &c, DETECTOR_HIGHER_IS_BETTER, k ? 0.06 : 0.03);
                struct tally t =
                        feed(&d, &c, DETECTOR_HIGHER_IS_BETTER, 1000, k ? 0.06 : 0.03, 3000);
                EXPECT(t.entered == 0);
        }
}

/* A 15% step at 3% noise is flagged within a few runs with its size and a
 * confidence interval around it; the level coming back clears it. */
static void test_step_and_recovery(void)
{
        struct detector_config c;
        struct detector d;
        struct detector_verdict v;
        detector_config_default(&c);
        rng_state = 7;
        commissioned(&d, &c, DETECTOR_HIGHER_IS_BETTER, 0.03);
        EXPECT(feed(&d, &c, DETECTOR_HIGHER_IS_BETTER, 1000, 0.03, 20).entered == 0);
        struct tally t = feed(&d, &c, DETECTOR_HIGHER_IS_BETTER, 850, 0.03, 10);
        EXPECT(t.entered == 1 && t.first_entered >= 1 && t.first_entered <= 5);
        detector_state(&d, &c, DETECTOR_HIGHER_IS_BETTER, &v);
        EXPECT(v.regression && v.evidence >= 1);
        EXPECT_NEAR_ABS(v.change, -0.15, 0.03);
        EXPECT(v.change_lo < v.change && v.change < v.change_hi);
        EXPECT(v.change_lo < -0.15 + 0.02 && v.change_hi > -0.15 - 0.02 && v.change_hi < -0.08);
        t = feed(&d, &c, DETECTOR_HIGHER_IS_BETTER, 1000, 0.03, 15);
        EXPECT(t.left == 1 && t.entered == 0 && t.first_left <= 8);
        EXPECT(!d.regression && d.cusum < c.alarm);
        /* and a new step is caught again */
        t = feed(&d, &c, DETECTOR_HIGHER_IS_BETTER, 850, 0.03, 10);
        EXPECT(t.entered == 1);
}

/* The change a regression reports when it enters is the step's own: four
 * runs just worse than the reference (noise that held the CUSUM above 0)
 * before a 50% drop are no part of it.  Measured over the whole CUSUM
 * segment (its last 6 runs), the median fell between the two levels
 * (-30%), with an interval that left out -50%.  And a single wild run
 * later is no shift of its own (it was, said as +200% or -95%, when one
 * run could be the likeliest start). */
static void test_change_of_a_step(void)
{
        struct detector_config c;
        struct detector d;
        struct detector_verdict v = { 0 };
        detector_config_default(&c);
        rng_state = 11;
        commissioned(&d, &c, DETECTOR_HIGHER_IS_BETTER, 0.03);
        EXPECT(feed(&d, &c, DETECTOR_HIGHER_IS_BETTER, 1000, 0.03, 20).entered == 0);
        double lvl = exp(d.rs.log_level), t = clock_t0;
        for (int i = 0; i < 4; i++) /* a noise unit worse */
                EXPECT(detector_update(&d, &c, DETECTOR_HIGHER_IS_BETTER,
                                       lvl * exp(-d.rs.scale), t += 600, true, &v) == 0);
        EXPECT(!v.regression && d.cusum > 0 && d.segment == 4);
        for (int i = 0; i < 6 && v.transition != DETECTOR_ENTERED; i++)
                EXPECT(detector_update(&d, &c, DETECTOR_HIGHER_IS_BETTER, lvl * 0.5, t += 600,
                                       true, &v) == 0);
        printf("  a 50%% drop after 4 runs a noise unit worse: %+.1f%% (%+.1f..%+.1f%%) "
               "at entry, CUSUM segment %u runs\n", v.change * 100, v.change_lo * 100,
               v.change_hi * 100, d.segment);
        EXPECT(v.transition == DETECTOR_ENTERED && d.segment > 4);
        EXPECT_NEAR_ABS(v.change, -0.5, 0.005);
        EXPECT(v.change_lo < -0.5 && v.change_hi > -0.5);
        /* one wild run in the regression, either way, is outvoted */
        static const double wild[] = { 3.0, 0.05 };
        for (int w = 0; w < 2; w++) {
                for (int i = 0; i < 3; i++)
                        EXPECT(detector_update(&d, &c, DETECTOR_HIGHER_IS_BETTER, lvl * 0.5,
                                               t += 600, true, &v) == 0);
                EXPECT(detector_update(&d, &c, DETECTOR_HIGHER_IS_BETTER, lvl * wild[w],
                                       t += 600, true, &v) == 0);
                printf("  then a run at %gx the reference: %+.1f%%\n", wild[w], v.change * 100);
                EXPECT(v.regression);
                EXPECT_NEAR_ABS(v.change, -0.5, 0.005);
        }
}

/* A deep slowdown on a small reference is not taken for a recovery: the
 * cpu rate of an alerts.sh run (8-run reference at 4% noise, threshold
 * 25%, then a CPU quota that left 20-50% of the rate) "recovered" at -70%
 * when the way back was judged in noise units of the level while the runs
 * were scored through the 8-run reference's t quantiles, which cap them
 * near 6. */
static void test_deep_step_on_small_reference(void)
{
        static const double rate[] = {
                1500.7, 1573.3, 1585.4, 1420.2, 1604.5, 1550.5, 1547.7,
                1491.7, 1569.6, 1547.3, 1562.4, 1576.7, 1608.2, 1554.9,
                1530.4, 1532.1, 1538.8, 1550.8, 1526.1, 1476.7, 1432.7,
                1394.4, 1267.6, 1432.5, 1458.6, 1468.7, 1414.1, 962.6,
                1105.3, 1026.0, 1162.6, 1067.1, 275.5, 440.7, 431.2,
                481.9, 648.7, 549.6, 611.9, 695.7, 753.1, 608.2, 583.1,
                569.0
        };
        struct detector_config c;
        struct detector d;
        detector_config_default(&c);
        c.reference_runs = 8;
        c.threshold = 0.25;
        detector_init(&d);
        unsigned entered = 0, left = 0;
        double t = clock_t0;
        for (size_t i = 0; i < sizeof(rate) / sizeof(rate[0]); i++) {
                struct detector_verdict v;
                EXPECT(detector_update(&d, &c, DETECTOR_HIGHER_IS_BETTER, rate[i], t += 1.25,
                                       true, &v) == 0);
                entered += v.transition == DETECTOR_ENTERED;
                left += v.transition == DETECTOR_LEFT;
        }
        EXPECT(entered == 1 && left == 0 && d.regression);
        /* the same reference still clears once the rate is back */
        struct tally back = feed(&d, &c, DETECTOR_HIGHER_IS_BETTER, 1533, 0.04, 15);
        EXPECT(back.left == 1 && back.first_left <= 12);
}

/* Latency: higher is worse. */
static void test_lower_is_better(void)
{
        struct detector_config c;
        struct detector d;
        detector_config_default(&c);
        rng_state = 11;
        commissioned(&d, &c, DETECTOR_LOWER_IS_BETTER, 0.04);
        EXPECT(feed(&d, &c, DETECTOR_LOWER_IS_BETTER, 700, 0.04, 50).entered == 0);
        struct tally t = feed(&d, &c, DETECTOR_LOWER_IS_BETTER, 1000, 0.04, 20);
        EXPECT(!d.regression);
        t = feed(&d, &c, DETECTOR_LOWER_IS_BETTER, 1250, 0.04, 10);
        EXPECT(t.entered == 1 && t.first_entered <= 5);
}

/* Better figures never alarm, however far they go. */
static void test_good_direction(void)
{
        struct detector_config c;
        struct detector d;
        detector_config_default(&c);
        rng_state = 13;
        commissioned(&d, &c, DETECTOR_HIGHER_IS_BETTER, 0.05);
        EXPECT(feed(&d, &c, DETECTOR_HIGHER_IS_BETTER, 2000, 0.05, 200).entered == 0);
        EXPECT(d.cusum == 0);
}

/* Wild runs (a tenth of the level) add at most clamp - allowance each:
 * one in every 20 runs never alarms; five in a row do.  (Seed 17 held,
 * by chance, seven runs 4.8% low at 3% noise, which the drift test
 * matched to a decline flags, wild runs or not; seed 22 has such a
 * stretch for the detector before it.) */
static void test_wild_runs(void)
{
        struct detector_config c;
        struct detector d;
        struct detector_verdict v;
        detector_config_default(&c);
        rng_state = 18;
        commissioned(&d, &c, DETECTOR_HIGHER_IS_BETTER, 0.03);
        for (int round = 0; round < 50; round++) {
                EXPECT(detector_update(&d, &c, DETECTOR_HIGHER_IS_BETTER, 100, 0, true, &v) == 0);
                EXPECT(v.transition == DETECTOR_STEADY && v.residual == c.clamp);
                EXPECT(feed(&d, &c, DETECTOR_HIGHER_IS_BETTER, 1000, 0.03, 19).entered == 0);
        }
        unsigned entered = 0;
        for (int i = 0; i < 5; i++) {
                EXPECT(detector_update(&d, &c, DETECTOR_HIGHER_IS_BETTER, 100, 0, true, &v) == 0);
                entered += v.transition == DETECTOR_ENTERED;
        }
        EXPECT(entered == 1);
}

/* A quiet host: a 3% drop is real but below the minimum effect (5%); an
 * 8% one is a regression. */
static void test_minimum_effect(void)
{
        struct detector_config c;
        struct detector d;
        detector_config_default(&c);
        rng_state = 19;
        commissioned(&d, &c, DETECTOR_HIGHER_IS_BETTER, 0.005);
        EXPECT(feed(&d, &c, DETECTOR_HIGHER_IS_BETTER, 970, 0.005, 100).entered == 0);
        EXPECT(d.cusum >= c.alarm * 0.99); /* the evidence is there, the effect is not */
        struct tally t = feed(&d, &c, DETECTOR_HIGHER_IS_BETTER, 920, 0.005, 10);
        EXPECT(t.entered == 1 && t.first_entered <= 4);
}

/* Runs taken while the host was busy are judged and change nothing. */
static void test_uncounted_runs(void)
{
        struct detector_config c;
        struct detector d;
        struct detector_verdict v;
        detector_config_default(&c);
        rng_state = 23;
        commissioned(&d, &c, DETECTOR_HIGHER_IS_BETTER, 0.03);
        struct detector before = d;
        struct tally t = feed_as(&d, &c, DETECTOR_HIGHER_IS_BETTER, 500, 0.03, 50, false);
        EXPECT(t.entered == 0 && !memcmp(&before, &d, sizeof(d)));
        EXPECT(detector_update(&d, &c, DETECTOR_HIGHER_IS_BETTER, 500, 0, false, &v) == 0);
        EXPECT(v.valid && v.ratio < 0.55 && v.residual == c.clamp && !v.regression);
        /* nor does learning advance on them */
        detector_init(&d);
        feed_as(&d, &c, DETECTOR_HIGHER_IS_BETTER, 500, 0.03, 150, false);
        EXPECT(d.n_ref == 0 && !d.pinned);
}

/* A decline of 0.5% a run at 3% noise is flagged long before -12%: the
 * pinned reference does not follow it down. */
static void test_drift(void)
{
        struct detector_config c;
        struct detector d;
        detector_config_default(&c);
        rng_state = 29;
        commissioned(&d, &c, DETECTOR_HIGHER_IS_BETTER, 0.03);
        int flagged = -1;
        for (int i = 1; i <= 24 && flagged < 0; i++)
                if (feed(&d, &c, DETECTOR_HIGHER_IS_BETTER, 1000 * (1 - 0.005 * i), 0.03, 1)
                            .entered)
                        flagged = i;
        EXPECT(flagged > 0 && flagged < 24);
}

/* A decline of 0.5% a run at 6% noise, with 2% of the runs outliers at
 * x0.5-0.8 (a disturbed run is slower), in 40 series: the drift test
 * flags most before -12% (lab/detector/detector.sh: 0.87 of them, here
 * 36 of 40; the drift test before, a fit of any slope against a
 * winsorised level, which the outliers pulled towards them, flagged 0.72,
 * here 29 of 40). */
static void test_drift_outliers(void)
{
        struct detector_config c;
        unsigned flagged = 0;
        detector_config_default(&c);
        rng_state = 53;
        for (int s = 0; s < 40; s++) {
                struct detector d;
                detector_init(&d);
                for (int i = -(int)c.reference_runs - 20; i < 24 && !d.regression; i++) {
                        double v = 1000 * (1 - 0.005 * (i > 0 ? i : 0)) * exp(0.06 * rng_gauss());
                        struct detector_verdict dv;
                        if (rng_uniform() <= 0.02)
                                v *= 0.5 + 0.3 * rng_uniform();
                        clock_t0 += 600;
                        EXPECT(detector_update(&d, &c, DETECTOR_HIGHER_IS_BETTER, v, clock_t0,
                                               true, &dv) == 0);
                        flagged += dv.transition == DETECTOR_ENTERED && i > 0;
                }
        }
        fprintf(stderr, "drift with outliers: %u of 40 flagged\n", flagged);
        EXPECT(flagged >= 32);
}

/* While the reference is learnt: a 40% drop after 15 runs is flagged
 * within 3 runs, before the reference is pinned, and the runs of the
 * regression do not join the reference. */
static void test_learning_verdicts(void)
{
        struct detector_config c;
        struct detector d;
        detector_config_default(&c);
        detector_init(&d);
        rng_state = 53;
        EXPECT(feed(&d, &c, DETECTOR_HIGHER_IS_BETTER, 1000, 0.04, 15).entered == 0);
        struct tally t = feed(&d, &c, DETECTOR_HIGHER_IS_BETTER, 600, 0.04, 6);
        EXPECT(t.entered == 1 && t.first_entered <= 3 && !d.pinned);
        EXPECT(d.n_ref < 15 + 3);
        EXPECT_NEAR_ABS(exp(d.rs.log_level), 1000, 1000 * 0.05);
}

/* A regression entered while learning, then min_runs raised above the
 * runs the reference holds (a reload): verdicts are withheld, so the
 * regression is left at the next counted run and the reference learns
 * again (it stayed in regression for good, learning nothing, before). */
static void test_min_runs_raised(void)
{
        struct detector_config c;
        struct detector d;
        detector_config_default(&c);
        detector_init(&d);
        rng_state = 53;
        feed(&d, &c, DETECTOR_HIGHER_IS_BETTER, 1000, 0.04, 15);
        struct tally t = feed(&d, &c, DETECTOR_HIGHER_IS_BETTER, 600, 0.04, 6);
        EXPECT(t.entered == 1 && d.regression && !d.pinned);
        unsigned held = d.n_ref;
        c.min_runs = held + 10;
        t = feed(&d, &c, DETECTOR_HIGHER_IS_BETTER, 1000, 0.04, 1);
        EXPECT(t.left == 1 && t.first_left == 1 && !d.regression);
        EXPECT(d.n_ref == held + 1);
        t = feed(&d, &c, DETECTOR_HIGHER_IS_BETTER, 1000, 0.04, 30);
        EXPECT(t.entered == 0 && d.n_ref == held + 31);
}

/* The predictive test keeps the false alarms of a pinned reference from
 * the first verdict on: 400 fresh series of 100 runs (36,000 verdicts on
 * references of 10..99 runs) enter at most a handful of regressions.  A
 * plain z-test against the estimated level and noise enters dozens. */
static void test_learning_false_alarms(void)
{
        struct detector_config c;
        struct detector d;
        detector_config_default(&c);
        rng_state = 59;
        unsigned alarms = 0;
        for (int s = 0; s < 400; s++) {
                detector_init(&d);
                alarms += feed(&d, &c, DETECTOR_HIGHER_IS_BETTER, 1000, 0.06, 100).entered;
        }
        EXPECT(alarms <= 8);
}

/* verify against a reference of 12 runs: a wider interval than a pinned
 * reference gives, and still a clear answer on a 30% drop and on no
 * change; the smallest change it could detect is reported. */
static void test_verify_learning(void)
{
        struct detector_config c;
        struct detector d, pinned;
        struct detector_verify_verdict vv, vp;
        double fresh[20];
        detector_config_default(&c);
        detector_init(&d);
        rng_state = 61;
        feed(&d, &c, DETECTOR_HIGHER_IS_BETTER, 1000, 0.02, 9);
        EXPECT(detector_verify(&d, &c, DETECTOR_HIGHER_IS_BETTER, fresh, 1, 3, 20, &vv) == -EINVAL);
        feed(&d, &c, DETECTOR_HIGHER_IS_BETTER, 1000, 0.02, 3);
        EXPECT(!d.pinned && d.n_ref == 12);
        for (int i = 0; i < 5; i++)
                fresh[i] = noisy(700, 0.02);
        EXPECT(detector_verify(&d, &c, DETECTOR_HIGHER_IS_BETTER, fresh, 5, 3, 20, &vv) == 0);
        EXPECT(vv.outcome == DETECTOR_VERIFY_FAIL && vv.change < -0.2);
        for (int i = 0; i < 5; i++)
                fresh[i] = noisy(1000, 0.02);
        EXPECT(detector_verify(&d, &c, DETECTOR_HIGHER_IS_BETTER, fresh, 5, 3, 20, &vv) == 0);
        EXPECT(vv.outcome == DETECTOR_VERIFY_PASS);
        EXPECT(vv.detectable > c.threshold && vv.detectable < 0.3);
        /* the same runs against a pinned reference of 100 runs with the
         * same level and noise: a narrower interval, smaller changes seen */
        pinned = d;
        pinned.n_ref = 100;
        pinned.pinned = true;
        EXPECT(detector_verify(&pinned, &c, DETECTOR_HIGHER_IS_BETTER, fresh, 5, 3, 20, &vp) == 0);
        EXPECT(vv.change_hi - vv.change_lo > vp.change_hi - vp.change_lo);
        EXPECT(vv.detectable > vp.detectable);
}

/* accept: the recent level becomes the reference, the noise is kept, the
 * regression ends, and a further step from there is caught. */
static void test_accept(void)
{
        struct detector_config c;
        struct detector d;
        struct detector_verdict v;
        detector_config_default(&c);
        detector_init(&d);
        EXPECT(detector_accept(&d, &c, 5) == -EAGAIN);
        rng_state = 33;
        commissioned(&d, &c, DETECTOR_HIGHER_IS_BETTER, 0.03);
        double sigma = d.rs.sigma;
        EXPECT(feed(&d, &c, DETECTOR_HIGHER_IS_BETTER, 800, 0.03, 10).entered == 1);
        EXPECT(detector_accept(&d, &c, 12345) == 0);
        detector_state(&d, &c, DETECTOR_HIGHER_IS_BETTER, &v);
        EXPECT(!v.regression && v.reference_time == 12345 && d.cusum == 0);
        EXPECT_NEAR_ABS(v.reference, 800, 800 * 0.03);
        EXPECT_NEAR_ABS(d.rs.sigma, sigma, sigma * 1e-9);
        EXPECT(feed(&d, &c, DETECTOR_HIGHER_IS_BETTER, 800, 0.03, 200).entered == 0);
        struct tally t = feed(&d, &c, DETECTOR_HIGHER_IS_BETTER, 680, 0.03, 10);
        EXPECT(t.entered == 1 && t.first_entered <= 5);

        /* a new normal five times as noisy is accepted with its own noise
         * (taken from the runs since the change), and does not alarm on its
         * ordinary swings */
        EXPECT(detector_accept(&d, &c, 23456) == 0);
        EXPECT(feed(&d, &c, DETECTOR_HIGHER_IS_BETTER, 500, 0.15, 20).entered == 1);
        EXPECT(detector_accept(&d, &c, 34567) == 0);
        EXPECT(d.rs.sigma > 3 * sigma);
        EXPECT(feed(&d, &c, DETECTOR_HIGHER_IS_BETTER, 500, 0.15, 300).entered == 0);
}

/* import pins a reference from a given history. */
static void test_import(void)
{
        struct detector_config c;
        struct detector d;
        double v[300];
        detector_config_default(&c);
        rng_state = 37;
        for (int i = 0; i < 300; i++)
                v[i] = noisy(i < 150 ? 100 : 2000, 0.02);
        detector_init(&d);
        EXPECT(detector_import(&d, v, DETECTOR_REF_MIN - 1, 1) == -EINVAL);
        double bad[] = { 1, 2, 0, 3, 4 };
        EXPECT(detector_import(&d, bad, 5, 1) == -EINVAL);
        EXPECT(!d.pinned);
        /* the last DETECTOR_REF_MAX values are the reference */
        EXPECT(detector_import(&d, v, 300, 777) == 0);
        EXPECT(d.pinned && d.pinned_at == 777 && d.n_ref == DETECTOR_REF_MAX);
        EXPECT_NEAR_ABS(exp(d.rs.log_level), 2000, 2000 * 0.01);
        EXPECT_NEAR_ABS(d.rs.sigma, 0.02, 0.006);
        EXPECT(feed(&d, &c, DETECTOR_HIGHER_IS_BETTER, 1700, 0.02, 10).entered == 1);
}

/* Autocorrelated runs: the lag-1 correlation is found and taken out. */
static void test_autocorrelation(void)
{
        struct detector d;
        double v[DETECTOR_REF_MAX], e = 0;
        rng_state = 41;
        for (int i = 0; i < DETECTOR_REF_MAX; i++) {
                e = 0.6 * e + 0.05 * sqrt(1 - 0.36) * rng_gauss();
                v[i] = 1000 * exp(e);
        }
        EXPECT(detector_import(&d, v, DETECTOR_REF_MAX, 1) == 0);
        EXPECT(d.rs.rho > 0.4 && d.rs.rho < 0.8);
        EXPECT(d.rs.scale > d.rs.sigma * 1.5);
}

/* verify: no decision before min_runs; a 15% drop fails in a few runs;
 * an unchanged host passes, at the latest at the bound. */
static void test_verify(void)
{
        struct detector_config c;
        struct detector d;
        struct detector_verify_verdict vv;
        double fresh[20];
        detector_config_default(&c);
        detector_init(&d);
        EXPECT(detector_verify(&d, &c, DETECTOR_HIGHER_IS_BETTER, fresh, 1, 3, 20, &vv) == -EINVAL);
        rng_state = 43;
        commissioned(&d, &c, DETECTOR_HIGHER_IS_BETTER, 0.06);
        for (int i = 0; i < 2; i++)
                fresh[i] = 500;
        EXPECT(detector_verify(&d, &c, DETECTOR_HIGHER_IS_BETTER, fresh, 2, 3, 20, &vv) == 0);
        EXPECT(vv.outcome == DETECTOR_VERIFY_MORE && vv.runs == 2);
        unsigned n = 0;
        vv.outcome = DETECTOR_VERIFY_MORE;
        while (vv.outcome == DETECTOR_VERIFY_MORE && n < 20) {
                fresh[n++] = noisy(850, 0.06);
                EXPECT(detector_verify(&d, &c, DETECTOR_HIGHER_IS_BETTER, fresh, n, 3, 20, &vv) ==
                       0);
        }
        EXPECT(vv.outcome == DETECTOR_VERIFY_FAIL && n <= 6 && !vv.at_bound);
        EXPECT(vv.change_lo < -0.15 && vv.change_hi > -0.15 && vv.p_worse < 0.01);
        n = 0;
        vv.outcome = DETECTOR_VERIFY_MORE;
        while (vv.outcome == DETECTOR_VERIFY_MORE && n < 20) {
                fresh[n++] = noisy(1000, 0.06);
                EXPECT(detector_verify(&d, &c, DETECTOR_HIGHER_IS_BETTER, fresh, n, 3, 20, &vv) ==
                       0);
        }
        EXPECT(vv.outcome == DETECTOR_VERIFY_PASS && vv.change_lo < 0 && vv.change_hi > 0);
        /* at the bound the estimate decides: 4% worse is within the 5% effect */
        for (int i = 0; i < 20; i++)
                fresh[i] = 960;
        EXPECT(detector_verify(&d, &c, DETECTOR_HIGHER_IS_BETTER, fresh, 20, 3, 20, &vv) == 0);
        EXPECT(vv.outcome == DETECTOR_VERIFY_PASS && vv.at_bound);
}

int main(void)
{
        test_config();
        test_learning();
        test_noise_only();
        test_step_and_recovery();
        test_change_of_a_step();
        test_deep_step_on_small_reference();
        test_lower_is_better();
        test_good_direction();
        test_wild_runs();
        test_minimum_effect();
        test_uncounted_runs();
        test_drift();
        test_drift_outliers();
        test_learning_verdicts();
        test_min_runs_raised();
        test_learning_false_alarms();
        test_verify_learning();
        test_accept();
        test_import();
        test_autocorrelation();
        test_verify();
        if (test_failures)
                fprintf(stderr, "%u check(s) failed\n", test_failures);
        return test_failures ? 1 : 0;
}
