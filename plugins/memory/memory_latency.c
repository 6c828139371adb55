/* memory_latency.c — load latency of the memory hierarchy, the figure that
 * moves when a DIMM runs slower, a channel is lost or the BIOS falls back
 * to a lower memory speed (bandwidth hides some of that; a dependent load
 * cannot).
 *
 * As lmbench's lat_mem_rd and Intel's Memory Latency Checker: the buffer
 * is cut into elements of `stride` bytes (one cache line by default) linked
 * into a single cycle in random order, so that no prefetcher can guess the
 * next line, and each load takes its address from the previous one, so no
 * two loads overlap.  The buffer is 2 MiB aligned and asked for transparent
 * huge pages (MADV_HUGEPAGE): with 4 KiB pages a random walk over 256 MiB
 * misses the TLB on almost every load and the figure would be mostly page
 * walks, which on a VM are nested ones.  The share the kernel actually gave
 * is reported (huge_page_ratio), since it changes the figure.  The time of
 * a load is the median over ten windows of the run, after a warm-up pass,
 * so one burst of noise from a neighbour does not make a step; each window
 * is timed in the chasing thread's CPU time (CLOCK_THREAD_CPUTIME_ID): a
 * stall on memory is CPU time, a moment the thread was not running is not,
 * so a busy host does not look like slower memory (the windows' ends are
 * wall-clock, so the run keeps its duration). */
#include "memory_latency.h"
#include "memory_dram.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <syslog.h>
#include <time.h>

#include "common/sbrand.h"
#include "util/format.h"
#include "util/timeutil.h"

#define LAT_MIN_BYTES (64 * MIB)
#define LAT_MAX_BYTES (8192 * MIB)
#define LAT_LEAST_BYTES (8 * MIB)     /* below this the host has no memory to spare */
#define LAT_HUGE (2 * MIB)            /* x86-64 and arm64 PMD page */
#define LAT_CHUNK 16384               /* loads between clock reads */
#define LAT_WINDOWS 10
#define LAT_MARGIN_NS 250000000u      /* finish this long before the deadline */
#define LAT_STOP_CHECK 0xfffffu       /* shuffle steps between stop checks */

int memory_latency_bytes(uint64_t llc, uint64_t avail, uint64_t *ret)
{
        uint64_t want = 8 * llc > LAT_MIN_BYTES ? 8 * llc : LAT_MIN_BYTES;
        uint64_t cap = avail / 4 < LAT_MAX_BYTES ? avail / 4 : LAT_MAX_BYTES;

        while (cap & (cap - 1)) /* a power of two: MemAvailable wanders */
                cap &= cap - 1;
        want = (want + LAT_HUGE - 1) & ~(LAT_HUGE - 1);
        if (want > cap)
                want = cap;
        if (want < LAT_LEAST_BYTES)
                return -ENOMEM;
        *ret = want;
        return 0;
}

/* Uniform in [0, bound), by Lemire's multiply-shift (a modulo's tiny bias
 * where there is no 128-bit type). */
static uint64_t rng_below(uint64_t *s, uint64_t bound)
{
#ifdef __SIZEOF_INT128__
        return (uint64_t)(((unsigned __int128)sb_splitmix64(s) * bound) >> 64);
#else
        return sb_splitmix64(s) % bound;
#endif
}

static inline uint64_t *word(void *buf, size_t i, size_t stride)
{
        return (uint64_t *)((char *)buf + i * stride);
}

int memory_latency_chain(void *buf, size_t n, size_t stride, uint64_t seed,
                         const struct bw_host *h)
{
        uint64_t s = seed;

        if (n < 2 || stride < 8 || stride % 8)
                return -EINVAL;
        for (size_t i = 0; i < n; i++) /* also the first touch of the pages */
                *word(buf, i, stride) = i;
        for (size_t i = n - 1; i > 0; i--) { /* Sattolo: j < i, never i */
                size_t j = (size_t)rng_below(&s, i);
                uint64_t t = *word(buf, i, stride);
                *word(buf, i, stride) = *word(buf, j, stride);
                *word(buf, j, stride) = t;
                if (h && !(i & LAT_STOP_CHECK) && h->stopping(h))
                        return -ECANCELED;
        }
        for (size_t i = 0; i < n; i++) { /* indices to the addresses chased */
                uint64_t *w = word(buf, i, stride);
                *(void **)w = word(buf, (size_t)*w, stride);
        }
        return 0;
}

#define LAT_LOAD q = (void **)*q;
#define LAT_LOAD4 LAT_LOAD LAT_LOAD LAT_LOAD LAT_LOAD

void *memory_latency_chase(void *p, uint64_t loads)
{
        void **q = p;

        for (uint64_t i = 0; i < loads; i += 16) {
                LAT_LOAD4 LAT_LOAD4 LAT_LOAD4 LAT_LOAD4
        }
        return q;
}

/* The buffer: 2 MiB aligned inside a larger anonymous mapping, so that
 * every 2 MiB of it can be one huge page; the slack is never touched. */
struct lat_buf {
        void *base, *p;
        size_t len, bytes;
};

static int lat_map(struct lat_buf *b, size_t bytes)
{
        bool huge = bytes >= LAT_HUGE;
        size_t span = huge ? (bytes + LAT_HUGE - 1) & ~(size_t)(LAT_HUGE - 1) : bytes;

        b->bytes = bytes;
        b->len = huge ? span + LAT_HUGE : span;
        b->base = mmap(NULL, b->len, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (b->base == MAP_FAILED) {
                b->base = NULL;
                return -errno;
        }
        b->p = b->base;
        if (huge) {
                uintptr_t a = ((uintptr_t)b->base + LAT_HUGE - 1) & ~(uintptr_t)(LAT_HUGE - 1);
                b->p = (void *)a;
#ifdef MADV_HUGEPAGE
                (void)madvise(b->p, span, MADV_HUGEPAGE); /* a wish: THP may be off */
#endif
        }
        return 0;
}

/* Share of the buffer in huge pages: AnonHugePages of its mapping in
 * /proc/self/smaps; -1 when that cannot be read. */
static double lat_huge_ratio(const struct lat_buf *b)
{
        FILE *f = fopen("/proc/self/smaps", "re");
        uintptr_t at = (uintptr_t)b->p;
        char *line = NULL;
        size_t cap = 0;
        bool inside = false;
        double kb = -1;

        if (!f)
                return -1;
        while (kb < 0 && getline(&line, &cap, f) > 0) {
                unsigned long lo, hi;
                if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2)
                        inside = lo <= at && at < hi;
                else if (inside && !strncmp(line, "AnonHugePages:", 14))
                        kb = strtod(line + 14, NULL);
        }
        free(line);
        fclose(f);
        if (kb < 0)
                return -1;
        return kb * 1024 >= (double)b->bytes ? 1.0 : kb * 1024 / (double)b->bytes;
}

struct lat_meas {
        void *p;                    /* where the chase is */
        const struct bw_host *h;
        uint64_t loads;             /* all loads, warm-up included */
        double ns[LAT_WINDOWS];     /* per load, each window */
        unsigned windows;
        uint64_t timed_loads;       /* the windows' loads, */
        uint64_t wall_ns, cpu_ns;   /* their wall and CPU time */
        bool stopped;
};

/* Chases in chunks until end_ns (at least one chunk) or max loads; returns
 * the loads done. */
static uint64_t lat_chase_until(struct lat_meas *m, uint64_t end_ns,
                                uint64_t max)
{
        uint64_t done = 0;

        do {
                m->p = memory_latency_chase(m->p, LAT_CHUNK);
                done += LAT_CHUNK;
                m->h->progress(m->h, LAT_CHUNK);
                if (m->h->stopping(m->h)) {
                        m->stopped = true;
                        break;
                }
        } while (done < max && now_ns() < end_ns);
        m->loads += done;
        return done;
}

/* The end of measuring: duration after start, or the deadline's margin. */
static uint64_t lat_end(const struct memory_latency_spec *s,
                        const struct bw_host *h, uint64_t start)
{
        uint64_t end = start + (uint64_t)(s->duration * 1e9);
        uint64_t dl = s->deadline > 0 ? (uint64_t)(s->deadline * 1e9) : UINT64_MAX;

        dl = dl > start + LAT_MARGIN_NS ? dl - LAT_MARGIN_NS : start;
        if (dl < end) {
                h->log(h, LOG_WARNING, "duration %.2fs cut to %.2fs by the "
                       "run's deadline", s->duration, (double)(dl - start) / 1e9);
                end = dl;
        }
        return end;
}

/* A warm-up of one lap of the cycle (or a tenth of the time), then ten
 * windows of equal length. */
static void lat_measure(struct lat_meas *m, const struct memory_latency_spec *s,
                        size_t n)
{
        uint64_t start = now_ns(), end = lat_end(s, m->h, start);
        uint64_t span = end > start ? end - start : 0;

        lat_chase_until(m, start + span / 10, n);
        start = now_ns();
        span = end > start ? end - start : 0;
        for (unsigned k = 0; k < LAT_WINDOWS && !m->stopped; k++) {
                uint64_t t0 = thread_cpu_ns(), w0 = now_ns();
                uint64_t loads = lat_chase_until(m, start + span * (k + 1) / LAT_WINDOWS,
                                                 UINT64_MAX);
                uint64_t cpu = thread_cpu_ns() - t0;
                m->ns[m->windows++] = (double)cpu / (double)loads;
                m->timed_loads += loads;
                m->cpu_ns += cpu;
                m->wall_ns += now_ns() - w0;
        }
}

static int cmp_double(const void *a, const void *b)
{
        double x = *(const double *)a, y = *(const double *)b;

        return (x > y) - (x < y);
}

static double lat_median(struct lat_meas *m)
{
        qsort(m->ns, m->windows, sizeof(m->ns[0]), cmp_double);
        if (m->windows % 2)
                return m->ns[m->windows / 2];
        return (m->ns[m->windows / 2 - 1] + m->ns[m->windows / 2]) / 2;
}

/* The windows' loads per second of wall time and of the chasing thread's
 * CPU time: the pair every CPU-bound figure has (the wall-clock one is
 * exported but not judged, baseline.h; the latency above is already CPU
 * time). */
static void lat_emit_rates(const struct bw_host *h, const struct lat_meas *m)
{
        double n = (double)m->timed_loads;

        h->gauge(h, "loads_per_second", "Dependent loads per second of wall "
                 "time over the ten windows", NULL,
                 m->wall_ns ? n / ((double)m->wall_ns / 1e9) : 0);
        h->gauge(h, "loads_per_cpu_second", "Dependent loads per second of "
                 "the chasing thread's own CPU time over the ten windows",
                 NULL, m->cpu_ns ? n / ((double)m->cpu_ns / 1e9) : 0);
}

static void lat_emit(const struct bw_host *h, const struct lat_buf *b,
                     double seconds_per_load, uint64_t loads, double huge,
                     double total)
{
        h->gauge(h, "load_latency_seconds", "Time of one load that depends on "
                 "the one before, through a random cycle of stride-byte "
                 "elements over the buffer (median of ten windows)", NULL,
                 seconds_per_load);
        h->counter(h, "loads_total", "Dependent loads in the run, warm-up "
                   "included", NULL, (double)loads);
        h->gauge(h, "working_set_bytes", "Size of the buffer chased through",
                 NULL, (double)b->bytes);
        if (huge >= 0)
                h->gauge(h, "huge_page_ratio", "Share of the buffer the kernel "
                         "backed with transparent huge pages (fewer TLB "
                         "misses, so a lower latency)", NULL, huge);
        h->gauge(h, "total_time_seconds", "Wall time of the run, set-up of "
                 "the buffer included", NULL, total);
}

static void lat_log(const struct bw_host *h, const struct lat_buf *b,
                    uint64_t stride, double huge, double seconds_per_load)
{
        char size[32], lat[32];

        h->log(h, LOG_INFO, "latency: %s buffer of %llu-byte elements, %.0f%% "
               "in huge pages, %s per load",
               format_size((int64_t)b->bytes, size, sizeof(size)),
               (unsigned long long)stride, huge < 0 ? 0 : 100 * huge,
               format_quantity(seconds_per_load, true, lat, sizeof(lat)));
}

/* The figure is CPU time; where others had the chasing thread's CPU for
 * part of its windows, a wall-clock chase (lmbench's lat_mem_rd, or
 * bench/compare/memlat_chase.c) times more per load on this host: measured
 * at load 5 on 2 vCPUs, 372-438 ns here against 426-794 ns.  Say so. */
static void lat_note_shared(const struct bw_host *h, const struct lat_meas *m,
                            double seconds_per_load)
{
        char lat[32];

        if (!m->cpu_ns || m->wall_ns <= m->cpu_ns + m->cpu_ns / 20)
                return;
        double wall = seconds_per_load * (double)m->wall_ns / (double)m->cpu_ns;
        h->log(h, LOG_NOTICE, "latency: the chasing thread had the CPU %.0f%% of "
               "the time, so a wall-clock chase (lmbench's lat_mem_rd) would "
               "time about %s per load on this host now",
               100.0 * (double)m->cpu_ns / (double)m->wall_ns,
               format_quantity(wall, true, lat, sizeof(lat)));
}

static int lat_chase_run(const struct memory_latency_spec *s,
                         const struct bw_host *h, struct lat_buf *b,
                         uint64_t t0)
{
        size_t n = (size_t)(s->size / s->stride);
        struct lat_meas m = { .p = b->p, .h = h };
        double huge, sec;
        int r = memory_latency_chain(b->p, n, (size_t)s->stride, t0, h);

        if (r == -ECANCELED)
                return h->fail(h, r, "stopped before the end of the run");
        if (r < 0)
                return h->fail(h, r, "latency mode: cannot link %zu elements "
                               "of %llu bytes", n, (unsigned long long)s->stride);
        if (s->deadline > 0 && now_mono() > s->deadline - LAT_MARGIN_NS / 1e9)
                return h->fail(h, -ETIME, "latency mode: setting up the buffer "
                               "took until the run's deadline");
        huge = lat_huge_ratio(b);
        lat_measure(&m, s, n);
        if (m.stopped)
                return h->fail(h, -ECANCELED, "stopped before the end of the run");
        sec = lat_median(&m) / 1e9;
        lat_log(h, b, s->stride, huge, sec);
        lat_note_shared(h, &m, sec);
        lat_emit(h, b, sec, m.loads, huge, (double)(now_ns() - t0) / 1e9);
        lat_emit_rates(h, &m);
        return 0;
}

int memory_latency_run(const struct memory_latency_spec *s,
                       const struct bw_host *h)
{
        uint64_t t0 = now_ns();
        struct lat_buf b = { 0 };
        int r = lat_map(&b, (size_t)(s->size / s->stride * s->stride));
        char size[32];

        if (r < 0)
                return h->fail(h, r, "latency mode: cannot map a buffer of %s: %s",
                               format_size((int64_t)s->size, size, sizeof(size)),
                               strerror(-r));
        r = lat_chase_run(s, h, &b, t0);
        memory_release(b.base, b.len, r < 0 ? 0 : s->release, s->deadline, h);
        return r;
}
