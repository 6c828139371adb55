/* gpu_gemm.c — see gpu_gemm.h.  cuBLASLt's types and entry points are
 * declared here as cublasLt.h (CUDA 13.0) has them, and checked against it
 * by tests/plugins/gpu_abi.c where it is installed (with
 * GPU_CUBLASLT_REAL_HEADERS defined, the types are cublasLt.h's own). */
#include "gpu_gemm.h"

#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/strutil.h"
#include "util/timeutil.h"

const char *const gpu_gemm_engine_names[] = { "auto", "cublaslt", "wmma", NULL };

#define SEED_A 0x41u
#define SEED_B 0x42u
#define MAX_BATCH 256
#define MAX_SAMPLES 512
#define CHECKS 16          /* elements of C compared with the host's sums */

#ifndef GPU_CUBLASLT_REAL_HEADERS
typedef int cublasStatus_t;
typedef struct cublasLtContext *cublasLtHandle_t;
typedef struct { uint64_t data[32]; } cublasLtMatmulDescOpaque_t;
typedef cublasLtMatmulDescOpaque_t *cublasLtMatmulDesc_t;
typedef struct { uint64_t data[8]; } cublasLtMatrixLayoutOpaque_t;
typedef cublasLtMatrixLayoutOpaque_t *cublasLtMatrixLayout_t;
typedef struct { uint64_t data[8]; } cublasLtMatmulPreferenceOpaque_t;
typedef cublasLtMatmulPreferenceOpaque_t *cublasLtMatmulPreference_t;
typedef struct { uint64_t data[8]; } cublasLtMatmulAlgo_t;
typedef struct {
        cublasLtMatmulAlgo_t algo;
        size_t workspaceSize;
        cublasStatus_t state;
        float wavesCount;
        int reserved[4];
} cublasLtMatmulHeuristicResult_t;
typedef int cublasComputeType_t;
typedef int cudaDataType_t;
typedef int cublasLtMatmulDescAttributes_t;
typedef int cublasLtMatmulPreferenceAttributes_t;
typedef struct CUstream_st *cudaStream_t;
#endif

#define GPU_CUBLAS_STATUS_SUCCESS 0
#define GPU_CUBLAS_COMPUTE_32F 68
#define GPU_CUDA_R_16BF 14
#define GPU_CUDA_R_32F 0
#define GPU_CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES 1

struct lt {
        void *dl;
        cublasStatus_t (*create)(cublasLtHandle_t *h);
        cublasStatus_t (*destroy)(cublasLtHandle_t h);
        cublasStatus_t (*desc_create)(cublasLtMatmulDesc_t *d, cublasComputeType_t compute,
                                      cudaDataType_t scale);
        cublasStatus_t (*desc_destroy)(cublasLtMatmulDesc_t d);
        cublasStatus_t (*layout_create)(cublasLtMatrixLayout_t *l, cudaDataType_t type,
                                        uint64_t rows, uint64_t cols, int64_t ld);
        cublasStatus_t (*layout_destroy)(cublasLtMatrixLayout_t l);
        cublasStatus_t (*pref_create)(cublasLtMatmulPreference_t *p);
        cublasStatus_t (*pref_set)(cublasLtMatmulPreference_t p,
                                   cublasLtMatmulPreferenceAttributes_t attr, const void *buf,
                                   size_t size);
        cublasStatus_t (*pref_destroy)(cublasLtMatmulPreference_t p);
        cublasStatus_t (*heuristic)(cublasLtHandle_t h, cublasLtMatmulDesc_t d,
                                    cublasLtMatrixLayout_t a, cublasLtMatrixLayout_t b,
                                    cublasLtMatrixLayout_t c, cublasLtMatrixLayout_t dd,
                                    cublasLtMatmulPreference_t p, int requested,
                                    cublasLtMatmulHeuristicResult_t *results, int *returned);
        cublasStatus_t (*matmul)(cublasLtHandle_t h, cublasLtMatmulDesc_t d, const void *alpha,
                                 const void *a, cublasLtMatrixLayout_t adesc, const void *b,
                                 cublasLtMatrixLayout_t bdesc, const void *beta, const void *c,
                                 cublasLtMatrixLayout_t cdesc, void *dd,
                                 cublasLtMatrixLayout_t ddesc, const cublasLtMatmulAlgo_t *algo,
                                 void *workspace, size_t workspace_size, cudaStream_t stream);
        /* one GEMM's setup */
        cublasLtHandle_t h;
        cublasLtMatmulDesc_t desc;
        cublasLtMatrixLayout_t la, lb, lc;
        cublasLtMatmulAlgo_t algo;
};

struct gemm {
        struct gpu_session *s;
        const struct gpu_gemm_spec *spec;
        CUdeviceptr a, b, c, ws;
        struct lt lt;
        bool use_lt;
};

double gpu_gemm_flop(uint64_t m, uint64_t n, uint64_t k)
{
        return 2.0 * (double)m * (double)n * (double)k;
}

uint64_t gpu_gemm_bytes(uint64_t m, uint64_t n, uint64_t k)
{
        return 2 * (m * k + k * n + m * n) + GPU_GEMM_WORKSPACE;
}

uint16_t gpu_gemm_value_bits(uint64_t i, uint32_t seed)
{
        uint32_t x = (uint32_t)i * 0x9e3779b1u ^ (uint32_t)(i >> 32) ^ seed;
        x ^= x >> 16;
        x *= 0x85ebca6bu;
        x ^= x >> 13;
        x *= 0xc2b2ae35u;
        x ^= x >> 16;
        return (uint16_t)(((x >> 31) << 15) | ((126u + (x & 1u)) << 7) | ((x >> 1) & 0x7fu));
}

static double bf16_to_double(uint16_t bits)
{
        uint32_t u = (uint32_t)bits << 16;
        float f;
        memcpy(&f, &u, sizeof(f));
        return f;
}

double gpu_gemm_value(uint64_t i, uint32_t seed)
{
        return bf16_to_double(gpu_gemm_value_bits(i, seed));
}

const char *gpu_gemm_wmma_shape_error(uint64_t m, uint64_t n, uint64_t k)
{
        if (m % 128 || n % 128 || k % 32)
                return "the plugin's own GEMM kernel takes m and n multiples of 128 "
                       "and k a multiple of 32";
        if (m / 128 > 65535)
                return "the plugin's own GEMM kernel takes m up to 8388480";
        return NULL;
}

/* ---- cuBLASLt ----------------------------------------------------------- */

#define SYM(field, name) { (void **)&lt->field, name }

/* The first cuBLASLt that opens, has every entry point and makes a
 * handle; false (no cuBLASLt) otherwise. */
static bool lt_open(struct lt *lt)
{
        static const char *const sonames[] = { "libcublasLt.so.13", "libcublasLt.so.12",
                                               "libcublasLt.so.11" };
        const struct { void **p; const char *name; } syms[] = {
                SYM(create, "cublasLtCreate"), SYM(destroy, "cublasLtDestroy"),
                SYM(desc_create, "cublasLtMatmulDescCreate"),
                SYM(desc_destroy, "cublasLtMatmulDescDestroy"),
                SYM(layout_create, "cublasLtMatrixLayoutCreate"),
                SYM(layout_destroy, "cublasLtMatrixLayoutDestroy"),
                SYM(pref_create, "cublasLtMatmulPreferenceCreate"),
                SYM(pref_set, "cublasLtMatmulPreferenceSetAttribute"),
                SYM(pref_destroy, "cublasLtMatmulPreferenceDestroy"),
                SYM(heuristic, "cublasLtMatmulAlgoGetHeuristic"),
                SYM(matmul, "cublasLtMatmul"),
        };
        bool libdir = getenv("BENCHWATCH_GPU_LIBDIR") && *getenv("BENCHWATCH_GPU_LIBDIR");
        for (size_t i = 0; i < 2 * sizeof(sonames) / sizeof(sonames[0]); i++) {
                const char *so = sonames[i / 2];
                /* the system's search, then CUDA's usual place */
                char *path = i % 2 ? (libdir ? NULL : str_printf("/usr/local/cuda/lib64/%s", so))
                                   : gpu_cuda_lib_path(so);
                lt->dl = path ? dlopen(path, RTLD_NOW | RTLD_LOCAL) : NULL;
                free(path);
                bool ok = lt->dl;
                for (size_t k = 0; ok && k < sizeof(syms) / sizeof(syms[0]); k++)
                        ok = (*syms[k].p = dlsym(lt->dl, syms[k].name)) != NULL;
                if (ok && lt->create(&lt->h) == GPU_CUBLAS_STATUS_SUCCESS)
                        return true;
                /* an older or newer cuBLASLt than the driver takes: the next */
                if (lt->dl)
                        dlclose(lt->dl);
                lt->dl = NULL;
        }
        return false;
}

#undef SYM

static void lt_close(struct lt *lt)
{
        if (lt->la)
                lt->layout_destroy(lt->la);
        if (lt->lb)
                lt->layout_destroy(lt->lb);
        if (lt->lc)
                lt->layout_destroy(lt->lc);
        if (lt->desc)
                lt->desc_destroy(lt->desc);
        if (lt->h)
                lt->destroy(lt->h);
        /* like libcuda, not dlclose()d: its threads may outlive the handle */
}

/* torch.matmul's call for row-major A (m x k) B (k x n): the column-major
 * D (n x m) = B' (n x k) A' (k x m), no transposes. */
static int lt_plan(struct gemm *g)
{
        const struct gpu_gemm_spec *sp = g->spec;
        struct lt *lt = &g->lt;
        cublasLtMatmulPreference_t pref = NULL;
        cublasLtMatmulHeuristicResult_t res;
        uint64_t ws = GPU_GEMM_WORKSPACE;
        int found = 0;
        cublasStatus_t e;
        memset(&res, 0, sizeof(res));
        if ((e = lt->desc_create(&lt->desc, GPU_CUBLAS_COMPUTE_32F, GPU_CUDA_R_32F)) ||
            (e = lt->layout_create(&lt->la, GPU_CUDA_R_16BF, sp->n, sp->k, (int64_t)sp->n)) ||
            (e = lt->layout_create(&lt->lb, GPU_CUDA_R_16BF, sp->k, sp->m, (int64_t)sp->k)) ||
            (e = lt->layout_create(&lt->lc, GPU_CUDA_R_16BF, sp->n, sp->m, (int64_t)sp->n)) ||
            (e = lt->pref_create(&pref)) ||
            (e = lt->pref_set(pref, GPU_CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws,
                              sizeof(ws))) ||
            (e = lt->heuristic(lt->h, lt->desc, lt->la, lt->lb, lt->lc, lt->lc, pref, 1, &res,
                               &found)))
                found = 0;
        if (pref)
                lt->pref_destroy(pref);
        if (!found || res.state != GPU_CUBLAS_STATUS_SUCCESS)
                return g->s->h->fail(g->s->h, -ENOTSUP, "GPU %u: cuBLASLt has no bf16 GEMM "
                                     "of %llu x %llu x %llu (status %d)", g->s->nv.index,
                                     (unsigned long long)sp->m, (unsigned long long)sp->n,
                                     (unsigned long long)sp->k, e ? e : res.state);
        lt->algo = res.algo;
        return 0;
}

/* ---- one GEMM ------------------------------------------------------------ */

static int launch_one(struct gemm *g)
{
        const struct gpu_gemm_spec *sp = g->spec;
        if (g->use_lt) {
                float one = 1, zero = 0;
                struct lt *lt = &g->lt;
                cublasStatus_t e = lt->matmul(
                        lt->h, lt->desc, &one, (void *)(uintptr_t)g->b, lt->la,
                        (void *)(uintptr_t)g->a, lt->lb, &zero, (void *)(uintptr_t)g->c, lt->lc,
                        (void *)(uintptr_t)g->c, lt->lc, &lt->algo, (void *)(uintptr_t)g->ws,
                        GPU_GEMM_WORKSPACE, g->s->stream);
                return e ? g->s->h->fail(g->s->h, -EIO, "GPU %u: cublasLtMatmul: status %d",
                                         g->s->nv.index, e)
                         : 0;
        }
        int m = (int)sp->m, n = (int)sp->n, k = (int)sp->k;
        void *p[] = { &g->a, &g->b, &g->c, &m, &n, &k };
        return gpu_session_launch(g->s, GPU_K_GEMM_BF16, (unsigned)(sp->n / 128),
                                  (unsigned)(sp->m / 128), 256, p);
}

static int fill(struct gemm *g, CUdeviceptr p, unsigned long long elements, unsigned seed)
{
        void *args[] = { &p, &elements, &seed };
        unsigned blocks = (unsigned)fmin(ceil((double)elements / 1024), 65535);
        return gpu_session_launch(g->s, GPU_K_GEMM_FILL, blocks, 1, 1024, args);
}

/* CHECKS elements of C against the host's sums of the same products. */
static int verify(struct gemm *g)
{
        const struct gpu_gemm_spec *sp = g->spec;
        for (unsigned t = 0; t < CHECKS; t++) {
                uint64_t i = (sp->m - 1) * t / (CHECKS - 1), j = (sp->n - 1) * (t * 7 % CHECKS)
                                                                  / (CHECKS - 1);
                double want = 0, mag = 0;
                for (uint64_t kk = 0; kk < sp->k; kk++) {
                        double ab = gpu_gemm_value(i * sp->k + kk, SEED_A) *
                                    gpu_gemm_value(kk * sp->n + j, SEED_B);
                        want += ab;
                        mag += fabs(ab);
                }
                uint16_t bits;
                CUresult e = g->s->cu.memcpy_dtoh(&bits, g->c + 2 * (i * sp->n + j), 2);
                if (e)
                        return gpu_session_cuda_fail(g->s, e, "cuMemcpyDtoH");
                double got = bf16_to_double(bits);
                /* bf16's rounding of the result, fp32's of the sums */
                if (!(fabs(got - want) <= fabs(want) / 128 + 2e-4 * mag))
                        return g->s->h->fail(g->s->h, -EIO, "GPU %u: the %s GEMM is wrong: "
                                             "C[%llu][%llu] = %g, not %g", g->s->nv.index,
                                             gpu_gemm_engine_names[g->use_lt ? 1 : 2],
                                             (unsigned long long)i, (unsigned long long)j,
                                             got, want);
        }
        return 0;
}

static int cmp_double(const void *a, const void *b)
{
        double x = *(const double *)a, y = *(const double *)b;
        return (x > y) - (x < y);
}

/* Batches of GEMMs until `end`; the median time of one. */
static int measure(struct gemm *g, double end, struct gpu_gemm_result *ret)
{
        CUevent ev[2];
        double t = 0, samples[MAX_SAMPLES];
        unsigned n = 0, batch = 1;
        int r = gpu_session_events(g->s, ev, 2);
        CUresult e = 0;
        /* one GEMM untimed first: the library's first call loads its
         * kernels (lazily, since CUDA 12.2) while the GPU idles, which
         * events on the stream would count as the GEMM's time */
        if (r >= 0)
                r = launch_one(g);
        if (r >= 0 && (e = g->s->cu.stream_synchronize(g->s->stream)))
                r = gpu_session_cuda_fail(g->s, e, "cuStreamSynchronize");
        /* the warm-up GEMM says how many fit a batch */
        for (bool warm = true; r >= 0 && (warm || (n < 3 || now_mono() < end)) &&
                               n < MAX_SAMPLES;
             warm = false) {
                e = g->s->cu.event_record(ev[0], g->s->stream);
                for (unsigned i = 0; i < batch && !e && r >= 0; i++)
                        r = launch_one(g);
                if (r >= 0 && !e)
                        e = g->s->cu.event_record(ev[1], g->s->stream);
                if (e) {
                        r = gpu_session_cuda_fail(g->s, e, "cuEventRecord");
                        break;
                }
                if (r >= 0 && !warm)
                        gpu_session_sample(g->s); /* while the batch runs */
                if (r >= 0)
                        r = gpu_session_elapsed(g->s, ev[0], ev[1], &t);
                if (r >= 0 && !warm) {
                        samples[n++] = t / batch;
                        ret->gemms += batch;
                }
                if (r >= 0 && warm && t > GPU_SESSION_UNIT_MAX)
                        r = g->s->h->fail(g->s->h, -E2BIG, "GPU %u: one %llux%llux%llu GEMM takes "
                                          "%.2f s here, more than the %.2f s one unit of "
                                          "work may (the run makes way for another process "
                                          "between two): choose a smaller gemm_m, gemm_n or "
                                          "gemm_k", g->s->nv.index,
                                          (unsigned long long)g->spec->m,
                                          (unsigned long long)g->spec->n,
                                          (unsigned long long)g->spec->k, t,
                                          GPU_SESSION_UNIT_MAX);
                if (r >= 0 && warm)
                        batch = t > 0 ? (unsigned)fmin(fmax(GPU_SESSION_BATCH / t, 1), MAX_BATCH)
                                      : MAX_BATCH;
                if (r >= 0)
                        r = gpu_session_tick(g->s);
        }
        gpu_session_events_free(g->s, ev, 2);
        if (r < 0)
                return r;
        qsort(samples, n, sizeof(samples[0]), cmp_double);
        ret->median_s = n % 2 ? samples[n / 2] : (samples[n / 2 - 1] + samples[n / 2]) / 2;
        return 0;
}

static int prepare(struct gemm *g, struct gpu_gemm_result *ret)
{
        const struct gpu_gemm_spec *sp = g->spec;
        const char *shape = gpu_gemm_wmma_shape_error(sp->m, sp->n, sp->k);
        g->use_lt = sp->engine != GPU_GEMM_WMMA && lt_open(&g->lt);
        if (sp->engine == GPU_GEMM_CUBLASLT && !g->use_lt)
                return g->s->h->fail(g->s->h, -ENOENT, "engine=cublaslt: no usable "
                                     "libcublasLt.so (13, 12 or 11) on this host");
        if (!g->use_lt && shape)
                return g->s->h->fail(g->s->h, -EINVAL, "%s%s", sp->engine == GPU_GEMM_AUTO ?
                                     "no cuBLASLt on this host, and " : "", shape);
        ret->engine = g->use_lt ? GPU_GEMM_CUBLASLT : GPU_GEMM_WMMA;
        int r = gpu_session_alloc(g->s, 2 * sp->m * sp->k, &g->a, "matrix A");
        if (r >= 0)
                r = gpu_session_alloc(g->s, 2 * sp->k * sp->n, &g->b, "matrix B");
        if (r >= 0)
                r = gpu_session_alloc(g->s, 2 * sp->m * sp->n, &g->c, "matrix C");
        if (r >= 0 && g->use_lt)
                r = gpu_session_alloc(g->s, GPU_GEMM_WORKSPACE, &g->ws, "cuBLASLt's workspace");
        if (r >= 0)
                r = fill(g, g->a, sp->m * sp->k, SEED_A);
        if (r >= 0)
                r = fill(g, g->b, sp->k * sp->n, SEED_B);
        if (r >= 0 && g->use_lt)
                r = lt_plan(g);
        return r;
}

int gpu_gemm_run(struct gpu_session *s, const struct gpu_gemm_spec *spec,
                 struct gpu_gemm_result *ret)
{
        struct gemm g = { .s = s, .spec = spec };
        double end = now_mono() + spec->seconds;
        memset(ret, 0, sizeof(*ret));
        int r = prepare(&g, ret);
        if (r >= 0)
                r = measure(&g, end, ret);
        if (r >= 0)
                r = verify(&g);
        if (g.use_lt)
                lt_close(&g.lt);
        gpu_session_free(s, g.a);
        gpu_session_free(s, g.b);
        gpu_session_free(s, g.c);
        gpu_session_free(s, g.ws);
        if (r >= 0 && ret->median_s <= 0)
                r = s->h->fail(s->h, -EIO, "GPU %u: the GEMMs took no time", s->nv.index);
        if (r >= 0)
                ret->flop_per_second = gpu_gemm_flop(spec->m, spec->n, spec->k) / ret->median_s;
        return r;
}
