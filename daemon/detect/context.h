/* context.h — what a figure was measured on, and what changed since.
 *
 * A fleet operator's first question after "it got slower" is "what
 * changed?".  The context of a run is the host's (CPU model, microcode,
 * kernel, OS version, machine and BIOS, read once at start) plus the
 * device the run measured, from the run's benchwatch_disk_info (disk_device,
 * disk_model, disk_firmware, disk_serial, disk_rotational, disk_scheduler).
 * The baseline keeps the context its reference was learnt under and the
 * context of the last run; a difference between the two is said when a
 * regression is entered, when verify fails and in `baseline show`.
 *
 * The host's part is also exported, as node_exporter spells info metrics so
 * that PromQL joins work: benchwatch_build_info{version,revision} and
 * benchwatch_host_info{cpu_model,microcode,kernel_release,os_version_id,
 * product_name,bios_version}, in a result of their own whose probe is ""
 * (encoders write no probe label for it). */
#ifndef BENCHWATCH_CONTEXT_H
#define BENCHWATCH_CONTEXT_H

#include <stdbool.h>
#include <stddef.h>

#include "core/result.h"

/* A context: name/value items sorted by name, each name once. */
struct context {
        struct label *items;
        size_t n;
};

/* The same for this host: /proc, /sys, /etc/os-release (or
 * /usr/lib/os-release). */
int context_read_this_host(struct context *ret);
/* The host's items plus the device of the run (from its
 * benchwatch_disk_info, prefixed disk_).  0 or -ENOMEM. */
int context_of_run(const struct context *host, const struct result *res,
                   struct context *ret);

/* Set item name (kept sorted).  0 or -ENOMEM. */
int context_set(struct context *c, const char *name, const char *value);
const char *context_get(const struct context *c, const char *name);
int context_copy(struct context *to, const struct context *from);
void context_clear(struct context *c);
bool context_equal(const struct context *a, const struct context *b);

/* What differs from `before` to `after`, as a person reads it:
 * "kernel 6.1.0-13-amd64 → 6.1.0-18-amd64; vda firmware 1.2 → 1.4".
 * NULL when nothing differs, when either is empty (nothing to compare) or
 * out of memory; else malloc'd. */
char *context_diff(const struct context *before, const struct context *after);

/* A result of probe "" with benchwatch_build_info and benchwatch_host_info:
 * not a run, the host's state, which the daemon shows the sinks beside the
 * probes' (sink_set_show).  NULL when out of memory. */
struct result *context_info_result(const struct context *host);

#endif
