/* gpu_stream.c — see gpu_stream.h. */
#include "gpu_stream.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "util/timeutil.h"

#define START_A 0.1
#define START_B 0.2
#define START_C 0.0
#define SCALAR 0.4
#define TBSIZE 1024
#define UNROLL 4
#define MAX_BATCH 64   /* kernels of one kind between two ticks */

struct arrays {
        CUdeviceptr a, b, c;
        unsigned long long n;
        unsigned blocks;
};

double gpu_stream_bytes(unsigned arrays, size_t array_bytes)
{
        return (double)arrays * (double)array_bytes;
}

static int launch(struct gpu_session *s, struct arrays *x, enum gpu_kernel k)
{
        double scalar = SCALAR, ia = START_A, ib = START_B, ic = START_C;
        void *copy[] = { &x->a, &x->c, &x->n };
        void *triad[] = { &x->a, &x->b, &x->c, &scalar, &x->n };
        void *init[] = { &x->a, &x->b, &x->c, &ia, &ib, &ic, &x->n };
        void **p = k == GPU_K_STREAM_COPY ? copy : k == GPU_K_STREAM_TRIAD ? triad : init;
        return gpu_session_launch(s, k, x->blocks, 1, TBSIZE, p);
}

/* n kernels of kind k, each between two of the events ev[0..n]; the best
 * time of one into *best; the GPU looked at while they run, unless this
 * is the warm-up (one kernel: over before the look). */
static int timed_batch(struct gpu_session *s, struct arrays *x, enum gpu_kernel k,
                       CUevent *ev, unsigned n, double *best, bool warm)
{
        int r = 0;
        CUresult e = s->cu.event_record(ev[0], s->stream);
        for (unsigned i = 0; i < n && !e && r >= 0; i++) {
                r = launch(s, x, k);
                if (r >= 0)
                        e = s->cu.event_record(ev[i + 1], s->stream);
        }
        if (e)
                return gpu_session_cuda_fail(s, e, "cuEventRecord");
        if (r >= 0 && !warm)
                gpu_session_sample(s);
        for (unsigned i = 0; i < n && r >= 0; i++) {
                double t;
                r = gpu_session_elapsed(s, ev[i], ev[i + 1], &t);
                if (r >= 0 && t > 0 && (*best == 0 || t < *best))
                        *best = t;
        }
        return r;
}

/* What the arrays must hold after `rounds` rounds of copies then triads
 * (each kernel of a round leaves the same values as the first). */
static int verify(struct gpu_session *s, const struct arrays *x, unsigned rounds)
{
        double a = START_A, c = START_C, got_a, got_c;
        for (unsigned i = 0; i < rounds; i++) {
                c = a;
                a = START_B + SCALAR * c;
        }
        unsigned long long at[] = { 0, x->n / 2, x->n - 1 };
        for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
                CUresult e = s->cu.memcpy_dtoh(&got_a, x->a + at[i] * 8, 8);
                if (!e)
                        e = s->cu.memcpy_dtoh(&got_c, x->c + at[i] * 8, 8);
                if (e)
                        return gpu_session_cuda_fail(s, e, "cuMemcpyDtoH");
                if (fabs(got_a - a) > 1e-12 || fabs(got_c - c) > 1e-12)
                        return s->h->fail(s->h, -EIO, "GPU %u: the bandwidth kernels left "
                                          "a[%llu] = %g, c[%llu] = %g instead of %g and %g",
                                          s->nv.index, at[i], got_a, at[i], got_c, a, c);
        }
        return 0;
}

/* Rounds of copies then triads until `end` (monotonic seconds). */
static int measure(struct gpu_session *s, struct arrays *x, double end,
                   struct gpu_stream_result *ret, unsigned *ret_rounds)
{
        CUevent ev[MAX_BATCH + 1];
        double warm = 0, best_copy = 0, best_triad = 0;
        unsigned rounds = 0, batch = 1;
        int r = gpu_session_events(s, ev, MAX_BATCH + 1);
        if (r < 0)
                return r;
        /* a warm-up round, which also says how many kernels fit a batch */
        r = timed_batch(s, x, GPU_K_STREAM_COPY, ev, 1, &warm, true);
        if (r >= 0 && (r = timed_batch(s, x, GPU_K_STREAM_TRIAD, ev, 1, &warm, true)) >= 0) {
                rounds++;
                batch = warm > 0 ? (unsigned)fmin(fmax(GPU_SESSION_BATCH / 2 / warm, 1),
                                                  MAX_BATCH) : MAX_BATCH;
        }
        while (r >= 0 && (rounds < 2 || now_mono() < end)) {
                r = timed_batch(s, x, GPU_K_STREAM_COPY, ev, batch, &best_copy, false);
                if (r >= 0)
                        r = timed_batch(s, x, GPU_K_STREAM_TRIAD, ev, batch, &best_triad,
                                        false);
                if (r >= 0) {
                        rounds++;
                        ret->kernels += batch;
                        r = gpu_session_tick(s);
                }
        }
        gpu_session_events_free(s, ev, MAX_BATCH + 1);
        ret->copy_best_s = best_copy;
        ret->triad_best_s = best_triad;
        *ret_rounds = rounds;
        return r;
}

int gpu_stream_run(struct gpu_session *s, size_t array_bytes, double seconds,
                   struct gpu_stream_result *ret)
{
        struct arrays x = { .n = array_bytes / 8 };
        unsigned rounds = 0;
        double end = now_mono() + seconds;
        memset(ret, 0, sizeof(*ret));
        ret->array_bytes = (size_t)x.n * 8;
        x.blocks = (unsigned)((x.n / UNROLL + TBSIZE - 1) / TBSIZE);
        int r = gpu_session_alloc(s, ret->array_bytes, &x.a, "array a");
        if (r >= 0)
                r = gpu_session_alloc(s, ret->array_bytes, &x.b, "array b");
        if (r >= 0)
                r = gpu_session_alloc(s, ret->array_bytes, &x.c, "array c");
        if (r >= 0)
                r = launch(s, &x, GPU_K_STREAM_INIT);
        if (r >= 0)
                r = measure(s, &x, end, ret, &rounds);
        if (r >= 0)
                r = verify(s, &x, rounds);
        gpu_session_free(s, x.a);
        gpu_session_free(s, x.b);
        gpu_session_free(s, x.c);
        if (r < 0)
                return r;
        if (ret->copy_best_s <= 0 || ret->triad_best_s <= 0)
                return s->h->fail(s->h, -EIO, "GPU %u: the bandwidth kernels took no time",
                                  s->nv.index);
        ret->copy_bytes_per_second = gpu_stream_bytes(2, ret->array_bytes) / ret->copy_best_s;
        ret->triad_bytes_per_second = gpu_stream_bytes(3, ret->array_bytes) / ret->triad_best_s;
        return 0;
}
