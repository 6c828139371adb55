/* olddet.h — is this run's figure a regression, or only the host's noise?
 *
 * One detector follows one series (a figure of a probe, e.g. the read IOPS
 * of disk probe "root").  Its baseline is the median of a window of recently
 * accepted values and its noise is the scaled median absolute deviation
 * (1.4826 × MAD estimates the standard deviation of gaussian noise, but one
 * wild run moves neither), so the verdict follows the host's own spread and
 * not a fixed guess.  A run is *bad* when it is worse than the baseline, in
 * the figure's direction, by more than a relative threshold AND by more than
 * k × noise: the threshold keeps a very quiet host from alarming on a
 * meaningless 2%, the noise term keeps a noisy one from alarming on its
 * ordinary swings.  A regression is declared after `debounce` bad runs in a
 * row and lifted after as many good ones, so a single outlier never alarms
 * and a flapping figure does not flap the alert.  Bad values never enter the
 * window: an outlier must not pull the baseline and a regression must not
 * become the new normal (`benchwatch baseline reset` is how an intended
 * change is accepted).  Runs taken while the host was busy are evaluated
 * but not counted.
 *
 * Pure computation on a plain struct: no I/O, no allocation, no clock. */
#ifndef BENCHWATCH_OLDDET_H
#define BENCHWATCH_OLDDET_H

#include <stdbool.h>
#include <stddef.h>

/* The largest window a detector can hold (config `window` <= this). */
#define OLDDET_WINDOW_MAX 100
/* MAD × this estimates the standard deviation of gaussian noise. */
#define OLDDET_MAD_SCALE 1.4826

enum olddet_direction {
        OLDDET_NONE = 0,          /* no clear "worse": not tracked */
        OLDDET_HIGHER_IS_BETTER,  /* IOPS, bytes/s, requests/s, TPS */
        OLDDET_LOWER_IS_BETTER,   /* latency */
};

struct olddet_config {
        unsigned window;   /* accepted values the baseline is taken over; 20 */
        unsigned warmup;   /* accepted values before any verdict; 5 */
        double threshold;  /* minimum relative change in the bad direction; 0.10 */
        double k;          /* ... and more than k × scaled MAD; 3 */
        unsigned debounce; /* bad runs in a row to enter a regression, good
                              runs in a row to leave it; 3 */
};

struct olddet {
        double values[OLDDET_WINDOW_MAX]; /* accepted values, oldest first */
        unsigned n_values;
        unsigned bad_runs;  /* consecutive counted bad runs (capped at debounce) */
        unsigned good_runs; /* consecutive counted good runs (capped at debounce) */
        bool regression;
};

enum olddet_transition {
        OLDDET_STEADY = 0,
        OLDDET_ENTERED,   /* this run started a regression */
        OLDDET_LEFT,      /* this run ended one */
};

struct olddet_verdict {
        bool valid;         /* false during warm-up (or a baseline <= 0):
                               no judgement, `bad` is false */
        double value;       /* the run's figure */
        double baseline;    /* median of the window before this run; NAN if empty */
        double noise;       /* OLDDET_MAD_SCALE × MAD of that window; NAN if empty */
        double ratio;       /* value / baseline; NAN unless baseline > 0 */
        bool bad;           /* worse beyond threshold and noise */
        bool regression;    /* the series' state after this run */
        enum olddet_transition transition;
};

void olddet_config_default(struct olddet_config *c);
/* -EINVAL unless 1 <= warmup <= window <= OLDDET_WINDOW_MAX,
 * threshold >= 0, k >= 0 and 1 <= debounce <= OLDDET_WINDOW_MAX. */
int olddet_config_check(const struct olddet_config *c);

void olddet_init(struct olddet *d);

/* Judge `value` against the current window without changing anything
 * (what `verify` needs).  -EINVAL for a non-finite value, an invalid
 * config or OLDDET_NONE. */
int olddet_evaluate(const struct olddet *d, const struct olddet_config *c,
                      enum olddet_direction dir, double value,
                      struct olddet_verdict *ret);

/* Judge `value` and, if `counted` (the run was not deferred nor taken while
 * the host was busy), advance the state: window, streaks, regression.  The
 * verdict says whether this run entered or left a regression.  Errors as
 * olddet_evaluate(); the detector is untouched on error. */
int olddet_update(struct olddet *d, const struct olddet_config *c,
                    enum olddet_direction dir, double value, bool counted,
                    struct olddet_verdict *ret);

/* Median of v[0..n) (NAN when n == 0); does not modify v.  n <= OLDDET_WINDOW_MAX. */
double olddet_median(const double *v, size_t n);

#endif
