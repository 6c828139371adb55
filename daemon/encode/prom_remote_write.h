/* prom_remote_write.h — a run as a Prometheus remote-write 1.0 request: a protobuf
 * prometheus.WriteRequest, compressed in snappy's block format.
 *
 * The series are those of the text exposition (prom_text_family_series): the
 * textfile and the receiver see the same names, labels and values.  Each
 * series also gets __name__, job and instance (the target labels a scrape
 * would have added) and the configured extra labels; labels are sorted by
 * name, empty ones left out (an empty label is no label in Prometheus),
 * and every sample carries the run's start time in milliseconds.
 * Nothing here logs. */
#ifndef BENCHWATCH_PROM_REMOTE_WRITE_H
#define BENCHWATCH_PROM_REMOTE_WRITE_H

#include <stddef.h>
#include <stdint.h>

#include "core/result.h"

struct prom_remote_write_target {
        const char *job, *instance;
        const char *const *label_names, *const *label_values; /* extra */
        size_t n_labels;
};

/* The compressed request for r, plus the series of `also` (NULL: none; the
 * host's info metrics) at r's time, malloc'd, and how many series it
 * holds.  0, -ENOMEM or -EINVAL (snappy refused). */
int prom_remote_write_encode(const struct result *r, const struct result *also,
                             const struct prom_remote_write_target *t, uint8_t **ret,
                             size_t *ret_len, size_t *ret_series);

#endif
