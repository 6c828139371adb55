/* memory_dram.h — the memory plugin's DRAM bandwidth mode (STREAM's copy
 * and triad over arrays far beyond the last-level cache) and the facts of
 * the host every DRAM-sized buffer is sized by: the last-level cache (from
 * sysfs, else CPUID) and the available memory.
 *
 * Kept apart from memory.c (the parameter table and sysbench's block mode)
 * so each way of measuring lives in its own file; memory.c calls in here
 * and into memory_latency.c, never the other way round.  The sizing
 * functions are what tests/plugins/test_memory.c checks directly. */
#ifndef BENCHWATCH_MEMORY_DRAM_H
#define BENCHWATCH_MEMORY_DRAM_H

#include <stdbool.h>
#include <stdint.h>

#include "core/plugin.h"

#define MIB (UINT64_C(1) << 20)

/* Sizes in sysfs cache files: "32768K", "1M", "512". */
int memory_parse_cache_size(const char *s, uint64_t *ret);
/* Number of CPUs in a sysfs CPU list such as "0-3,8,10-11". */
int memory_count_cpu_list(const char *s, unsigned *ret);
/* The last-level cache `threads` threads can use, from a cpuN/cache
 * directory of a host with `online` CPUs: one instance per group of CPUs
 * sharing it (a die, a CCX), at most one per thread (0: no limit). */
int memory_llc_bytes(const char *cache_dir, unsigned online, unsigned threads,
                     uint64_t *ret);
/* Bytes of each dram-mode array: 8x the LLC and at least 256 MiB, at most a
 * twelfth of the available memory (all three: a quarter) and 8 GiB, whole
 * 2 MiB pages; -ENOMEM when that is under 8 MiB.  Less than 4x the LLC is
 * measured and said (memory_emit_cache_ratio), never refused. */
int memory_dram_array_bytes(uint64_t llc, uint64_t avail, uint64_t *ret);
/* The last-level cache `threads` threads can reach where the kernel shows
 * no cache topology (a VM that hides it, as Firecracker does): CPUID's L3
 * figure `reported`, which there may be its host's whole cache (508 MiB on
 * the development VM).  On AMD and Hygon (`per_ccx`) an L3 serves one
 * CCX; no part has more than 96 MiB in one (3D V-Cache), so a thread
 * reaches at most that: `threads` x 96 MiB, never more than `reported`
 * (threads 0: no limit).  Elsewhere the L3 is shared by the whole socket
 * and `reported` stands. */
uint64_t memory_hidden_llc_bytes(uint64_t reported, bool per_ccx, unsigned threads);
/* The last-level cache `threads` threads can use: sysfs, else what CPUID
 * says (memory_hidden_llc_bytes), else 0; *ret_reported: CPUID's own
 * figure when that was lowered, else 0. */
void memory_host_llc(unsigned threads, uint64_t *ret, uint64_t *ret_reported);
/* The last-level cache `threads` threads can use (memory_host_llc; not
 * looked up when ret_llc is NULL) and the available memory; a failure to
 * read the memory is recorded through h (`mode` names the mode). */
int memory_host_sizes(const struct bw_host *h, const char *mode, unsigned threads,
                      uint64_t *ret_llc, uint64_t *ret_avail);
/* benchwatch_memory_working_set_llc_ratio (bytes / llc) and, below 4x, a
 * notice saying how far past the cache the run measured (`what`: "each
 * array") and why (`sized`: by the available memory, not set by the
 * user); with llc 0 a notice that the cache is unknown. */
void memory_emit_cache_ratio(const struct bw_host *h, const char *mode,
                             const char *what, uint64_t bytes, uint64_t llc, bool sized);

struct memory_dram_spec {
        unsigned threads;
        double duration;    /* seconds: first touch and passes */
        double deadline;    /* run->deadline */
        uint64_t size;      /* bytes of each array; 0: sized by the cache */
        double release;     /* seconds to give the arrays back over */
};

/* The memory plugin's default `release`. */
#define RELEASE_DEFAULT "0"

/* Unmaps len bytes at p (a whole mapping) 32 MiB at a time, spread over
 * `seconds`, ending at the latest half a second before `deadline` (a
 * now_mono() time; 0: none) (at once when 0, or when the run is being
 * stopped): the pages
 * go back to the kernel's free lists, and on a VM with free page reporting
 * on to the hypervisor, a step at a time rather than all together. */
void memory_release(void *p, size_t len, double seconds, double deadline,
                    const struct bw_host *h);

/* Maps the arrays, runs copy and triad for spec->duration and emits
 * bytes_per_second{operation=copy|triad} (the best pass), the arrays' size,
 * how far past the cache they are and the time. */
int memory_dram_run(const struct memory_dram_spec *spec, const struct bw_host *h);

#endif
