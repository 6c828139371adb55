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
 * mode=dram measures the DIMMs: STREAM's copy (c = a) and triad
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
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <syslog.h>
#include <unistd.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "common/sbloop.h"
#include "fdio.h"
#include "memory_latency.h"
#include "parse.h"
#include "plugin.h"
#include "timeutil.h"

enum { P_MODE, P_BLOCK_SIZE, P_TOTAL_SIZE, P_OPER, P_ACCESS, P_SCOPE,
       P_SIZE, P_STRIDE, P_THREADS, P_DURATION, P_COUNT };
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
        [P_STRIDE] = {
                .name = "stride", .type = BW_PARAM_SIZE, .default_value = "64",
                .min = 8, .max = 1 << 20, .unit = "bytes",
                .flags = BW_PARAM_LABEL, .applies = "mode=latency",
                .help = "Bytes of one element of the chase, a multiple of 8 "
                        "(64: one cache line, lat_mem_rd -s)",
        },
        [P_THREADS] = SBLOOP_PARAM_THREADS_APPLIES("mode=block|dram"),
        [P_DURATION] = SBLOOP_PARAM_DURATION,
        [P_COUNT] = { .name = NULL },
};

/* ---- block mode: sysbench's events ---------------------------------------- */

typedef void memory_kernel(uint64_t *buf, size_t words, uint64_t rng[2]);

/* sysbench's sb_rand_uniform_double(): xoroshiro128+ mapped to [0, 1). */
static inline double rng_double(uint64_t s[2])
{
        uint64_t s0 = s[0], s1 = s[1], x = s0 + s1;
        union { uint64_t i; double d; } u;

        s1 ^= s0;
        s[0] = ((s0 << 24) | (s0 >> 40)) ^ s1 ^ (s1 << 16);
        s[1] = (s1 << 37) | (s1 >> 27);
        u.i = UINT64_C(0x3FF) << 52 | x >> 12;
        return u.d - 1.0;
}

static void rng_seed(uint64_t s[2], uint64_t seed)
{
        for (int i = 0; i < 2; i++) { /* splitmix64 */
                uint64_t z = (seed += UINT64_C(0x9E3779B97F4A7C15));
                z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
                z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
                s[i] = z ^ (z >> 31);
        }
}

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
                volatile size_t off = (size_t)(rng_double(rng) * (double)words);
                (void)off;
        }
}

static void rnd_read(uint64_t *buf, size_t words, uint64_t rng[2])
{
#pragma GCC unroll 8
        for (size_t i = 0; i < words; i++)
                (void)ck_load(buf + (size_t)(rng_double(rng) * (double)words));
}

static void rnd_write(uint64_t *buf, size_t words, uint64_t rng[2])
{
#pragma GCC unroll 8
        for (size_t i = 0; i < words; i++)
                ck_store(buf + (size_t)(rng_double(rng) * (double)words), i * 8);
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
                rng_seed(job->w[i].rng, now_ns() ^ ((uint64_t)i << 48));
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
        h->counter(h, "bytes_total", "Bytes read or written in the run",
                   labels, bytes);
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
        int r = block_alloc(&job, threads, block, v[P_SCOPE].i == SCOPE_LOCAL);

        if (r < 0) {
                block_free(&job);
                return h->fail(h, r, "cannot allocate %u blocks of %llu bytes: %s",
                               job.n_bufs, (unsigned long long)block, strerror(-r));
        }
        r = sbloop_run(&spec, h, &res);
        block_free(&job);
        if (r < 0)
                return h->fail(h, r, "cannot run %u worker threads: %s",
                               threads, strerror(-r));
        if (res.stopped)
                return h->fail(h, -ECANCELED, "stopped before the end of the run");
        block_emit(h, &res, oper, block);
        return 0;
}

/* ---- dram mode: sizing against the last-level cache ----------------------- */

#define MIB (UINT64_C(1) << 20)
#define DRAM_MIN_ARRAY (256 * MIB)
#define DRAM_MAX_ARRAY (8192 * MIB)

/* Sizes in sysfs cache files: "32768K", "1M", "512". */
int memory_parse_cache_size(const char *s, uint64_t *ret);
/* Number of CPUs in a sysfs CPU list such as "0-3,8,10-11". */
int memory_count_cpu_list(const char *s, unsigned *ret);
/* Total last-level cache of the machine, from a cpuN/cache directory. */
int memory_llc_bytes(const char *cache_dir, unsigned online, uint64_t *ret);
/* Bytes of each dram-mode array: at least 8x the LLC and 256 MiB, at most a
 * twelfth of the available memory (all three: a quarter) and 8 GiB; -E2BIG
 * when that leaves less than STREAM's rule of 4x the LLC per array. */
int memory_dram_array_bytes(uint64_t llc, uint64_t avail, uint64_t *ret);

int memory_parse_cache_size(const char *s, uint64_t *ret)
{
        char *end;
        unsigned long long v;

        errno = 0;
        v = strtoull(s, &end, 10);
        if (errno || end == s)
                return -EINVAL;
        if (*end == 'K')
                v <<= 10, end++;
        else if (*end == 'M')
                v <<= 20, end++;
        else if (*end == 'G')
                v <<= 30, end++;
        if (*end != '\0' && *end != '\n')
                return -EINVAL;
        *ret = v;
        return 0;
}

int memory_count_cpu_list(const char *s, unsigned *ret)
{
        unsigned n = 0;

        while (*s && *s != '\n') {
                char *end;
                unsigned long a = strtoul(s, &end, 10), b = a;
                if (end == s)
                        return -EINVAL;
                if (*end == '-') {
                        s = end + 1;
                        b = strtoul(s, &end, 10);
                        if (end == s || b < a)
                                return -EINVAL;
                }
                n += (unsigned)(b - a + 1);
                s = *end == ',' ? end + 1 : end;
                if (*end != ',' && *end && *end != '\n')
                        return -EINVAL;
        }
        if (!n)
                return -EINVAL;
        *ret = n;
        return 0;
}

struct cache_info {
        int level;
        uint64_t size;
        unsigned sharing;
};

/* One cpuN/cache/indexK: false for instruction caches and missing entries. */
static bool read_cache_index(const char *cache_dir, int k, struct cache_info *ci)
{
        char dir[400], buf[128];

        snprintf(dir, sizeof(dir), "%s/index%d", cache_dir, k);
        if (read_sysfs_attr(dir, "type", buf, sizeof(buf)) < 0 ||
            !strncmp(buf, "Instruction", 11))
                return false;
        if (read_sysfs_attr(dir, "level", buf, sizeof(buf)) < 0)
                return false;
        ci->level = (int)strtol(buf, NULL, 10);
        if (read_sysfs_attr(dir, "size", buf, sizeof(buf)) < 0 ||
            memory_parse_cache_size(buf, &ci->size) < 0)
                return false;
        if (read_sysfs_attr(dir, "shared_cpu_list", buf, sizeof(buf)) < 0 ||
            memory_count_cpu_list(buf, &ci->sharing) < 0)
                ci->sharing = 1;
        return true;
}

int memory_llc_bytes(const char *cache_dir, unsigned online, uint64_t *ret)
{
        struct cache_info best = { 0 }, ci;

        for (int k = 0; k < 16; k++)
                if (read_cache_index(cache_dir, k, &ci) && ci.level > best.level)
                        best = ci;
        if (!best.size)
                return -ENODATA;
        /* Instances of that cache: one per `sharing` CPUs. */
        *ret = best.size * ((online + best.sharing - 1) / best.sharing);
        return 0;
}

int memory_dram_array_bytes(uint64_t llc, uint64_t avail, uint64_t *ret)
{
        uint64_t want = 8 * llc > DRAM_MIN_ARRAY ? 8 * llc : DRAM_MIN_ARRAY;
        uint64_t cap = avail / 12 < DRAM_MAX_ARRAY ? avail / 12 : DRAM_MAX_ARRAY;

        if (want > cap)
                want = cap;
        want &= ~(UINT64_C(2) * MIB - 1);
        if (!llc || want < 4 * llc)
                return -E2BIG;
        *ret = want;
        return 0;
}

static int mem_available(uint64_t *ret)
{
        char line[256];
        FILE *f = fopen("/proc/meminfo", "re");
        int r = -ENODATA;

        if (!f)
                return -errno;
        while (fgets(line, sizeof(line), f))
                if (!strncmp(line, "MemAvailable:", 13)) {
                        char *end;
                        unsigned long long kb = strtoull(line + 13, &end, 10);
                        if (end != line + 13) {
                                *ret = (uint64_t)kb * 1024;
                                r = 0;
                        }
                        break;
                }
        fclose(f);
        return r;
}

/* The machine's last-level cache (unless ret_llc is NULL) and available
 * memory, which the dram and latency modes size their buffers by (`mode`
 * and `what` for messages). */
static int host_sizes(const struct bw_host *h, const char *mode,
                      const char *what, uint64_t *ret_llc, uint64_t *ret_avail)
{
        long online = sysconf(_SC_NPROCESSORS_ONLN);
        uint64_t llc = 0, avail = 0;
        int r = !ret_llc ? 0 :
                memory_llc_bytes("/sys/devices/system/cpu/cpu0/cache",
                                 online > 0 ? (unsigned)online : 1, &llc);

        if (r < 0) {
                long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
                long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
                if (l3 <= 0 && l2 <= 0)
                        return h->fail(h, -ENODATA, "%s mode: cannot tell the "
                                       "last-level cache size (no "
                                       "/sys/devices/system/cpu/cpu0/cache), so "
                                       "cannot size %s beyond it", mode, what);
                llc = (uint64_t)(l3 > 0 ? l3 : l2);
        }
        r = mem_available(&avail);
        if (r < 0)
                return h->fail(h, r, "%s mode: cannot read MemAvailable from "
                               "/proc/meminfo: %s", mode, strerror(-r));
        if (ret_llc)
                *ret_llc = llc;
        *ret_avail = avail;
        return 0;
}

static int dram_size(const struct bw_host *h, uint64_t *ret_llc,
                     uint64_t *ret_array)
{
        uint64_t llc = 0, avail = 0;
        int r = host_sizes(h, "dram", "arrays", &llc, &avail);

        if (r < 0)
                return r;
        r = memory_dram_array_bytes(llc, avail, ret_array);
        if (r < 0)
                return h->fail(h, r, "dram mode: %llu MiB of available memory "
                               "allows no arrays of 4x the %llu MiB last-level "
                               "cache; the figure would be cache speed, not "
                               "DRAM speed", (unsigned long long)(avail / MIB),
                               (unsigned long long)(llc / MIB));
        *ret_llc = llc;
        return 0;
}

/* ---- dram mode: STREAM copy and triad ------------------------------------- */

#define DRAM_Q 0.5    /* triad scalar: keeps the values bounded (a -> 4) */
#define DRAM_CHUNK 8  /* elements; fixed-count inner loops vectorise at -O2 */

struct dram_job {
        double *a, *b, *c;
        size_t n, bytes;   /* elements and bytes of one array */
        unsigned threads;
        const struct bw_host *h;
        struct sbgate gate;
        pthread_barrier_t bar;
        uint64_t start_ns, end_ns, hard_end_ns;
        bool go, stopped;  /* written by worker 0 between barriers */
        uint64_t passes;
        double best[2];    /* fastest copy and triad pass, seconds */
};

struct dram_worker {
        pthread_t thread;
        struct dram_job *job;
        unsigned tid;
};

static void dram_copy(double *restrict c, const double *restrict a, size_t n)
{
        for (size_t j = 0; j < n; j += DRAM_CHUNK)
                for (size_t k = 0; k < DRAM_CHUNK; k++)
                        c[j + k] = a[j + k];
}

/* The stores of a go around the cache (non-temporal, as memcpy() does for
 * copies this large and as STREAM's compilers do with streaming stores):
 * otherwise each line of a is first read for ownership, traffic STREAM's
 * counting does not see, and triad would measure the cache protocol. */
static void dram_triad(double *restrict a, const double *restrict b,
                       const double *restrict c, size_t n)
{
#ifdef __SSE2__
        for (size_t j = 0; j < n; j += 2) /* slices are 64-byte aligned */
                _mm_stream_pd(a + j, _mm_add_pd(_mm_load_pd(b + j),
                              _mm_mul_pd(_mm_set1_pd(DRAM_Q), _mm_load_pd(c + j))));
        _mm_sfence();
#else
        for (size_t j = 0; j < n; j += DRAM_CHUNK)
                for (size_t k = 0; k < DRAM_CHUNK; k++)
                        a[j + k] = b[j + k] + DRAM_Q * c[j + k];
#endif
}

static void dram_slice(const struct dram_job *j, unsigned tid, size_t *lo,
                       size_t *hi)
{
        size_t chunks = j->n / DRAM_CHUNK;

        *lo = chunks * tid / j->threads * DRAM_CHUNK;
        *hi = chunks * (tid + 1) / j->threads * DRAM_CHUNK;
}

/* Worker 0, between passes: keep the best times, decide whether to go on.
 * At least two passes unless the deadline forbids it. */
static void dram_account(struct dram_job *j, uint64_t t0, uint64_t t1,
                         uint64_t t2)
{
        double copy = (double)(t1 - t0) / 1e9, triad = (double)(t2 - t1) / 1e9;

        if (!j->passes || copy < j->best[0])
                j->best[0] = copy;
        if (!j->passes || triad < j->best[1])
                j->best[1] = triad;
        j->passes++;
        j->h->progress(j->h, 1);
        j->stopped = j->h->stopping(j->h);
        j->go = !j->stopped && t2 < j->hard_end_ns &&
                (t2 < j->end_ns || j->passes < 2);
}

static void *dram_worker_main(void *arg)
{
        struct dram_worker *w = arg;
        struct dram_job *j = w->job;
        size_t lo, hi;

        if (!sbgate_wait(&j->gate))
                return NULL;
        dram_slice(j, w->tid, &lo, &hi);
        for (size_t i = lo; i < hi; i++) { /* first touch: NUMA-local pages */
                j->a[i] = 1.0;
                j->b[i] = 2.0;
                j->c[i] = 0.0;
        }
        do {
                pthread_barrier_wait(&j->bar);
                uint64_t t0 = now_ns();
                dram_copy(j->c + lo, j->a + lo, hi - lo);
                pthread_barrier_wait(&j->bar);
                uint64_t t1 = now_ns();
                dram_triad(j->a + lo, j->b + lo, j->c + lo, hi - lo);
                pthread_barrier_wait(&j->bar);
                if (w->tid == 0)
                        dram_account(j, t0, t1, now_ns());
                pthread_barrier_wait(&j->bar);
        } while (j->go);
        return NULL;
}

static bool dram_holds(const struct dram_job *j, size_t i, double ea, double ec)
{
        return fabs(j->a[i] - ea) <= 1e-12 * ea && fabs(j->c[i] - ec) <= 1e-12 * ea;
}

/* Every 4099th element and the last hold what the passes must leave. */
static bool dram_valid(const struct dram_job *j)
{
        double ea = 1.0, ec = 0.0;

        for (uint64_t p = 0; p < j->passes; p++) {
                ec = ea;
                ea = 2.0 + DRAM_Q * ec;
        }
        for (size_t i = 0; i < j->n; i += 4099)
                if (!dram_holds(j, i, ea, ec))
                        return false;
        return dram_holds(j, j->n - 1, ea, ec);
}

static void *dram_map(size_t bytes)
{
        void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED)
                return NULL;
#ifdef MADV_HUGEPAGE
        madvise(p, bytes, MADV_HUGEPAGE); /* fewer TLB misses; optional */
#endif
        return p;
}

static int dram_threads(struct dram_job *j, struct dram_worker *w)
{
        unsigned started = 0;
        int r = 0;

        for (; started < j->threads; started++) {
                w[started] = (struct dram_worker){ .job = j, .tid = started };
                r = -pthread_create(&w[started].thread, NULL, dram_worker_main,
                                    &w[started]);
                if (r < 0)
                        break;
        }
        sbgate_open(&j->gate, r < 0);
        for (unsigned i = 0; i < started; i++)
                pthread_join(w[i].thread, NULL);
        return r;
}

static int dram_measure(struct dram_job *j, double duration, double deadline)
{
        struct dram_worker *w = calloc(j->threads, sizeof(*w));
        int r;

        if (!w)
                return -ENOMEM;
        sbgate_init(&j->gate);
        r = -pthread_barrier_init(&j->bar, NULL, j->threads);
        if (r >= 0) {
                j->start_ns = now_ns();
                j->end_ns = j->start_ns + (uint64_t)(duration * 1e9);
                j->hard_end_ns = (uint64_t)(deadline * 1e9) - 250000000u;
                if (j->end_ns > j->hard_end_ns)
                        j->end_ns = j->hard_end_ns;
                r = dram_threads(j, w);
                pthread_barrier_destroy(&j->bar);
        }
        sbgate_destroy(&j->gate);
        free(w);
        return r;
}

static void dram_emit(const struct bw_host *h, const struct dram_job *j,
                      double seconds)
{
        static const char *const copy[] = { "operation", "copy", NULL };
        static const char *const triad[] = { "operation", "triad", NULL };
        double per[2] = { 2.0 * (double)j->bytes, 3.0 * (double)j->bytes };

        h->gauge(h, "bytes_per_second", "DRAM bandwidth of the fastest pass, "
                 "bytes counted as STREAM does (copy 2 arrays, triad 3)",
                 copy, per[0] / j->best[0]);
        h->gauge(h, "bytes_per_second", "DRAM bandwidth of the fastest pass, "
                 "bytes counted as STREAM does (copy 2 arrays, triad 3)",
                 triad, per[1] / j->best[1]);
        h->counter(h, "bytes_total", "Bytes moved in the run (STREAM counting)",
                   copy, per[0] * (double)j->passes);
        h->counter(h, "bytes_total", "Bytes moved in the run (STREAM counting)",
                   triad, per[1] * (double)j->passes);
        h->gauge(h, "working_set_bytes", "Size of the three STREAM arrays",
                 NULL, 3.0 * (double)j->bytes);
        h->gauge(h, "total_time_seconds", "Wall time of the run, first touch "
                 "of the arrays included", NULL, seconds);
}

static int dram_run(const struct bw_run *run, const struct bw_host *h)
{
        const struct bw_param_value *v = run->values;
        struct dram_job j = { .threads = (unsigned)v[P_THREADS].i, .h = h };
        uint64_t llc = 0, bytes = 0;
        int r = dram_size(h, &llc, &bytes);

        if (r < 0)
                return r;
        j.bytes = bytes;
        j.n = bytes / sizeof(double);
        j.a = dram_map(bytes);
        j.b = dram_map(bytes);
        j.c = dram_map(bytes);
        if (!j.a || !j.b || !j.c)
                r = h->fail(h, -ENOMEM, "dram mode: cannot map 3 arrays of "
                            "%llu MiB", (unsigned long long)(bytes / MIB));
        else if ((r = dram_measure(&j, v[P_DURATION].d, run->deadline)) < 0)
                r = h->fail(h, r, "dram mode: cannot run %u threads: %s",
                            j.threads, strerror(-r));
        else if (j.stopped)
                r = h->fail(h, -ECANCELED, "stopped before the end of the run");
        else if (!dram_valid(&j))
                r = h->fail(h, -EIO, "dram mode: the arrays do not hold the "
                            "values copy and triad must leave: bad memory?");
        else {
                h->log(h, LOG_INFO, "dram: 3 arrays of %llu MiB, last-level "
                       "cache %llu MiB, %llu passes",
                       (unsigned long long)(bytes / MIB),
                       (unsigned long long)(llc / MIB),
                       (unsigned long long)j.passes);
                dram_emit(h, &j, (double)(now_ns() - j.start_ns) / 1e9);
        }
        for (double *p[] = { j.a, j.b, j.c }, **q = p; q < p + 3; q++)
                if (*q)
                        munmap(*q, bytes);
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
                        uint64_t *ret)
{
        uint64_t size = (uint64_t)run->values[P_SIZE].i, llc = 0, avail = 0;
        char a[32], b[32];
        int r = host_sizes(h, "latency", "a buffer", size ? NULL : &llc, &avail);

        if (r < 0)
                return r;
        if (size && size > avail / 2)
                return h->fail(h, -ENOMEM, "latency mode: size %s is more than "
                               "half of the %s of available memory",
                               format_size((int64_t)size, a, sizeof(a)),
                               format_size((int64_t)(avail & ~(MIB - 1)), b, sizeof(b)));
        if (!size && memory_latency_bytes(llc, avail, &size) < 0)
                return h->fail(h, -E2BIG, "latency mode: %llu MiB of available "
                               "memory allows no buffer of 4x the %llu MiB "
                               "last-level cache; the figure would be cache "
                               "latency, not DRAM latency; set size",
                               (unsigned long long)(avail / MIB),
                               (unsigned long long)(llc / MIB));
        *ret = size;
        return 0;
}

static int latency_run(const struct bw_run *run, const struct bw_host *h)
{
        struct memory_latency_spec spec = {
                .stride = (uint64_t)run->values[P_STRIDE].i,
                .duration = run->values[P_DURATION].d,
                .deadline = run->deadline,
        };
        int r = latency_size(run, h, &spec.size);

        if (r < 0)
                return r;
        return memory_latency_run(&spec, h);
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
        if (run->values[P_MODE].i == MODE_DRAM)
                return dram_run(run, h);
        if (run->values[P_MODE].i == MODE_LATENCY)
                return latency_run(run, h);
        return block_run(run, h);
}

BW_PLUGIN_DEFINE = {
        .abi_version = BW_PLUGIN_ABI_VERSION,
        .name = "memory",
        .description = "sysbench memory (block read/write, seq/rnd), a "
                       "STREAM-style DRAM bandwidth mode (copy, triad) and a "
                       "pointer-chase load latency mode (lat_mem_rd)",
        .params = memory_params,
        .concurrency_param = "threads",
        .throughput_metric = "bytes_per_second",
        .check = memory_check,
        .run = memory_run,
};
