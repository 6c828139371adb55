/* selfstats.h — figures about the daemon itself rather than about a probe
 * (what the remote-write sink sent, failed, dropped and holds spooled).
 *
 * They are shown where every probe's figures are, in the textfile: sinks
 * update them from their own threads, and the textfile sink renders them
 * as one more result, whose series carry no probe label.  Process-wide
 * and kept across reloads, so counters only grow. */
#ifndef BENCHWATCH_SELFSTATS_H
#define BENCHWATCH_SELFSTATS_H

#include "core/result.h"

/* Add delta to (METRIC_COUNTER) or set (METRIC_GAUGE) the unlabelled
 * figure `name`, created at 0 on first use.  0, -EINVAL (another type
 * under that name) or -ENOMEM. */
int selfstats_add(const char *name, const char *help, double delta);
int selfstats_set(const char *name, const char *help, double value);

/* A copy of every figure as a result with an empty probe name, or NULL
 * when there is none (or no memory). */
struct result *selfstats_snapshot(void);

#endif
