/* baseline_key.h — a series' canonical key: its metric family and the
 * labels that change its meaning as one string,
 *     benchwatch_disk_iops{mode="randread",op="read"}
 * labels sorted by name, each once, values escaped as in the Prometheus
 * text format (\\, \" and \n).  Built from a run's figures (baseline.c)
 * and read back from the store (baseline_store.c), which trusts a key only
 * when rebuilding it gives the same text.  Nothing here logs. */
#ifndef BENCHWATCH_BASELINE_KEY_H
#define BENCHWATCH_BASELINE_KEY_H

#include <stddef.h>

#include "core/result.h"

/* metric{a="x",b="y"} from labels already sorted by name, malloc'd.
 * 0 or -ENOMEM. */
int baseline_key_build(const char *metric, const struct label *labels, size_t n, char **ret);
/* Sorts labels by name, the order a key lists them in. */
void baseline_key_sort(struct label *labels, size_t n);
/* Appends the label name[0..name_len) = value (value is taken, the name
 * copied) to *l.  0 or -ENOMEM (value then stays the caller's). */
int baseline_key_push_label(struct label **l, size_t *n, const char *name, size_t name_len,
                            char *value);
/* Splits a key into *metric (malloc'd) and labels appended to *labels and
 * *n_labels, insisting it is canonical (labels sorted, each once;
 * rebuilding it gives the same text, so the escaping was ours), as every
 * key built from a result is.  0, -EINVAL or -ENOMEM; on failure what was
 * stored so far is left for the caller to free. */
int baseline_key_parse(const char *key, char **metric, struct label **labels,
                       size_t *n_labels);

#endif
