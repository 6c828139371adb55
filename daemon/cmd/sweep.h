/* sweep.h — the concurrency sweep's analysis: one point per level (its
 * throughput and latency), and the knee.
 *
 * The knee is the level with the best throughput whose chosen latency
 * quantile stays under the target; without a target, the lowest level
 * that reaches 95% of the best throughput — where more concurrency stops
 * paying (a SAN's IOPS flat from 40 threads while its latency climbs puts
 * the knee at 40). */
#ifndef BENCHWATCH_SWEEP_H
#define BENCHWATCH_SWEEP_H

#include <stdbool.h>
#include <stddef.h>

#include "core/result.h"

struct sweep_point {
        const char *level;     /* the parameter's value, as given */
        bool ok;               /* the run succeeded and had the figures */
        double throughput;     /* sum over samples (e.g. read + write IOPS) */
        double bandwidth;      /* bytes/s, summed likewise; < 0: no such figure */
        double mean, p50, p95, p99, quantile; /* latency, seconds */
};

/* Throughput of family `throughput`, bandwidth of family `bandwidth` (NULL
 * or absent: none) and the merged histogram of `latency` (all full names)
 * from one result; quantile q for .quantile. */
void sweep_point_from_result(struct sweep_point *pt, const struct result *r,
                             const char *throughput, const char *bandwidth,
                             const char *latency, double q);
/* Index of the knee, or -1 when no level qualifies. target <= 0: none. */
int sweep_knee(const struct sweep_point *pts, size_t n, double target);

/* An SVG picture: throughput and the latency quantile against the level,
 * the knee marked.  0 or -errno. */
int sweep_plot_svg(const char *path, const char *title, const char *param,
                   const char *throughput_name, double q,
                   const struct sweep_point *pts, size_t n, int knee);

#endif
