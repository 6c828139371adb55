/* test_detector.c — the regression detector on synthetic series.
 *
 * The series come from a fixed-seed PRNG, so every run of the test sees the
 * same numbers: noise alone must never alarm, a real step in the bad
 * direction must alarm within the debounce window and recover the same way,
 * and outliers, improvements and busy runs must not count. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "test.h"
#include "detector.h"




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

/* level × (1 + sigma × N(0,1)) */
static double noisy(double level, double sigma)
{
        return level * (1 + sigma * rng_gauss());
}

struct tally {
        unsigned entered, left, bad;
        int first_entered, first_left; /* run index, -1 if none */
};

/* Feeds n values of `level` with relative noise `sigma`; run indices are
 * counted from 0 within this call. */
static struct tally feed(struct detector *d, const struct detector_config *c,
                         enum detector_direction dir, double level,
                         double sigma, unsigned n)
{
        struct tally t = { .first_entered = -1, .first_left = -1 };
        for (unsigned i = 0; i < n; i++) {
                struct detector_verdict v;
                int r = detector_update(d, c, dir, noisy(level, sigma), true, &v);
                EXPECT(r == 0);
                t.bad += v.bad;
                if (v.transition == DETECTOR_ENTERED && t.entered++ == 0)
                        t.first_entered = (int)i;
                if (v.transition == DETECTOR_LEFT && t.left++ == 0)
                        t.first_left = (int)i;
        }
        return t;
}

static void fill(struct detector *d, const double *v, unsigned n)
{
        detector_init(d);
        memcpy(d->values, v, n * sizeof(*v));
        d->n_values = n;
}

static void test_statistics(void)
{
        struct detector_config c;
        struct detector d;
        struct detector_verdict v;

        detector_config_default(&c);
        EXPECT(detector_median((const double[]){ 5, 1, 3 }, 3) == 3);
        EXPECT(detector_median((const double[]){ 4, 1, 3, 2 }, 4) == 2.5);
        EXPECT(isnan(detector_median(NULL, 0)));

        /* median 3, |dev| {2,1,0,1,97} -> MAD 1: the 100 moves neither. */
        fill(&d, (const double[]){ 1, 2, 3, 4, 100 }, 5);
        EXPECT(detector_evaluate(&d, &c, DETECTOR_HIGHER_IS_BETTER, 3, &v) == 0);
        EXPECT(v.valid && v.baseline == 3);
        EXPECT_NEAR_ABS(v.noise, DETECTOR_MAD_SCALE, 1e-12);
        EXPECT_NEAR_ABS(v.ratio, 1, 1e-12);

        /* No noise at all: the 10% threshold alone decides. */
        fill(&d, (const double[]){ 100, 100, 100, 100, 100 }, 5);
        detector_evaluate(&d, &c, DETECTOR_HIGHER_IS_BETTER, 89, &v);
        EXPECT(v.bad && v.noise == 0);
        EXPECT_NEAR_ABS(v.ratio, 0.89, 1e-12);
        detector_evaluate(&d, &c, DETECTOR_HIGHER_IS_BETTER, 91, &v);
        EXPECT(!v.bad);
        detector_evaluate(&d, &c, DETECTOR_LOWER_IS_BETTER, 111, &v);
        EXPECT(v.bad);
        detector_evaluate(&d, &c, DETECTOR_LOWER_IS_BETTER, 109, &v);
        EXPECT(!v.bad);
        detector_evaluate(&d, &c, DETECTOR_LOWER_IS_BETTER, 50, &v);
        EXPECT(!v.bad); /* faster is never bad */

        /* Noisy window: median 100, MAD 5, noise 7.413, 3x = 22.24. A 20%
         * drop is beyond the threshold but inside the host's noise. */
        fill(&d, (const double[]){ 90, 100, 110, 95, 105 }, 5);
        detector_evaluate(&d, &c, DETECTOR_HIGHER_IS_BETTER, 80, &v);
        EXPECT(v.baseline == 100 && !v.bad);
        EXPECT_NEAR_ABS(v.noise, 5 * DETECTOR_MAD_SCALE, 1e-9);
        detector_evaluate(&d, &c, DETECTOR_HIGHER_IS_BETTER, 77, &v);
        EXPECT(v.bad);
}

static void test_errors_and_window(void)
{
        struct detector_config c;
        struct detector d, before;
        struct detector_verdict v;

        detector_config_default(&c);
        EXPECT(detector_config_check(&c) == 0);
        c.warmup = c.window + 1;
        EXPECT(detector_config_check(&c) == -EINVAL);
        detector_config_default(&c);
        c.window = DETECTOR_WINDOW_MAX + 1;
        EXPECT(detector_config_check(&c) == -EINVAL);
        detector_config_default(&c);
        c.debounce = 0;
        EXPECT(detector_config_check(&c) == -EINVAL);
        detector_config_default(&c);
        c.threshold = NAN;
        EXPECT(detector_config_check(&c) == -EINVAL);
        detector_config_default(&c);

        detector_init(&d);
        before = d;
        EXPECT(detector_update(&d, &c, DETECTOR_HIGHER_IS_BETTER, NAN, true, &v) == -EINVAL);
        EXPECT(detector_update(&d, &c, DETECTOR_NONE, 1, true, &v) == -EINVAL);
        EXPECT(!memcmp(&d, &before, sizeof(d)));

        /* The window keeps the most recent `window` values, oldest first. */
        for (unsigned i = 1; i <= 100; i++)
                detector_update(&d, &c, DETECTOR_HIGHER_IS_BETTER, 1000 + i, true, &v);
        EXPECT(d.n_values == 20);
        EXPECT(d.values[0] == 1081 && d.values[19] == 1100);
        /* A smaller window looks at the newest values only. */
        c.window = 5;
        detector_evaluate(&d, &c, DETECTOR_HIGHER_IS_BETTER, 1000, &v);
        EXPECT(v.baseline == 1098);
}

static void test_warmup(void)
{
        struct detector_config c;
        struct detector d;
        struct detector_verdict v;

        detector_config_default(&c);
        detector_init(&d);
        /* Wildly different values: no verdict before 5 accepted ones. */
        const double vals[] = { 1000, 10, 5000, 1, 700 };
        for (unsigned i = 0; i < 5; i++) {
                EXPECT(detector_update(&d, &c, DETECTOR_HIGHER_IS_BETTER, vals[i], true, &v) == 0);
                EXPECT(!v.valid && !v.bad && !v.regression);
        }
        EXPECT(d.n_values == 5);
        detector_update(&d, &c, DETECTOR_HIGHER_IS_BETTER, 1, true, &v);
        EXPECT(v.valid && v.baseline == 700);
}

static void test_noise_only(void)
{
        struct detector_config c;
        struct detector d;

        detector_config_default(&c);
        for (int dir = DETECTOR_HIGHER_IS_BETTER; dir <= DETECTOR_LOWER_IS_BETTER; dir++) {
                rng_state = 42 + (unsigned)dir;
                detector_init(&d);
                struct tally t = feed(&d, &c, dir, 1000, 0.03, 10000);
                printf("noise only (sigma 3%%, %s): %u bad runs of 10000, %u alarms\n",
                       dir == DETECTOR_HIGHER_IS_BETTER ? "higher" : "lower",
                       t.bad, t.entered);
                EXPECT(t.entered == 0 && !d.regression);
                EXPECT(t.bad < 50); /* expected ~4: P(z > 3.3) */
        }
}

/* A 20% step in the bad direction after a settled history, then back. */
static void step_and_back(enum detector_direction dir, double factor)
{
        struct detector_config c;
        struct detector d;
        struct detector_verdict v;

        detector_config_default(&c);
        detector_init(&d);
        struct tally t = feed(&d, &c, dir, 1000, 0.03, 50);
        EXPECT(t.entered == 0);

        t = feed(&d, &c, dir, 1000 * factor, 0.03, 30);
        printf("step x%.2f: regression entered at run %d of the step\n", factor,
               t.first_entered);
        EXPECT(t.entered == 1 && t.left == 0);
        EXPECT(t.first_entered >= (int)c.debounce - 1 &&
              t.first_entered <= (int)c.debounce + 1);
        EXPECT(d.regression);
        /* The degraded values did not become the baseline. */
        detector_evaluate(&d, &c, dir, 1000 * factor, &v);
        EXPECT_NEAR_ABS(v.baseline, 1000, 20);
        EXPECT_NEAR_ABS(v.ratio, factor, 0.03);

        t = feed(&d, &c, dir, 1000, 0.03, 30);
        printf("step removed: regression left at run %d\n", t.first_left);
        EXPECT(t.left == 1 && t.entered == 0);
        EXPECT(t.first_left >= (int)c.debounce - 1 && t.first_left <= (int)c.debounce + 1);
        EXPECT(!d.regression);
}

static void test_steps(void)
{
        rng_state = 7;
        step_and_back(DETECTOR_HIGHER_IS_BETTER, 0.8); /* IOPS dropped 20% */
        rng_state = 8;
        step_and_back(DETECTOR_LOWER_IS_BETTER, 1.2);  /* latency rose 20% */
}

static void test_good_direction(void)
{
        struct detector_config c;
        struct detector d;
        struct detector_verdict v;

        detector_config_default(&c);
        rng_state = 9;
        detector_init(&d);
        feed(&d, &c, DETECTOR_HIGHER_IS_BETTER, 1000, 0.03, 30);
        struct tally t = feed(&d, &c, DETECTOR_HIGHER_IS_BETTER, 1200, 0.03, 40);
        EXPECT(t.entered == 0 && t.bad == 0);
        /* The improvement is the new normal... */
        detector_evaluate(&d, &c, DETECTOR_HIGHER_IS_BETTER, 1200, &v);
        EXPECT_NEAR_ABS(v.baseline, 1200, 24);

        detector_init(&d);
        feed(&d, &c, DETECTOR_LOWER_IS_BETTER, 0.001, 0.03, 30);
        t = feed(&d, &c, DETECTOR_LOWER_IS_BETTER, 0.0008, 0.03, 40);
        EXPECT(t.entered == 0 && t.bad == 0); /* latency fell: good */
        /* ...and rising back up the 20% is judged against it. */
        t = feed(&d, &c, DETECTOR_LOWER_IS_BETTER, 0.001, 0.03, 10);
        EXPECT(t.entered == 1);
}

static void test_outliers(void)
{
        struct detector_config c;
        struct detector d;
        struct detector_verdict v;

        detector_config_default(&c);
        rng_state = 11;
        detector_init(&d);
        feed(&d, &c, DETECTOR_HIGHER_IS_BETTER, 1000, 0.03, 30);
        unsigned alarms = 0, bad = 0;
        /* In every 10 runs a single 50% drop and a pair of them: never the
         * debounce's 3 in a row. */
        for (unsigned i = 0; i < 2000; i++) {
                double x = noisy(1000, 0.03);
                if (i % 10 == 0 || i % 10 == 5 || i % 10 == 6)
                        x *= 0.5;
                detector_update(&d, &c, DETECTOR_HIGHER_IS_BETTER, x, true, &v);
                alarms += v.transition == DETECTOR_ENTERED;
                bad += v.bad;
        }
        printf("outliers: %u bad runs, %u alarms\n", bad, alarms);
        EXPECT(alarms == 0 && bad == 600);
        detector_evaluate(&d, &c, DETECTOR_HIGHER_IS_BETTER, 1000, &v);
        EXPECT_NEAR_ABS(v.baseline, 1000, 20); /* outliers never entered the window */
}

static void test_noisy_host(void)
{
        struct detector_config c;
        struct detector d;

        /* sigma 10%: a 12% step is past the threshold but within 3 x noise. */
        detector_config_default(&c);
        rng_state = 13;
        detector_init(&d);
        feed(&d, &c, DETECTOR_HIGHER_IS_BETTER, 1000, 0.10, 40);
        struct tally t = feed(&d, &c, DETECTOR_HIGHER_IS_BETTER, 880, 0.10, 100);
        printf("noisy host, 12%% step: %u bad runs of 100, %u alarms\n", t.bad, t.entered);
        EXPECT(t.entered == 0);
        /* The same step on a quiet host is a regression. */
        detector_init(&d);
        feed(&d, &c, DETECTOR_HIGHER_IS_BETTER, 1000, 0.01, 40);
        t = feed(&d, &c, DETECTOR_HIGHER_IS_BETTER, 880, 0.01, 10);
        EXPECT(t.entered == 1 && t.first_entered == (int)c.debounce - 1);
}

static void test_busy_runs(void)
{
        struct detector_config c;
        struct detector d, before;
        struct detector_verdict v;

        detector_config_default(&c);
        rng_state = 17;
        detector_init(&d);
        feed(&d, &c, DETECTOR_HIGHER_IS_BETTER, 1000, 0.03, 30);
        before = d;
        for (unsigned i = 0; i < 10; i++) {
                EXPECT(detector_update(&d, &c, DETECTOR_HIGHER_IS_BETTER, 500, false, &v) == 0);
                EXPECT(v.valid && v.bad && !v.regression && v.transition == DETECTOR_STEADY);
        }
        EXPECT(!memcmp(&d, &before, sizeof(d)));

        /* Two bad, a busy one in between does not break nor extend the streak. */
        detector_update(&d, &c, DETECTOR_HIGHER_IS_BETTER, 500, true, &v);
        detector_update(&d, &c, DETECTOR_HIGHER_IS_BETTER, 500, true, &v);
        detector_update(&d, &c, DETECTOR_HIGHER_IS_BETTER, 1000, false, &v);
        EXPECT(!v.regression && d.bad_runs == 2);
        detector_update(&d, &c, DETECTOR_HIGHER_IS_BETTER, 500, true, &v);
        EXPECT(v.regression && v.transition == DETECTOR_ENTERED);
        EXPECT_NEAR_ABS(v.ratio, 0.5, 0.02);
}

int main(void)
{
        test_statistics();
        test_errors_and_window();
        test_warmup();
        test_noise_only();
        test_steps();
        test_good_direction();
        test_outliers();
        test_noisy_host();
        test_busy_runs();
        if (test_failures)
                fprintf(stderr, "%u check(s) failed\n", test_failures);
        return test_failures ? 1 : 0;
}
