/* detector.c — see detector.h. */
#include "detector.h"

#include <assert.h>
#include <errno.h>
#include <math.h>
#include <string.h>

void detector_config_default(struct detector_config *c)
{
        c->window = 20;
        c->warmup = 5;
        c->threshold = 0.10;
        c->k = 3;
        c->debounce = 3;
}

int detector_config_check(const struct detector_config *c)
{
        if (c->window < 1 || c->window > DETECTOR_WINDOW_MAX)
                return -EINVAL;
        if (c->warmup < 1 || c->warmup > c->window)
                return -EINVAL;
        if (!(c->threshold >= 0) || !isfinite(c->threshold))
                return -EINVAL;
        if (!(c->k >= 0) || !isfinite(c->k))
                return -EINVAL;
        if (c->debounce < 1 || c->debounce > DETECTOR_WINDOW_MAX)
                return -EINVAL;
        return 0;
}

void detector_init(struct detector *d)
{
        memset(d, 0, sizeof(*d));
}

/* Insertion sort: n is at most DETECTOR_WINDOW_MAX and usually 20. */
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

static double median_sorted(const double *v, size_t n)
{
        if (n == 0)
                return NAN;
        return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double detector_median(const double *v, size_t n)
{
        double tmp[DETECTOR_WINDOW_MAX];
        assert(n <= DETECTOR_WINDOW_MAX);
        if (n == 0)
                return NAN;
        memcpy(tmp, v, n * sizeof(*v));
        sort_doubles(tmp, n);
        return median_sorted(tmp, n);
}

/* The most recent `window` accepted values: a smaller window than the one
 * a stored baseline was built with simply looks at fewer of them. */
static const double *window_view(const struct detector *d,
                                 const struct detector_config *c, size_t *ret_n)
{
        size_t n = d->n_values < c->window ? d->n_values : c->window;
        *ret_n = n;
        return d->values + (d->n_values - n);
}

static void centre_and_spread(const double *v, size_t n, double *ret_median,
                              double *ret_noise)
{
        double dev[DETECTOR_WINDOW_MAX];
        double m = detector_median(v, n);
        for (size_t i = 0; i < n; i++)
                dev[i] = fabs(v[i] - m);
        *ret_median = m;
        *ret_noise = DETECTOR_MAD_SCALE * detector_median(dev, n);
}

int detector_evaluate(const struct detector *d, const struct detector_config *c,
                      enum detector_direction dir, double value,
                      struct detector_verdict *ret)
{
        struct detector_verdict v = { .value = value, .regression = d->regression };
        size_t n;

        if (!isfinite(value) || dir == DETECTOR_NONE || detector_config_check(c) < 0)
                return -EINVAL;
        const double *w = window_view(d, c, &n);
        centre_and_spread(w, n, &v.baseline, &v.noise);
        v.ratio = v.baseline > 0 ? value / v.baseline : NAN;
        v.valid = n >= c->warmup && v.baseline > 0;
        if (v.valid) {
                double worse = dir == DETECTOR_HIGHER_IS_BETTER ?
                        v.baseline - value : value - v.baseline;
                v.bad = worse > c->threshold * v.baseline && worse > c->k * v.noise;
        }
        *ret = v;
        return 0;
}

static void accept_value(struct detector *d, const struct detector_config *c,
                         double value)
{
        /* Keep only what the window needs, oldest first. */
        if (d->n_values >= c->window) {
                unsigned drop = d->n_values - c->window + 1;
                memmove(d->values, d->values + drop,
                        (d->n_values - drop) * sizeof(d->values[0]));
                d->n_values -= drop;
        }
        d->values[d->n_values++] = value;
}

int detector_update(struct detector *d, const struct detector_config *c,
                    enum detector_direction dir, double value, bool counted,
                    struct detector_verdict *ret)
{
        struct detector_verdict v;
        int r = detector_evaluate(d, c, dir, value, &v);
        if (r < 0)
                return r;
        if (!counted) {
                *ret = v;
                return 0;
        }
        if (v.bad) {
                d->good_runs = 0;
                if (d->bad_runs < c->debounce)
                        d->bad_runs++;
                if (!d->regression && d->bad_runs >= c->debounce) {
                        d->regression = true;
                        v.transition = DETECTOR_ENTERED;
                }
        } else {
                accept_value(d, c, value);
                d->bad_runs = 0;
                if (d->good_runs < c->debounce)
                        d->good_runs++;
                if (d->regression && d->good_runs >= c->debounce) {
                        d->regression = false;
                        v.transition = DETECTOR_LEFT;
                }
        }
        v.regression = d->regression;
        *ret = v;
        return 0;
}
