/* tracker.h — the daemon's memory of each probe's baseline.
 *
 * After every run the daemon hands the result here: the probe's baseline is
 * loaded (once), updated with the run's figures, saved (atomically), and the
 * verdict metrics (benchwatch_baseline, benchwatch_regression_ratio,
 * benchwatch_regression) are appended to the result before it goes to the
 * sinks.  Entering or leaving a regression is logged at warning level with
 * the figures.  The [regression] config section tunes the detector. */
#ifndef BENCHWATCH_TRACKER_H
#define BENCHWATCH_TRACKER_H

#include <stdbool.h>

#include "config.h"
#include "detector.h"
#include "result.h"

/* The [regression] section's options (window, warmup, threshold, noise_k,
 * debounce, verify_runs). */
extern const struct bw_param_def tracker_options[];

/* Detector settings and verify's run count from the config's [regression]
 * section (defaults when absent). */
void tracker_settings(const struct config *cfg, struct detector_config *ret,
                      unsigned *ret_verify_runs);

struct tracker;
int tracker_new(const char *state_dir, struct tracker **ret);
/* Update the probe's baseline with res (counted = not taken while busy)
 * and append the verdict metrics to res.  Logs its own problems. */
void tracker_observe(struct tracker *t, const struct config *cfg,
                     struct result *res, bool counted);
void tracker_free(struct tracker *t);

#endif
