/* tracker.c — see tracker.h. */
#include "tracker.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "baseline.h"
#include "baseline_store.h"
#include "log.h"

enum { T_WINDOW, T_WARMUP, T_THRESHOLD, T_NOISE_K, T_DEBOUNCE, T_VERIFY_RUNS };

const struct bw_param_def tracker_options[] = {
        [T_WINDOW] = { "window", BW_PARAM_INT, "20", 3, DETECTOR_WINDOW_MAX, NULL, "runs",
                       "how many recent accepted runs the baseline (median) is taken over", 0 },
        [T_WARMUP] = { "warmup", BW_PARAM_INT, "5", 1, DETECTOR_WINDOW_MAX, NULL, "runs",
                       "runs recorded before any verdict", 0 },
        [T_THRESHOLD] = { "threshold", BW_PARAM_DOUBLE, "0.10", 0, 10, NULL, "fraction",
                          "minimum relative change in the bad direction (0.10 = 10%)", 0 },
        [T_NOISE_K] = { "noise_k", BW_PARAM_DOUBLE, "3", 0, 100, NULL, "",
                        "... and more than this many times the host's own noise (scaled MAD)", 0 },
        [T_DEBOUNCE] = { "debounce", BW_PARAM_INT, "3", 1, DETECTOR_WINDOW_MAX, NULL, "runs",
                         "bad runs in a row to declare a regression, good runs to lift it", 0 },
        [T_VERIFY_RUNS] = { "verify_runs", BW_PARAM_INT, "3", 1, DETECTOR_WINDOW_MAX, NULL, "runs",
                            "how often `benchwatch verify` runs each probe (the median is judged)", 0 },
        { NULL },
};

void tracker_settings(const struct config *cfg, struct detector_config *ret,
                      unsigned *ret_verify_runs)
{
        const struct param_set *ps = cfg ? config_section(cfg, "regression") : NULL;
        detector_config_default(ret);
        if (ret_verify_runs)
                *ret_verify_runs = 3;
        if (!ps)
                return;
        ret->window = (unsigned)ps->values[T_WINDOW].i;
        ret->warmup = (unsigned)ps->values[T_WARMUP].i;
        ret->threshold = ps->values[T_THRESHOLD].d;
        ret->k = ps->values[T_NOISE_K].d;
        ret->debounce = (unsigned)ps->values[T_DEBOUNCE].i;
        if (ret_verify_runs)
                *ret_verify_runs = (unsigned)ps->values[T_VERIFY_RUNS].i;
}

struct tracker {
        char *state_dir;
        struct log_ratelimit errors;
};

int tracker_new(const char *state_dir, struct tracker **ret)
{
        struct tracker *t = calloc(1, sizeof(*t));
        if (!t || !(t->state_dir = strdup(state_dir))) {
                free(t);
                return -ENOMEM;
        }
        t->errors.interval = 3600;
        *ret = t;
        return 0;
}

void tracker_free(struct tracker *t)
{
        if (!t)
                return;
        free(t->state_dir);
        free(t);
}

/* The stored baseline; a corrupt file was set aside: start afresh. The
 * file is read around every run, not cached, so `baseline reset` from
 * another process is never overwritten by a stale copy. */
static struct baseline *load(struct tracker *t, const char *probe)
{
        struct baseline *b = NULL;
        char *why = NULL;
        int r = baseline_load(t->state_dir, probe, &b, &why);
        if (r == -EBADMSG || r == -EPROTONOSUPPORT) {
                log_warning("%s", why ? why : strerror(-r));
                b = baseline_new(probe);
        } else if (r < 0 && log_ratelimit_ok(&t->errors)) {
                log_error("%s", why ? why : strerror(-r));
        }
        free(why);
        return b;
}

static void log_transitions(const struct baseline *b)
{
        for (size_t i = 0; i < b->n_series; i++) {
                char *m = baseline_transition_message(b, &b->series[i]);
                if (m)
                        log_warning("%s", m);
                free(m);
        }
}

void tracker_observe(struct tracker *t, const struct config *cfg,
                     struct result *res, bool counted)
{
        struct detector_config dc;
        char *why = NULL;
        if (!res->success)
                return;
        tracker_settings(cfg, &dc, NULL);
        struct baseline *b = load(t, res->probe);
        if (!b)
                return;
        int r = baseline_update(b, res, &dc, counted);
        if (r >= 0)
                log_transitions(b);
        if (r >= 0)
                r = baseline_add_metrics(b, res);
        if (r >= 0 && counted && baseline_save(b, t->state_dir, &why) < 0 &&
            log_ratelimit_ok(&t->errors))
                log_error("%s", why ? why : "cannot save the baseline");
        free(why);
        baseline_free(b);
}
