/* cause_figures.h — a run's evidence, read back from its result.
 *
 * The cause engine (cause.h) works on plain numbers; a run's evidence
 * travels as metric families of its result, written by the runner
 * (benchwatch_probe_run_delay_ratio, _cpu_wait_ratio, _others_cpu_ratio,
 * _others_disk_bytes_per_second), the scheduler (benchwatch_probe_steal_ratio,
 * _pressure_ratio{resource}), the probe process itself
 * (benchwatch_probe_major_page_faults) and the evidence window
 * (core/evidence_window.h).  This reads those families into a
 * struct cause_run, so that the tracker can give the cause engine the
 * runs it has, and a history of results can be replayed.  The disk
 * figures are those of the run's device (the first of
 * benchwatch_disk_info{device}; else the one disk the result has).
 * Nothing here logs. */
#ifndef BENCHWATCH_CAUSE_FIGURES_H
#define BENCHWATCH_CAUSE_FIGURES_H

#include "core/result.h"
#include "detect/cause.h"

void cause_figures_of(const struct result *res, struct cause_run *ret);

#endif
