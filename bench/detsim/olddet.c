/* olddet.c — see olddet.h. */
#include "olddet.h"

#include <assert.h>
#include <errno.h>
#include <math.h>
#include <string.h>

void olddet_config_default(struct olddet_config *c)
{
        c->window = 20;
        c->warmup = 5;
        c->threshold = 0.10;
        c->k = 3;
        c->debounce = 3;
}

int olddet_config_check(const struct olddet_config *c)
{
        if (c->window < 1 || c->window > OLDDET_WINDOW_MAX)
                return -EINVAL;
        if (c->warmup < 1 || c->warmup > c->window)
                return -EINVAL;
        if (!(c->threshold >= 0) || !isfinite(c->threshold))
                return -EINVAL;
        if (!(c->k >= 0) || !isfinite(c->k))
                return -EINVAL;
        if (c->debounce < 1 || c->debounce > OLDDET_WINDOW_MAX)
                return -EINVAL;
        return 0;
}

void olddet_init(struct olddet *d)
{
        memset(d, 0, sizeof(*d));
}

/* Insertion sort: n is at most OLDDET_WINDOW_MAX and usually 20. */
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

double olddet_median(const double *v, size_t n)
{
        double tmp[OLDDET_WINDOW_MAX];
        assert(n <= OLDDET_WINDOW_MAX);
        if (n == 0)
                return NAN;
        memcpy(tmp, v, n * sizeof(*v));
        sort_doubles(tmp, n);
        return median_sorted(tmp, n);
}

/* The most recent `window` accepted values: a smaller window than the one
 * a stored baseline was built with simply looks at fewer of them. */
static const double *window_view(const struct olddet *d,
                                 const struct olddet_config *c, size_t *ret_n)
{
        size_t n = d->n_values < c->window ? d->n_values : c->window;
        *ret_n = n;
        return d->values + (d->n_values - n);
}

static void centre_and_spread(const double *v, size_t n, double *ret_median,
                              double *ret_noise)
{
        double dev[OLDDET_WINDOW_MAX];
        double m = olddet_median(v, n);
        for (size_t i = 0; i < n; i++)
                dev[i] = fabs(v[i] - m);
        *ret_median = m;
        *ret_noise = OLDDET_MAD_SCALE * olddet_median(dev, n);
}

int olddet_evaluate(const struct olddet *d, const struct olddet_config *c,
                      enum olddet_direction dir, double value,
                      struct olddet_verdict *ret)
{
        struct olddet_verdict v = { .value = value, .regression = d->regression };
        size_t n;

        if (!isfinite(value) || dir == OLDDET_NONE || olddet_config_check(c) < 0)
                return -EINVAL;
        const double *w = window_view(d, c, &n);
        centre_and_spread(w, n, &v.baseline, &v.noise);
        v.ratio = v.baseline > 0 ? value / v.baseline : NAN;
        v.valid = n >= c->warmup && v.baseline > 0;
        if (v.valid) {
                double worse = dir == OLDDET_HIGHER_IS_BETTER ?
                        v.baseline - value : value - v.baseline;
                v.bad = worse > c->threshold * v.baseline && worse > c->k * v.noise;
        }
        *ret = v;
        return 0;
}

static void accept_value(struct olddet *d, const struct olddet_config *c,
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

int olddet_update(struct olddet *d, const struct olddet_config *c,
                    enum olddet_direction dir, double value, bool counted,
                    struct olddet_verdict *ret)
{
        struct olddet_verdict v;
        int r = olddet_evaluate(d, c, dir, value, &v);
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
                        v.transition = OLDDET_ENTERED;
                }
        } else {
                accept_value(d, c, value);
                d->bad_runs = 0;
                if (d->good_runs < c->debounce)
                        d->good_runs++;
                if (d->regression && d->good_runs >= c->debounce) {
                        d->regression = false;
                        v.transition = OLDDET_LEFT;
                }
        }
        v.regression = d->regression;
        *ret = v;
        return 0;
}
