/* gpu_copy.c — see gpu_copy.h. */
#include "gpu_copy.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/format.h"
#include "util/timeutil.h"

#define MAX_SAMPLES 256
#define MAX_LOOPS 16     /* nvbandwidth's loopCount */
#define PATTERN(i) (0x5a5a000000000000ull ^ (uint64_t)(i) * 0x9e3779b97f4a7c15ull)

struct copy {
        struct gpu_session *s;
        void *host;
        CUdeviceptr dev;
        size_t bytes;
        CUevent ev[2];
        struct gpu_copy_result *ret;
};

double gpu_copy_rate(size_t bytes, unsigned loops, double seconds)
{
        return seconds > 0 ? (double)bytes * loops / seconds : 0;
}

static int cmp_double(const void *a, const void *b)
{
        double x = *(const double *)a, y = *(const double *)b;
        return (x > y) - (x < y);
}

/* The link now, while copies run; the highest generation (then width)
 * seen is kept. */
static void look_at_link(struct copy *c, double wait)
{
        struct timespec ts = { (time_t)wait, (long)((wait - (double)(time_t)wait) * 1e9) };
        unsigned gen, width;
        if (wait > 0)
                clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
        if (gpu_nvml_pcie_link(&c->s->nv, false, &gen, &width) < 0)
                return;
        if (!c->ret->has_link || gen > c->ret->link_gen ||
            (gen == c->ret->link_gen && width > c->ret->link_width)) {
                c->ret->link_gen = gen;
                c->ret->link_width = width;
        }
        c->ret->has_link = true;
}

/* One sample of `loops` copies; its duration in *ret_s. */
static int sample(struct copy *c, bool h2d, unsigned loops, double expect, double *ret_s)
{
        struct gpu_cuda *cu = &c->s->cu;
        CUresult e = cu->event_record(c->ev[0], c->s->stream);
        for (unsigned i = 0; i < loops && !e; i++)
                e = h2d ? cu->memcpy_htod_async(c->dev, c->host, c->bytes, c->s->stream)
                        : cu->memcpy_dtoh_async(c->host, c->dev, c->bytes, c->s->stream);
        if (!e)
                e = cu->event_record(c->ev[1], c->s->stream);
        if (e)
                return gpu_session_cuda_fail(c->s, e, h2d ? "cuMemcpyHtoDAsync"
                                                          : "cuMemcpyDtoHAsync");
        look_at_link(c, expect / 2);
        if (expect > 0) /* not the warm-up: halfway through the copies */
                gpu_session_sample(c->s);
        return gpu_session_elapsed(c->s, c->ev[0], c->ev[1], ret_s);
}

/* Samples of one direction until `end`; the median bandwidth. */
static int direction(struct copy *c, bool h2d, double end, double *ret_rate)
{
        double rates[MAX_SAMPLES], t = 0;
        unsigned n = 0, loops = 1;
        int r = sample(c, h2d, 1, 0, &t); /* a warm-up, and how long one takes */
        if (r >= 0 && t > GPU_SESSION_UNIT_MAX) {
                char b[32];
                r = c->s->h->fail(c->s->h, -E2BIG, "GPU %u: one %s copy of %s takes %.2f s "
                                  "here, more than the %.2f s one unit of work may (the run "
                                  "makes way for another process between two): choose a "
                                  "smaller copy_size", c->s->nv.index, h2d ? "host-to-device" :
                                  "device-to-host", format_size((int64_t)c->bytes, b, sizeof(b)),
                                  t, GPU_SESSION_UNIT_MAX);
        }
        if (r >= 0 && t > 0)
                loops = (unsigned)fmin(fmax(GPU_SESSION_BATCH / t, 1), MAX_LOOPS);
        if (r >= 0)
                r = gpu_session_tick(c->s);
        while (r >= 0 && n < MAX_SAMPLES && (n < 3 || now_mono() < end)) {
                r = sample(c, h2d, loops, t * loops, &t);
                if (r >= 0)
                        rates[n++] = gpu_copy_rate(c->bytes, loops, t);
                if (r >= 0)
                        t /= loops;
                if (r >= 0)
                        r = gpu_session_tick(c->s);
        }
        if (r < 0)
                return r;
        qsort(rates, n, sizeof(rates[0]), cmp_double);
        *ret_rate = n % 2 ? rates[n / 2] : (rates[n / 2 - 1] + rates[n / 2]) / 2;
        c->ret->samples = n;
        return 0;
}

/* The words the round trip must bring back: what the host buffer held
 * before going to the device, erased before coming back. */
static const size_t checked[] = { 0, 1, 4096, 65537 };

static void mark(struct copy *c, bool erase)
{
        uint64_t *w = c->host;
        size_t n = c->bytes / 8;
        for (size_t i = 0; i < sizeof(checked) / sizeof(checked[0]); i++) {
                size_t at = checked[i] % n;
                w[at] = erase ? 0 : PATTERN(at);
        }
}

static int verify(struct copy *c)
{
        const uint64_t *w = c->host;
        size_t n = c->bytes / 8;
        for (size_t i = 0; i < sizeof(checked) / sizeof(checked[0]); i++) {
                size_t at = checked[i] % n;
                if (w[at] != PATTERN(at))
                        return c->s->h->fail(c->s->h, -EIO, "GPU %u: the copies did not bring "
                                             "word %zu back from the device", c->s->nv.index,
                                             at);
        }
        return 0;
}

static int both(struct copy *c, double seconds)
{
        double start = now_mono();
        int r = gpu_session_events(c->s, c->ev, 2);
        if (r < 0)
                return r;
        mark(c, false);
        r = direction(c, true, start + seconds / 2, &c->ret->h2d_bytes_per_second);
        if (r >= 0)
                mark(c, true);
        if (r >= 0)
                r = direction(c, false, start + seconds, &c->ret->d2h_bytes_per_second);
        if (r >= 0)
                r = verify(c);
        gpu_session_events_free(c->s, c->ev, 2);
        return r;
}

int gpu_copy_run(struct gpu_session *s, size_t bytes, double seconds,
                 struct gpu_copy_result *ret)
{
        struct copy c = { .s = s, .bytes = bytes & ~(size_t)7, .ret = ret };
        memset(ret, 0, sizeof(*ret));
        CUresult e = s->cu.mem_host_alloc(&c.host, c.bytes, GPU_CU_MEMHOSTALLOC_PORTABLE);
        if (e)
                return gpu_session_cuda_fail(s, e, "cuMemHostAlloc (pinned host memory)");
        int r = gpu_session_alloc(s, c.bytes, &c.dev, "the copy buffer");
        if (r >= 0)
                r = both(&c, seconds);
        gpu_session_free(s, c.dev);
        s->cu.mem_free_host(c.host);
        ret->has_max_link = gpu_nvml_pcie_link(&s->nv, true, &ret->max_link_gen,
                                               &ret->max_link_width) == 0;
        return r;
}
