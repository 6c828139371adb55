/* memory_dram.c — see memory_dram.h. */
#include "memory_dram.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "common/sbloop.h"
#include "memory_cgroup.h"
#include "util/fdio.h"
#include "util/format.h"
#include "util/timeutil.h"

/* ---- giving memory back ----------------------------------------------------- */

#define RELEASE_STEP (32 * MIB)

void memory_release(void *p, size_t len, double seconds, double deadline,
                    const struct bw_host *h)
{
        size_t steps = (len + RELEASE_STEP - 1) / RELEASE_STEP;
        double left = deadline > 0 ? deadline - 0.5 - now_mono() : seconds;
        double pause = steps > 1 ? (seconds < left ? seconds : left) / (double)(steps - 1) : 0;
        char *c = p;

        for (size_t done = 0; done < len; done += RELEASE_STEP) {
                size_t n = len - done < RELEASE_STEP ? len - done : RELEASE_STEP;
                if (done && pause > 0 && !h->stopping(h)) {
                        struct timespec ts = { .tv_sec = (time_t)pause,
                                .tv_nsec = (long)((pause - (double)(time_t)pause) * 1e9) };
                        nanosleep(&ts, NULL);
                }
                munmap(c + done, n);
        }
}

/* ---- dram mode: sizing against the last-level cache ----------------------- */

/* Twice STREAM's rule of 4x the caches: a VM's sysfs may show less cache
 * than its vCPUs hit (on the development VM, 32 MiB shown, and triad over
 * arrays of 4x that ran 2.4x faster than over 8x: docs/reports/impact.md).  Every
 * byte the run touches is a page the kernel hands out and, on a VM with
 * free page reporting, the hypervisor takes back after the run and faults
 * in again at the next (760 MiB an 8x run here); `release` spreads that.
 * Where the memory a probe may take holds less, the arrays are what it
 * holds and the run says how far past the cache that is: a host's shape
 * (an Intel socket's 504 MiB L3 on a host with little memory) never
 * switches the probe off. */
#define DRAM_LLC_MULT 8
#define DRAM_MIN_ARRAY (256 * MIB)
#define DRAM_MAX_ARRAY (8192 * MIB)
#define DRAM_LEAST_ARRAY (8 * MIB) /* below this the host has no memory to spare */

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
        if (fdio_read_sysfs(dir, "type", buf, sizeof(buf)) < 0 ||
            !strncmp(buf, "Instruction", 11))
                return false;
        if (fdio_read_sysfs(dir, "level", buf, sizeof(buf)) < 0)
                return false;
        ci->level = (int)strtol(buf, NULL, 10);
        if (fdio_read_sysfs(dir, "size", buf, sizeof(buf)) < 0 ||
            memory_parse_cache_size(buf, &ci->size) < 0)
                return false;
        if (fdio_read_sysfs(dir, "shared_cpu_list", buf, sizeof(buf)) < 0 ||
            memory_count_cpu_list(buf, &ci->sharing) < 0)
                ci->sharing = 1;
        return true;
}

int memory_llc_bytes(const char *cache_dir, unsigned online, unsigned threads,
                     uint64_t *ret)
{
        struct cache_info best = { 0 }, ci;
        unsigned instances;

        for (int k = 0; k < 16; k++)
                if (read_cache_index(cache_dir, k, &ci) && ci.level > best.level)
                        best = ci;
        if (!best.size)
                return -ENODATA;
        /* One instance per `sharing` CPUs (a die, a CCX); a thread fills
         * the one it runs beside, so `threads` use at most that many. */
        instances = (online + best.sharing - 1) / best.sharing;
        if (threads && threads < instances)
                instances = threads;
        *ret = best.size * (instances ? instances : 1);
        return 0;
}

int memory_dram_array_bytes(uint64_t llc, uint64_t avail, uint64_t *ret)
{
        uint64_t want = DRAM_LLC_MULT * llc > DRAM_MIN_ARRAY ?
                        DRAM_LLC_MULT * llc : DRAM_MIN_ARRAY;
        uint64_t cap = avail / 12 < DRAM_MAX_ARRAY ? avail / 12 : DRAM_MAX_ARRAY;

        if (want > cap)
                want = cap;
        want &= ~(UINT64_C(2) * MIB - 1);
        if (want < DRAM_LEAST_ARRAY)
                return -ENOMEM;
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

/* An AMD CCX's L3: 32 MiB on Zen 3 to 5, 96 MiB with 3D V-Cache. */
#define CCX_MAX_L3 (96 * MIB)

uint64_t memory_hidden_llc_bytes(uint64_t reported, bool per_ccx, unsigned threads)
{
        uint64_t reach = CCX_MAX_L3 * threads;

        return per_ccx && threads && reach < reported ? reach : reported;
}

/* Whether the CPU's vendor builds its L3 per CCX: AMD, and Hygon. */
static bool cpu_l3_per_ccx(void)
{
#if defined(__x86_64__) || defined(__i386__)
        /* zeroed: gcc -O1 cannot see that __get_cpuid sets them */
        unsigned a = 0, b = 0, c = 0, d = 0;

        if (!__get_cpuid(0, &a, &b, &c, &d))
                return false;
        /* the vendor string is in EBX, EDX, ECX: "AuthenticAMD", or
         * Hygon's "HygonGenuine" (Zen-based: an L3 per CCX as well) */
        return (b == 0x68747541 && d == 0x69746e65 && c == 0x444d4163) ||
               (b == 0x6f677948 && d == 0x6e65476e && c == 0x656e6975);
#else
        return false;
#endif
}

void memory_host_llc(unsigned threads, uint64_t *ret, uint64_t *ret_reported)
{
        long online = sysconf(_SC_NPROCESSORS_ONLN);
        uint64_t llc = 0;

        *ret_reported = 0;
        if (memory_llc_bytes("/sys/devices/system/cpu/cpu0/cache",
                             online > 0 ? (unsigned)online : 1, threads, &llc) == 0) {
                *ret = llc;
                return;
        }
        long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
        long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
        if (l3 > 0) {
                llc = memory_hidden_llc_bytes((uint64_t)l3, cpu_l3_per_ccx(), threads);
                if (llc < (uint64_t)l3)
                        *ret_reported = (uint64_t)l3;
        } else if (l2 > 0) {
                llc = (uint64_t)l2;
        }
        *ret = llc;
}

int memory_host_sizes(const struct bw_host *h, const char *mode, unsigned threads,
                      uint64_t *ret_llc, uint64_t *ret_avail)
{
        uint64_t llc = 0, reported = 0, avail = 0;
        int r;

        if (ret_llc)
                memory_host_llc(threads, &llc, &reported);
        if (reported)
                h->log(h, LOG_INFO, "%s mode: no cache topology in sysfs; CPUID's "
                       "%llu MiB L3 is more than %u thread(s) reach on AMD or Hygon "
                       "(one CCX each, 96 MiB at most): the cache taken as %llu MiB", mode,
                       (unsigned long long)(reported / MIB), threads,
                       (unsigned long long)(llc / MIB));
        r = mem_available(&avail);
        if (r < 0)
                return h->fail(h, r, "%s mode: cannot read MemAvailable from "
                               "/proc/meminfo: %s", mode, strerror(-r));
        char self[4096];
        uint64_t room;
        if (fdio_read_small("/proc/self/cgroup", self, sizeof(self)) >= 0 &&
            memory_cgroup_room(self, "/sys/fs/cgroup", &room) >= 0 && room < avail) {
                h->log(h, LOG_INFO, "%s mode: this cgroup's memory limit leaves "
                       "%llu MiB of the host's %llu MiB available: sized by it", mode,
                       (unsigned long long)(room / MIB), (unsigned long long)(avail / MIB));
                avail = room;
        }
        if (ret_llc)
                *ret_llc = llc;
        *ret_avail = avail;
        return 0;
}

void memory_emit_cache_ratio(const struct bw_host *h, const char *mode,
                             const char *what, uint64_t bytes, uint64_t llc, bool sized)
{
        char b[32], c[32];

        if (!llc) {
                h->log(h, LOG_NOTICE, "%s mode: the last-level cache is unknown "
                       "(no sysfs cache information, no CPUID figure): %s of %s, "
                       "not compared with it", mode, what,
                       format_size((int64_t)bytes, b, sizeof(b)));
                return;
        }
        h->gauge(h, "working_set_llc_ratio", "How many times the last-level "
                 "cache the run's threads can use its working set is (each "
                 "array in dram mode, the buffer in latency mode); below 4 "
                 "(STREAM's rule) the figure is partly cache speed", NULL,
                 (double)bytes / (double)llc);
        if (bytes < 4 * llc)
                h->log(h, LOG_NOTICE, "%s mode: %s of %s, %.1fx the %s "
                       "last-level cache, less than STREAM's 4x (%s): the "
                       "figure is partly cache speed", mode, what,
                       format_size((int64_t)bytes, b, sizeof(b)),
                       (double)bytes / (double)llc,
                       format_size((int64_t)llc, c, sizeof(c)),
                       sized ? "the available memory allows no more" : "as set");
}

/* Each array: `size` (whole 2 MiB pages, so each can be a huge page), or
 * sized by the cache. */
static int dram_size(const struct bw_host *h, const struct memory_dram_spec *spec,
                     uint64_t *ret_llc, uint64_t *ret_array)
{
        uint64_t llc = 0, avail = 0, size = spec->size;
        int r = memory_host_sizes(h, "dram", spec->threads, &llc, &avail);

        if (r < 0)
                return r;
        if (size) {
                size = (size + 2 * MIB - 1) & ~(UINT64_C(2) * MIB - 1);
                if (3 * size > avail / 2)
                        return h->fail(h, -ENOMEM, "dram mode: 3 arrays of "
                                       "size %llu MiB are more than half of the "
                                       "%llu MiB of available memory",
                                       (unsigned long long)(size / MIB),
                                       (unsigned long long)(avail / MIB));
                *ret_llc = llc;
                *ret_array = size;
                return 0;
        }
        r = memory_dram_array_bytes(llc, avail, ret_array);
        if (r < 0)
                return h->fail(h, r, "dram mode: %llu MiB of available memory "
                               "leaves no room for 3 arrays of %llu MiB",
                               (unsigned long long)(avail / MIB),
                               (unsigned long long)(DRAM_LEAST_ARRAY / MIB));
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
        struct sbloop_gate gate;
        pthread_barrier_t bar;
        uint64_t start_ns, end_ns, hard_end_ns;
        bool go, stopped;  /* written by worker 0 between barriers */
        uint64_t passes;
        double best[2];    /* fastest copy and triad pass, seconds */
        double cpu[2];     /* copy and triad: the workers' CPU time, all
                              passes, summed (seconds) */
};

struct dram_worker {
        pthread_t thread;
        struct dram_job *job;
        unsigned tid;
        uint64_t cpu_ns[2]; /* its own CPU time in copy and in triad */
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

        if (!sbloop_gate_wait(&j->gate))
                return NULL;
        dram_slice(j, w->tid, &lo, &hi);
        for (size_t i = lo; i < hi; i++) { /* first touch: NUMA-local pages */
                j->a[i] = 1.0;
                j->b[i] = 2.0;
                j->c[i] = 0.0;
        }
        do {
                pthread_barrier_wait(&j->bar);
                uint64_t t0 = now_ns(), c0 = thread_cpu_ns();
                dram_copy(j->c + lo, j->a + lo, hi - lo);
                uint64_t c1 = thread_cpu_ns();
                pthread_barrier_wait(&j->bar);
                uint64_t t1 = now_ns(), c2 = thread_cpu_ns();
                dram_triad(j->a + lo, j->b + lo, j->c + lo, hi - lo);
                w->cpu_ns[0] += c1 - c0;
                w->cpu_ns[1] += thread_cpu_ns() - c2;
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
        sbloop_gate_open(&j->gate, r < 0);
        for (unsigned i = 0; i < started; i++) {
                pthread_join(w[i].thread, NULL);
                j->cpu[0] += (double)w[i].cpu_ns[0] / 1e9;
                j->cpu[1] += (double)w[i].cpu_ns[1] / 1e9;
        }
        return r;
}

static int dram_measure(struct dram_job *j, double duration, double deadline)
{
        struct dram_worker *w = calloc(j->threads, sizeof(*w));
        int r;

        if (!w)
                return -ENOMEM;
        sbloop_gate_init(&j->gate);
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
        sbloop_gate_destroy(&j->gate);
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
        /* the CPU-time twins: all passes over the workers' CPU time in
         * them (a pass a co-tenant delayed is not the fastest, but its CPU
         * time is still its own work) */
        h->gauge(h, "bytes_per_cpu_second", "Bytes moved per second of the "
                 "worker threads' own CPU time, all passes (STREAM counting)",
                 copy, j->cpu[0] > 0 ? per[0] * (double)j->passes / j->cpu[0] : 0);
        h->gauge(h, "bytes_per_cpu_second", "Bytes moved per second of the "
                 "worker threads' own CPU time, all passes (STREAM counting)",
                 triad, j->cpu[1] > 0 ? per[1] * (double)j->passes / j->cpu[1] : 0);
        h->counter(h, "bytes_total", "Bytes moved in the run (STREAM counting)",
                   copy, per[0] * (double)j->passes);
        h->counter(h, "bytes_total", "Bytes moved in the run (STREAM counting)",
                   triad, per[1] * (double)j->passes);
        h->gauge(h, "working_set_bytes", "Size of the three STREAM arrays",
                 NULL, 3.0 * (double)j->bytes);
        h->gauge(h, "total_time_seconds", "Wall time of the run, first touch "
                 "of the arrays included", NULL, seconds);
}

int memory_dram_run(const struct memory_dram_spec *spec, const struct bw_host *h)
{
        struct dram_job j = { .threads = spec->threads, .h = h };
        uint64_t llc = 0, bytes = 0;
        int r = dram_size(h, spec, &llc, &bytes);

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
        else if ((r = dram_measure(&j, spec->duration, spec->deadline)) < 0)
                r = h->fail(h, r, "dram mode: cannot run %u threads: %s",
                            j.threads, strerror(-r));
        else if (j.stopped)
                r = h->fail(h, -ECANCELED, "stopped before the end of the run");
        else if (!dram_valid(&j))
                r = h->fail(h, -EIO, "dram mode: the arrays do not hold the "
                            "values copy and triad must leave: bad memory?");
        else {
                h->log(h, LOG_INFO, "dram: 3 arrays of %llu MiB, last-level "
                       "cache %llu MiB for %u thread(s), %llu passes",
                       (unsigned long long)(bytes / MIB),
                       (unsigned long long)(llc / MIB), j.threads,
                       (unsigned long long)j.passes);
                dram_emit(h, &j, (double)(now_ns() - j.start_ns) / 1e9);
                memory_emit_cache_ratio(h, "dram", "each array", bytes, llc, !spec->size);
        }
        for (double *p[] = { j.a, j.b, j.c }, **q = p; q < p + 3; q++)
                if (*q)
                        memory_release(*q, bytes, r < 0 ? 0 : spec->release / 3,
                                       spec->deadline, h);
        return r;
}

