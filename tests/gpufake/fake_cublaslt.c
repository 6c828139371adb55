/* fake_cublaslt.c — a recording fake of the cuBLASLt entry points the gpu
 * plugin uses (libcublasLt.so.13), with cuBLAS's own meaning: matrices
 * column-major, each layout rows x columns with its leading dimension, D
 * = alpha op(A) op(B) + beta C in bf16 with fp32 accumulation.  So the
 * plugin's row-major product is right here only if it hands cuBLASLt the
 * layouts torch.matmul does.  Time moves by 2 m n k over 1.5 x
 * FAKEGPU_FLOPS (a faster engine than the plugin's own kernel, so a test
 * can tell which ran).  See fakegpu.h. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fakegpu.h"

typedef int cublasStatus_t;
struct layout {
        int type;
        uint64_t rows, cols;
        int64_t ld;
};
struct desc {
        int compute, scale, transa, transb;
};
struct pref {
        uint64_t workspace;
};
typedef struct {
        uint64_t data[8];
} cublasLtMatmulAlgo_t;
typedef struct {
        cublasLtMatmulAlgo_t algo;
        size_t workspaceSize;
        cublasStatus_t state;
        float wavesCount;
        int reserved[4];
} heuristic_t;

#define OK 0
#define E_NOT_INITIALIZED 1
#define E_ALLOC_FAILED 3
#define E_INVALID_VALUE 7
#define E_NOT_SUPPORTED 15
#define BF16 14
#define R32F 0
#define COMPUTE_32F 68
#define EXPORT __attribute__((visibility("default")))

#define CALL(name) \
        do { \
                if (fakegpu_call(name)) \
                        return E_NOT_SUPPORTED; \
        } while (0)

static int handle;

EXPORT cublasStatus_t cublasLtCreate(void **h)
{
        CALL("cublasLtCreate");
        *h = &handle;
        return OK;
}

EXPORT cublasStatus_t cublasLtDestroy(void *h)
{
        CALL("cublasLtDestroy");
        return h == &handle ? OK : E_NOT_INITIALIZED;
}

EXPORT cublasStatus_t cublasLtMatmulDescCreate(struct desc **d, int compute, int scale)
{
        CALL("cublasLtMatmulDescCreate");
        *d = calloc(1, sizeof(**d));
        if (!*d)
                return E_ALLOC_FAILED;
        (*d)->compute = compute;
        (*d)->scale = scale;
        return OK;
}

EXPORT cublasStatus_t cublasLtMatmulDescDestroy(struct desc *d)
{
        CALL("cublasLtMatmulDescDestroy");
        free(d);
        return OK;
}

EXPORT cublasStatus_t cublasLtMatrixLayoutCreate(struct layout **l, int type, uint64_t rows,
                                                 uint64_t cols, int64_t ld)
{
        CALL("cublasLtMatrixLayoutCreate");
        if (ld < (int64_t)rows)
                return E_INVALID_VALUE;
        *l = calloc(1, sizeof(**l));
        if (!*l)
                return E_ALLOC_FAILED;
        **l = (struct layout){ type, rows, cols, ld };
        return OK;
}

EXPORT cublasStatus_t cublasLtMatrixLayoutDestroy(struct layout *l)
{
        CALL("cublasLtMatrixLayoutDestroy");
        free(l);
        return OK;
}

EXPORT cublasStatus_t cublasLtMatmulPreferenceCreate(struct pref **p)
{
        CALL("cublasLtMatmulPreferenceCreate");
        *p = calloc(1, sizeof(**p));
        return *p ? OK : E_ALLOC_FAILED;
}

EXPORT cublasStatus_t cublasLtMatmulPreferenceSetAttribute(struct pref *p, int attr,
                                                           const void *buf, size_t size)
{
        CALL("cublasLtMatmulPreferenceSetAttribute");
        if (attr != 1 || size != sizeof(uint64_t))
                return E_INVALID_VALUE;
        memcpy(&p->workspace, buf, size);
        return OK;
}

EXPORT cublasStatus_t cublasLtMatmulPreferenceDestroy(struct pref *p)
{
        CALL("cublasLtMatmulPreferenceDestroy");
        free(p);
        return OK;
}

/* op(X) of a layout: its rows and columns after the transpose. */
static uint64_t op_rows(const struct layout *l, int t)
{
        return t ? l->cols : l->rows;
}

static uint64_t op_cols(const struct layout *l, int t)
{
        return t ? l->rows : l->cols;
}

static bool shapes_ok(const struct desc *d, const struct layout *a, const struct layout *b,
                      const struct layout *c, const struct layout *dd)
{
        return d->compute == COMPUTE_32F && d->scale == R32F && a->type == BF16 &&
               b->type == BF16 && c->type == BF16 && dd->type == BF16 &&
               op_cols(a, d->transa) == op_rows(b, d->transb) &&
               op_rows(a, d->transa) == dd->rows && op_cols(b, d->transb) == dd->cols &&
               c->rows == dd->rows && c->cols == dd->cols;
}

EXPORT cublasStatus_t cublasLtMatmulAlgoGetHeuristic(void *h, struct desc *d, struct layout *a,
                                                     struct layout *b, struct layout *c,
                                                     struct layout *dd, struct pref *p, int n,
                                                     heuristic_t *res, int *found)
{
        CALL("cublasLtMatmulAlgoGetHeuristic");
        if (h != &handle || n < 1 || !p)
                return E_INVALID_VALUE;
        *found = 0;
        if (!shapes_ok(d, a, b, c, dd))
                return E_NOT_SUPPORTED;
        memset(&res[0], 0, sizeof(res[0]));
        res[0].algo.data[0] = 0xa160;
        res[0].workspaceSize = p->workspace < (1u << 20) ? p->workspace : 1u << 20;
        *found = 1;
        return OK;
}

static float at(const uint16_t *m, const struct layout *l, int t, uint64_t i, uint64_t j)
{
        /* element (i, j) of op(M), column-major storage */
        return t ? fakegpu_float(m[i * (uint64_t)l->ld + j])
                 : fakegpu_float(m[j * (uint64_t)l->ld + i]);
}

EXPORT cublasStatus_t cublasLtMatmul(void *h, struct desc *d, const float *alpha,
                                     const uint16_t *A, struct layout *la, const uint16_t *B,
                                     struct layout *lb, const float *beta, const uint16_t *C,
                                     struct layout *lc, uint16_t *D, struct layout *ld,
                                     const cublasLtMatmulAlgo_t *algo, void *ws, size_t ws_size,
                                     void *stream)
{
        CALL("cublasLtMatmul");
        if (h != &handle || !algo || algo->data[0] != 0xa160 || !shapes_ok(d, la, lb, lc, ld))
                return E_INVALID_VALUE;
        uint64_t m = ld->rows, n = ld->cols, k = op_cols(la, d->transa);
        for (uint64_t j = 0; j < n; j++)
                for (uint64_t i = 0; i < m; i++) {
                        float acc = 0;
                        for (uint64_t q = 0; q < k; q++)
                                acc += at(A, la, d->transa, i, q) * at(B, lb, d->transb, q, j);
                        float c = *beta ? *beta * fakegpu_float(C[j * (uint64_t)lc->ld + i]) : 0;
                        D[j * (uint64_t)ld->ld + i] = fakegpu_bf16(*alpha * acc + c);
                }
        if (!fakegpu.lt_loaded)
                fakegpu.stream_clock += fakegpu.lt_first_s;
        fakegpu.lt_loaded = true;
        fakegpu.stream_clock += 2.0 * m * n * k / (1.5 * fakegpu.flops);
        fakegpu.gemms++;
        return OK;
}
