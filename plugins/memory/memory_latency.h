/* memory_latency.h — the memory plugin's latency mode: a dependent pointer
 * chase through a random cycle of cache lines, as lmbench's lat_mem_rd and
 * Intel's Memory Latency Checker measure load-to-use latency.
 *
 * Kept apart from memory.c (which owns the parameter table and the sizing
 * facts of the host) so that each way of measuring lives in its own file;
 * memory.c calls in here, never the other way round. */
#ifndef BENCHWATCH_MEMORY_LATENCY_H
#define BENCHWATCH_MEMORY_LATENCY_H

#include <stddef.h>
#include <stdint.h>

#include "core/plugin.h"

struct memory_latency_spec {
        uint64_t size;      /* bytes of the buffer chased through, > 0 */
        uint64_t stride;    /* bytes of one element, a multiple of 8 */
        double duration;    /* seconds of measuring (set-up comes on top) */
        double deadline;    /* run->deadline */
        double release;     /* seconds to give the buffer back over */
};

/* The default buffer: max(8 x LLC, 64 MiB) (as the dram arrays: at 4x the
 * latency ran 12% lower on the development VM, its cache larger than
 * sysfs says), at most a quarter of the
 * available memory (rounded down to a power of two) and 8 GiB, a multiple of
 * 2 MiB; -ENOMEM when that is under 8 MiB.  Less than 4x the LLC (the
 * figure partly a cache's latency) is measured and said, never refused. */
int memory_latency_bytes(uint64_t llc, uint64_t avail, uint64_t *ret);

/* Links the n elements of `stride` bytes at buf into one cycle through all
 * of them in random order (Sattolo's algorithm: every cyclic permutation
 * equally likely), each element's first word pointing to the next.
 * Returns 0, or -ECANCELED when h (may be NULL) asked to stop. */
int memory_latency_chain(void *buf, size_t n, size_t stride, uint64_t seed,
                         const struct bw_host *h);

/* Follows `loads` pointers (a multiple of 16) from p; returns where it
 * ended.  Each load's address is the previous load's value. */
void *memory_latency_chase(void *p, uint64_t loads);

/* Builds the buffer, chases through it for spec->duration and emits the
 * figures: load_latency_seconds (median over ten windows), loads_total,
 * working_set_bytes, huge_page_ratio and total_time_seconds. */
int memory_latency_run(const struct memory_latency_spec *spec,
                       const struct bw_host *h);

#endif
