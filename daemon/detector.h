/* detector.h — is this run's figure a regression, or only the host's noise?
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
#ifndef BENCHWATCH_DETECTOR_H
#define BENCHWATCH_DETECTOR_H

#include <stdbool.h>
#include <stddef.h>

/* The largest window a detector can hold (config `window` <= this). */
#define DETECTOR_WINDOW_MAX 100
/* MAD × this estimates the standard deviation of gaussian noise. */
#define DETECTOR_MAD_SCALE 1.4826

enum detector_direction {
        DETECTOR_NONE = 0,          /* no clear "worse": not tracked */
        DETECTOR_HIGHER_IS_BETTER,  /* IOPS, bytes/s, requests/s, TPS */
        DETECTOR_LOWER_IS_BETTER,   /* latency */
};

struct detector_config {
        unsigned window;   /* accepted values the baseline is taken over; 20 */
        unsigned warmup;   /* accepted values before any verdict; 5 */
        double threshold;  /* minimum relative change in the bad direction; 0.10 */
        double k;          /* ... and more than k × scaled MAD; 3 */
        unsigned debounce; /* bad runs in a row to enter a regression, good
                              runs in a row to leave it; 3 */
};

struct detector {
        double values[DETECTOR_WINDOW_MAX]; /* accepted values, oldest first */
        unsigned n_values;
        unsigned bad_runs;  /* consecutive counted bad runs (capped at debounce) */
        unsigned good_runs; /* consecutive counted good runs (capped at debounce) */
        bool regression;
};

enum detector_transition {
        DETECTOR_STEADY = 0,
        DETECTOR_ENTERED,   /* this run started a regression */
        DETECTOR_LEFT,      /* this run ended one */
};

struct detector_verdict {
        bool valid;         /* false during warm-up (or a baseline <= 0):
                               no judgement, `bad` is false */
        double value;       /* the run's figure */
        double baseline;    /* median of the window before this run; NAN if empty */
        double noise;       /* DETECTOR_MAD_SCALE × MAD of that window; NAN if empty */
        double ratio;       /* value / baseline; NAN unless baseline > 0 */
        bool bad;           /* worse beyond threshold and noise */
        bool regression;    /* the series' state after this run */
        enum detector_transition transition;
};

void detector_config_default(struct detector_config *c);
/* -EINVAL unless 1 <= warmup <= window <= DETECTOR_WINDOW_MAX,
 * threshold >= 0, k >= 0 and 1 <= debounce <= DETECTOR_WINDOW_MAX. */
int detector_config_check(const struct detector_config *c);

void detector_init(struct detector *d);

/* Judge `value` against the current window without changing anything
 * (what `verify` needs).  -EINVAL for a non-finite value, an invalid
 * config or DETECTOR_NONE. */
int detector_evaluate(const struct detector *d, const struct detector_config *c,
                      enum detector_direction dir, double value,
                      struct detector_verdict *ret);

/* Judge `value` and, if `counted` (the run was not deferred nor taken while
 * the host was busy), advance the state: window, streaks, regression.  The
 * verdict says whether this run entered or left a regression.  Errors as
 * detector_evaluate(); the detector is untouched on error. */
int detector_update(struct detector *d, const struct detector_config *c,
                    enum detector_direction dir, double value, bool counted,
                    struct detector_verdict *ret);

/* Median of v[0..n) (NAN when n == 0); does not modify v.  n <= DETECTOR_WINDOW_MAX. */
double detector_median(const double *v, size_t n);

#endif
