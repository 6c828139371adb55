/* gpu_health.h — a GPU's own health over a run, as figures and as one
 * sentence that names the likely cause of a slow figure.
 *
 * From NVML's counters read before and after the run and the session's
 * samples (gpu_session.h): the share of the run each clock event reason
 * held the clocks back (from the reason's accumulated nanoseconds where
 * the GPU counts them, else the share of the samples that showed it),
 * the SM clock during the run against its maximum, the highest
 * temperature, the enforced power limit against the default, the ECC
 * counts, remapped rows and PCIe replays with what is new since the last
 * run (the counts are kept per GPU UUID in the state directory), and the
 * Xid errors NVML reported during the run.  A figure the GPU cannot tell
 * is not emitted.  The sentence ("HW thermal slowdown 38% of the run; SM
 * clock 61% of its maximum") goes to the journal with the run. */
#ifndef BENCHWATCH_GPU_HEALTH_H
#define BENCHWATCH_GPU_HEALTH_H

#include "gpu_copy.h"
#include "gpu_nvml.h"
#include "gpu_session.h"

struct gpu_health {
        struct gpu_nvml_counters before, after;
        double seconds;                      /* between the two reads */
        const struct gpu_copy_result *copy;  /* the link during copies, or NULL */
        const char *uuid;
        const char *gpu;                     /* the `gpu` label */
};

/* The share of the run reason i held the clocks back; < 0: unknown. */
double gpu_health_reason_ratio(const struct gpu_session *s, const struct gpu_health *hl,
                               int i);
/* Emits the health figures, logs the sentence, and keeps the counts for
 * the next run (a failure to keep them is logged, not fatal). */
void gpu_health_report(struct gpu_session *s, const struct gpu_health *hl);

#endif
