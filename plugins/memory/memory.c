/* memory.c — the memory plugin: sysbench 1.0's memory test, and a
 * STREAM-style DRAM bandwidth mode.
 *
 * mode=block is `sysbench memory`: one event passes once over a block of
 * block_size bytes (one per thread with scope=local, one shared with
 * scope=global) with 8-byte loads or stores as sysbench's ck_pr_load_64/
 * ck_pr_store_64, in order or at uniformly random word offsets
 * (xoroshiro128+, as sysbench), loops unrolled as Debian's -funroll-loops
 * build of sysbench has them, and bytes are
 * counted as events x block_size; each thread stops after its share of
 * total_size, as in sysbench.  Its small default block lives in L1, so it
 * measures the core's load/store path, not the DIMMs.
 *
 * mode=dram (memory_dram.c) measures the DIMMs: STREAM's copy (c = a) and triad
 * (a = b + q*c) over three arrays each at least 8x the last-level cache
 * (and 256 MiB), counting bytes as STREAM does (copy 2 arrays, triad 3) and
 * reporting the best pass; the first touch of the arrays and every pass
 * count against `duration`.  When memory is too short for arrays that cannot
 * stay in the cache, the run fails rather than report cache speed as DRAM
 * speed.
 *
 * mode=latency (memory_latency.c) is lat_mem_rd's dependent pointer chase:
 * seconds per load through a random cycle of cache lines over a buffer of
 * `size` bytes, by default 8x the last-level cache, sized here with the
 * same cache and memory facts as the DRAM arrays. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "common/sbloop.h"
#include "common/sbrand.h"
#include "core/plugin.h"
#include "memory_dram.h"
#include "memory_latency.h"
#include "util/format.h"
#include "util/timeutil.h"

enum { P_MODE, P_BLOCK_SIZE, P_TOTAL_SIZE, P_OPER, P_ACCESS, P_SCOPE,
       P_SIZE, P_ARRAY_SIZE, P_STRIDE, P_RELEASE, P_THREADS, P_DURATION, P_COUNT };
enum { MODE_BLOCK, MODE_DRAM, MODE_LATENCY };
enum { OPER_READ, OPER_WRITE, OPER_NONE };
enum { ACCESS_SEQ, ACCESS_RND };
enum { SCOPE_GLOBAL, SCOPE_LOCAL };

static const char *const mode_choices[] = { "block", "dram", "latency", NULL };
static const char *const oper_choices[] = { "read", "write", "none", NULL };
static const char *const access_choices[] = { "seq", "rnd", NULL };
static const char *const scope_choices[] = { "global", "local", NULL };

static const struct bw_param_def memory_params[] = {
        [P_MODE] = {
                .name = "mode", .type = BW_PARAM_ENUM, .default_value = "block",
                .choices = mode_choices, .flags = BW_PARAM_LABEL,
                .help = "block: sysbench memory; dram: STREAM copy and triad "
                        "over arrays far beyond the last-level cache; latency: "
                        "seconds per dependent load through a random cycle of "
                        "cache lines (lmbench lat_mem_rd)",
        },
        [P_BLOCK_SIZE] = {
                .name = "block_size", .type = BW_PARAM_SIZE,
                .default_value = "1k", .min = 8, .max = 16.0 * (1 << 30),
                .unit = "bytes", .flags = BW_PARAM_LABEL, .applies = "mode=block",
                .help = "Block one event passes over, a power of two "
                        "(sysbench --memory-block-size)",
        },
        [P_TOTAL_SIZE] = {
                .name = "total_size", .type = BW_PARAM_SIZE,
                .default_value = "100G", .min = 0, .max = 1e18, .unit = "bytes",
                .applies = "mode=block",
                .help = "Bytes to transfer before the run ends, if the "
                        "duration has not ended first; 0: no limit "
                        "(sysbench --memory-total-size)",
        },
        [P_OPER] = {
                .name = "oper", .type = BW_PARAM_ENUM, .default_value = "write",
                .choices = oper_choices, .flags = BW_PARAM_LABEL, .applies = "mode=block",
                .help = "Operation on each word (sysbench --memory-oper)",
        },
        [P_ACCESS] = {
                .name = "access", .type = BW_PARAM_ENUM, .default_value = "seq",
                .choices = access_choices, .flags = BW_PARAM_LABEL, .applies = "mode=block",
                .help = "Word order within a block "
                        "(sysbench --memory-access-mode)",
        },
        [P_SCOPE] = {
                .name = "scope", .type = BW_PARAM_ENUM, .default_value = "global",
                .choices = scope_choices, .flags = BW_PARAM_LABEL, .applies = "mode=block",
                .help = "One block shared by all threads, or one per thread "
                        "(sysbench --memory-scope)",
        },
        [P_SIZE] = {
                .name = "size", .type = BW_PARAM_SIZE, .default_value = "0",
                .min = 0, .max = 64.0 * (1 << 30), .unit = "bytes",
                .flags = BW_PARAM_LABEL, .applies = "mode=latency",
                .help = "Buffer the pointer chase runs through (16k: L1, "
                        "256k: L2...); 0: max(8 x the last-level cache, 64M), "
                        "at most a quarter of the available memory and 8G",
        },
        [P_ARRAY_SIZE] = {
                .name = "array_size", .type = BW_PARAM_SIZE, .default_value = "0",
                .min = 0, .max = 64.0 * (1 << 30), .unit = "bytes",
                .applies = "mode=dram",
                .help = "Bytes of each of the three arrays; 0: max(8 x the "
                        "last-level cache its threads use (twice STREAM's "
                        "rule), 256M), at most a twelfth of the available "
                        "memory and 8G (working_set_llc_ratio says how far "
                        "past the cache)",
        },
        [P_STRIDE] = {
                .name = "stride", .type = BW_PARAM_SIZE, .default_value = "64",
                .min = 8, .max = 1 << 20, .unit = "bytes",
                .flags = BW_PARAM_LABEL, .applies = "mode=latency",
                .help = "Bytes of one element of the chase, a multiple of 8 "
                        "(64: one cache line, lat_mem_rd -s)",
        },
        [P_RELEASE] = {
                .name = "release", .type = BW_PARAM_DURATION,
                .default_value = RELEASE_DEFAULT, .min = 0, .max = 60, .unit = "s",
                .applies = "mode=dram|latency",
                .help = "Give the buffers back to the kernel 32 MiB at a "
                        "time over this long after measuring (not counted in "
                        "the figures): a hypervisor that takes freed guest "
                        "memory back then does it in small steps; 0: at once",
        },
        [P_THREADS] = SBLOOP_PARAM_THREADS_APPLIES("mode=block|dram"),
        [P_DURATION] = SBLOOP_PARAM_DURATION,
        [P_COUNT] = { .name = NULL },
};

/* ---- block mode: sysbench's events ---------------------------------------- */

typedef void memory_kernel(uint64_t *buf, size_t words, uint64_t rng[2]);

/* sysbench's ck_pr_load_64()/ck_pr_store_64(): one 8-byte access that the
 * compiler can neither drop nor merge, and a compiler barrier, which also
 * makes the random generator's state go through memory for every word. */
static inline uint64_t ck_load(const uint64_t *p)
{
        uint64_t v = *(const volatile uint64_t *)p;

        __asm__ __volatile__("" ::: "memory");
        return v;
}

static inline void ck_store(uint64_t *p, uint64_t v)
{
        *(volatile uint64_t *)p = v;
        __asm__ __volatile__("" ::: "memory");
}

/* Debian builds sysbench with -funroll-loops, which runs these loops eight
 * words per iteration; unrolling ours the same keeps the per-word cost, and
 * so the figure, equal. */
static void seq_none(uint64_t *buf, size_t words, uint64_t rng[2])
{
#pragma GCC unroll 8
        for (uint64_t *p = buf, *end = buf + words; p < end; p++)
                __asm__ __volatile__("" ::: "memory"); /* ck_pr_barrier() */
}

static void seq_read(uint64_t *buf, size_t words, uint64_t rng[2])
{
#pragma GCC unroll 8
        for (uint64_t *p = buf, *end = buf + words; p < end; p++)
                (void)ck_load(p);
}

static void seq_write(uint64_t *buf, size_t words, uint64_t rng[2])
{
#pragma GCC unroll 8
        for (uint64_t *p = buf, *end = buf + words; p < end; p++)
                ck_store(p, (uint64_t)(end - p));
}

static void rnd_none(uint64_t *buf, size_t words, uint64_t rng[2])
{
#pragma GCC unroll 8
        for (size_t i = 0; i < words; i++) {
                volatile size_t off = (size_t)(sb_uniform_double(rng) * (double)words);
                (void)off;
        }
}

static void rnd_read(uint64_t *buf, size_t words, uint64_t rng[2])
{
#pragma GCC unroll 8
        for (size_t i = 0; i < words; i++)
                (void)ck_load(buf + (size_t)(sb_uniform_double(rng) * (double)words));
}

static void rnd_write(uint64_t *buf, size_t words, uint64_t rng[2])
{
#pragma GCC unroll 8
        for (size_t i = 0; i < words; i++)
                ck_store(buf + (size_t)(sb_uniform_double(rng) * (double)words), i * 8);
}

/* One sysbench memory event on buf. Not static: the unit test checks it. */
void memory_block_once(unsigned oper, unsigned access, uint64_t *buf,
                       size_t bytes, uint64_t rng[2]);

static memory_kernel *block_kernel(unsigned oper, unsigned access)
{
        static memory_kernel *const k[2][3] = {
                [ACCESS_SEQ] = { seq_read, seq_write, seq_none },
                [ACCESS_RND] = { rnd_read, rnd_write, rnd_none },
        };
        return k[access][oper];
}

void memory_block_once(unsigned oper, unsigned access, uint64_t *buf,
                       size_t bytes, uint64_t rng[2])
{
        block_kernel(oper, access)(buf, bytes / 8, rng);
}

struct block_worker {
        uint64_t *buf;
        uint64_t rng[2];
} __attribute__((aligned(64)));

struct block_job {
        memory_kernel *kernel;
        size_t words;
        unsigned n_bufs;
        struct block_worker *w;
};

static int block_event(void *arg, unsigned tid)
{
        struct block_job *job = arg;
        struct block_worker *w = &job->w[tid];

        job->kernel(w->buf, job->words, w->rng);
        return 0;
}

static void block_free(struct block_job *job)
{
        for (unsigned i = 0; job->w && i < job->n_bufs; i++)
                free(job->w[i].buf);
        free(job->w);
}

/* sysbench's memory_init(): page-aligned, zeroed blocks. */
static int block_alloc(struct block_job *job, unsigned threads, size_t bytes,
                       bool local)
{
        job->w = aligned_alloc(64, threads * sizeof(*job->w));
        if (!job->w)
                return -ENOMEM;
        memset(job->w, 0, threads * sizeof(*job->w));
        job->n_bufs = local ? threads : 1;
        for (unsigned i = 0; i < job->n_bufs; i++) {
                void *p = NULL;
                int r = -posix_memalign(&p, 4096, bytes);
                if (r < 0)
                        return r;
                memset(p, 0, bytes);
                job->w[i].buf = p;
        }
        for (unsigned i = 0; i < threads; i++) {
                job->w[i].buf = job->w[local ? i : 0].buf;
                sb_seed(job->w[i].rng, now_ns() ^ ((uint64_t)i << 48));
        }
        return 0;
}

static void block_emit(const struct bw_host *h, const struct sbloop_result *res,
                       unsigned oper, uint64_t block)
{
        const char *labels[] = { "operation", oper_choices[oper], NULL };
        double bytes = (double)res->events * (double)block;

        sbloop_emit(h, res, "sysbench memory event");
        if (oper == OPER_NONE) /* sysbench prints no MiB/sec either */
                return;
        h->gauge(h, "bytes_per_second", "Bytes read or written per second "
                 "(events x block_size over total time, as sysbench)", labels,
                 res->seconds > 0 ? bytes / res->seconds : 0);
        h->gauge(h, "bytes_per_cpu_second", "Bytes read or written per "
                 "second of the worker threads' own CPU time", labels,
                 sbloop_per_cpu_second(bytes, res));
        h->counter(h, "bytes_total", "Bytes read or written in the run",
                   labels, bytes);
}

/* The blocks, never more than half of the available memory (a probe must
 * not push the host into swap or the OOM killer's way), as in the other
 * modes. */
static int block_room(const struct bw_host *h, unsigned n_blocks, uint64_t block)
{
        uint64_t avail = 0;
        char a[32], b[32];
        int r = memory_host_sizes(h, "block", 1, NULL, &avail);
        if (r < 0)
                return r;
        if ((double)n_blocks * (double)block > (double)(avail / 2))
                return h->fail(h, -ENOMEM, "block mode: %u block(s) of %s are more than "
                               "half of the %s of available memory", n_blocks,
                               format_size((int64_t)block, a, sizeof(a)),
                               format_size((int64_t)(avail & ~(MIB - 1)), b, sizeof(b)));
        return 0;
}

static int block_run(const struct bw_run *run, const struct bw_host *h)
{
        const struct bw_param_value *v = run->values;
        unsigned threads = (unsigned)v[P_THREADS].i, oper = (unsigned)v[P_OPER].i;
        uint64_t block = (uint64_t)v[P_BLOCK_SIZE].i;
        uint64_t total = (uint64_t)v[P_TOTAL_SIZE].i;
        struct block_job job = {
                .kernel = block_kernel(oper, (unsigned)v[P_ACCESS].i),
                .words = block / 8,
        };
        struct sbloop_spec spec = {
                .threads = threads, .duration = v[P_DURATION].d,
                .per_thread_events = total / block / threads,
                .deadline = run->deadline, .event = block_event, .arg = &job,
        };
        struct sbloop_result res;
        bool local = v[P_SCOPE].i == SCOPE_LOCAL;
        int r = block_room(h, local ? threads : 1, block);
        if (r < 0)
                return r;
        r = block_alloc(&job, threads, block, local);
        if (r < 0) {
                block_free(&job);
                return h->fail(h, r, "cannot allocate %u blocks of %llu bytes: %s",
                               job.n_bufs, (unsigned long long)block, strerror(-r));
        }
        r = sbloop_run(&spec, h, &res);
        block_free(&job);
        r = sbloop_outcome(h, &spec, r, &res);
        if (r == 0)
                block_emit(h, &res, oper, block);
        return r;
}

/* ---- latency mode: sizing (the chase is in memory_latency.c) -------------- */

#define LATENCY_MIN_ELEMENTS 16

static int latency_check(const struct bw_run *run, const struct bw_host *h)
{
        uint64_t size = (uint64_t)run->values[P_SIZE].i;
        uint64_t stride = (uint64_t)run->values[P_STRIDE].i;

        if (stride % 8)
                return h->fail(h, -EINVAL, "stride %llu is not a multiple of 8 "
                               "bytes (each element holds a pointer)",
                               (unsigned long long)stride);
        if (size && size / stride < LATENCY_MIN_ELEMENTS)
                return h->fail(h, -EINVAL, "size %llu holds fewer than %d "
                               "elements of stride %llu bytes",
                               (unsigned long long)size, LATENCY_MIN_ELEMENTS,
                               (unsigned long long)stride);
        return 0;
}

/* The buffer: `size`, or sized against the cache; never more than half of
 * the available memory (a probe must not push the host into swap). */
static int latency_size(const struct bw_run *run, const struct bw_host *h,
                        uint64_t *ret, uint64_t *ret_llc)
{
        uint64_t size = (uint64_t)run->values[P_SIZE].i, llc = 0, avail = 0;
        char a[32], b[32];
        int r = memory_host_sizes(h, "latency", 1, &llc, &avail);

        if (r < 0)
                return r;
        if (size && size > avail / 2)
                return h->fail(h, -ENOMEM, "latency mode: size %s is more than "
                               "half of the %s of available memory",
                               format_size((int64_t)size, a, sizeof(a)),
                               format_size((int64_t)(avail & ~(MIB - 1)), b, sizeof(b)));
        if (!size && memory_latency_bytes(llc, avail, &size) < 0)
                return h->fail(h, -ENOMEM, "latency mode: %s of available memory "
                               "leaves no room for a buffer of 8 MiB",
                               format_size((int64_t)(avail & ~(MIB - 1)), b, sizeof(b)));
        *ret = size;
        *ret_llc = llc;
        return 0;
}

static int latency_run(const struct bw_run *run, const struct bw_host *h)
{
        struct memory_latency_spec spec = {
                .stride = (uint64_t)run->values[P_STRIDE].i,
                .duration = run->values[P_DURATION].d,
                .deadline = run->deadline,
                .release = run->values[P_RELEASE].d,
        };
        uint64_t llc = 0;
        int r = latency_size(run, h, &spec.size, &llc);

        if (r >= 0)
                r = memory_latency_run(&spec, h);
        if (r >= 0)
                memory_emit_cache_ratio(h, "latency", "the buffer", spec.size, llc,
                                        !run->values[P_SIZE].i);
        return r;
}

/* ---- plugin ----------------------------------------------------------------- */

static int memory_check(const struct bw_run *run, const struct bw_host *h)
{
        const struct bw_param_value *v = run->values;
        uint64_t block = (uint64_t)v[P_BLOCK_SIZE].i;
        uint64_t total = (uint64_t)v[P_TOTAL_SIZE].i;
        uint64_t threads = (uint64_t)v[P_THREADS].i;

        if (v[P_MODE].i == MODE_LATENCY)
                return latency_check(run, h);
        if (v[P_MODE].i != MODE_BLOCK)
                return 0;
        if (block & (block - 1))
                return h->fail(h, -EINVAL, "block_size %llu is not a power of "
                               "two (sysbench requires one)",
                               (unsigned long long)block);
        if (total && total / block / threads == 0)
                return h->fail(h, -EINVAL, "total_size %llu is less than "
                               "block_size x threads: no event would run",
                               (unsigned long long)total);
        return 0;
}

static int memory_run(const struct bw_run *run, const struct bw_host *h)
{
        if (run->values[P_MODE].i == MODE_DRAM) {
                struct memory_dram_spec spec = {
                        .threads = (unsigned)run->values[P_THREADS].i,
                        .duration = run->values[P_DURATION].d,
                        .deadline = run->deadline,
                        .size = (uint64_t)run->values[P_ARRAY_SIZE].i,
                        .release = run->values[P_RELEASE].d,
                };
                return memory_dram_run(&spec, h);
        }
        if (run->values[P_MODE].i == MODE_LATENCY)
                return latency_run(run, h);
        return block_run(run, h);
}

BW_PLUGIN_DEFINE = {
        .abi_version = BW_PLUGIN_ABI_VERSION,
        .name = "memory",
        .caps = BW_CAP_CPU_BOUND,
        .description = "sysbench memory (block read/write, seq/rnd), a "
                       "STREAM-style DRAM bandwidth mode (copy, triad) and a "
                       "pointer-chase load latency mode (lat_mem_rd)",
        .params = memory_params,
        .concurrency_param = "threads",
        .throughput_metric = "bytes_per_second",
        .check = memory_check,
        .run = memory_run,
};
