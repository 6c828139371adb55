/* expo.h — results in the Prometheus text exposition format 0.0.4.
 *
 * The format node_exporter's textfile collector reads, `benchwatch run
 * --format=prometheus` prints and the Pushgateway accepts as an alternative
 * to protobuf.  Every sample gets probe="<result->probe>" as its first
 * label; latency histograms become summaries in seconds with the quantiles
 * of result_quantiles plus _sum and _count; no timestamps.  A family that
 * appears in several results (every probe has benchwatch_probe_success) is
 * written once, with one HELP and TYPE line and all its samples together,
 * as the format requires.  Nothing here logs. */
#ifndef BENCHWATCH_EXPO_H
#define BENCHWATCH_EXPO_H

#include <stddef.h>
#include <stdio.h>

#include "result.h"

/* Write results[0..n) to f.  0, or -EIO (errno of the stream) / -ENOMEM. */
int expo_write(FILE *f, const struct result *const *results, size_t n);

/* The same into a malloc'd, NUL-terminated buffer. */
int expo_to_string(const struct result *const *results, size_t n,
                   char **ret, size_t *ret_len);

/* Format a sample value the way Prometheus spells it: shortest text that
 * reads back as the same double; "NaN", "+Inf", "-Inf".  buf >= 32. */
const char *expo_format_double(double v, char *buf, size_t size);

#endif
