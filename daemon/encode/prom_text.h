/* prom_text.h — results in the Prometheus text exposition format 0.0.4.
 *
 * The format node_exporter's textfile collector reads, `benchwatch run
 * --format=prometheus` prints and the Pushgateway accepts as an alternative
 * to protobuf.  Every sample gets probe="<result->probe>" as its first
 * label; latency histograms become summaries in seconds with the quantiles
 * of result_quantiles plus _sum and _count; no timestamps.  A family that
 * appears in several results (every probe has benchwatch_probe_success) is
 * written once, with one HELP and TYPE line and all its samples together,
 * as the format requires.  Nothing here logs. */
#ifndef BENCHWATCH_PROM_TEXT_H
#define BENCHWATCH_PROM_TEXT_H

#include <stddef.h>
#include <stdio.h>

#include "core/result.h"

/* One series of the exposition, as the visitor below hands it out: the
 * sample `name``suffix` with labels probe="<probe>" (when probe is not
 * empty), the sample's labels except one named "probe" (the run's name
 * wins), then extra_name="extra_value" when extra_name is set (a summary's
 * quantile).  Every encoding of series (text here, remote write) walks the
 * same list, so they cannot disagree on what a result's series are. */
struct prom_text_series {
        const char *name, *suffix, *probe;
        const struct sample *sample;
        const char *extra_name, *extra_value;
        double value;
};
typedef int (*prom_text_series_fn)(const struct prom_text_series *s, void *arg);

/* Call fn on every series of family fam of result r, in exposition order:
 * a summary as its result_quantiles (seconds), then _sum and _count.
 * Stops at, and returns, fn's first negative return. */
int prom_text_family_series(const struct result *r, const struct family *fam,
                            prom_text_series_fn fn, void *arg);

/* Write results[0..n) to f.  0, or -EIO (errno of the stream) / -ENOMEM. */
int prom_text_write(FILE *f, const struct result *const *results, size_t n);

/* The same into a malloc'd, NUL-terminated buffer. */
int prom_text_to_string(const struct result *const *results, size_t n,
                        char **ret, size_t *ret_len);

/* Format a sample value the way Prometheus spells it: shortest text that
 * reads back as the same double; "NaN", "+Inf", "-Inf".  buf >= 32. */
const char *prom_text_format_double(double v, char *buf, size_t size);

#endif
