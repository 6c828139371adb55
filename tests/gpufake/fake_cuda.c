/* fake_cuda.c — a recording fake of the CUDA driver API the gpu plugin
 * uses (libcuda.so.1), exporting the same entry points as the driver
 * under the same (versioned) names, so a lookup of a wrong name fails
 * here as on a real host.  See fakegpu.h. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fakegpu.h"

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;

#define OK 0
#define E_INVALID_VALUE 1
#define E_OUT_OF_MEMORY 2
#define E_NOT_INITIALIZED 3
#define E_INVALID_PTX 218
#define E_NOT_FOUND 500
#define EXPORT __attribute__((visibility("default")))

struct CUfunc_st {
        const char *name;
};
struct CUevent_st {
        double t;
        bool recorded;
};
struct CUstream_st {
        int unused;
};
struct CUctx_st {
        int device;
};

static struct CUfunc_st kernels[] = {
        { "stream_init" }, { "stream_copy" }, { "stream_triad" }, { "gemm_fill" },
        { "gemm_bf16" },
};
static struct CUctx_st contexts[16];
static struct CUstream_st the_stream;
static bool initialised;

#define CALL(name) \
        do { \
                if (fakegpu_call(name)) \
                        return E_OUT_OF_MEMORY; \
        } while (0)

EXPORT CUresult cuInit(unsigned int flags)
{
        CALL("cuInit");
        fakegpu_setup();
        initialised = flags == 0;
        return initialised ? OK : E_INVALID_VALUE;
}

EXPORT CUresult cuDriverGetVersion(int *v)
{
        CALL("cuDriverGetVersion");
        *v = 13000;
        return OK;
}

EXPORT CUresult cuDeviceGetCount(int *n)
{
        CALL("cuDeviceGetCount");
        *n = (int)fakegpu.count;
        return initialised ? OK : E_NOT_INITIALIZED;
}

/* CUDA numbers the GPUs backwards (fastest first, say): the plugin must
 * find them by PCI location, not by index. */
EXPORT CUresult cuDeviceGet(CUdevice *d, int ordinal)
{
        CALL("cuDeviceGet");
        if (ordinal < 0 || (unsigned)ordinal >= fakegpu.count)
                return E_INVALID_VALUE;
        *d = (int)fakegpu.count - 1 - ordinal;
        return OK;
}

EXPORT CUresult cuDeviceGetAttribute(int *pi, int attr, CUdevice dev)
{
        CALL("cuDeviceGetAttribute");
        switch (attr) {
        case 16: *pi = 132; return OK;              /* SMs */
        case 33: *pi = 0x17 + dev; return OK;       /* PCI bus */
        case 34: *pi = 0; return OK;                /* PCI device */
        case 38: *pi = (int)fakegpu.l2_bytes; return OK;
        case 50: *pi = 0; return OK;                /* PCI domain */
        case 75: *pi = fakegpu.cc_major; return OK; /* compute capability */
        }
        return E_INVALID_VALUE;
}

EXPORT CUresult cuDevicePrimaryCtxRetain(CUcontext *c, CUdevice dev)
{
        CALL("cuDevicePrimaryCtxRetain");
        if (dev < 0 || dev >= 16)
                return E_INVALID_VALUE;
        contexts[dev].device = dev;
        *c = &contexts[dev];
        fakegpu.context = true;
        fakegpu.ctx_device = dev;
        return OK;
}

EXPORT CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev)
{
        CALL("cuDevicePrimaryCtxRelease_v2");
        fakegpu.context = false;
        return OK;
}

EXPORT CUresult cuCtxSetCurrent(CUcontext c)
{
        CALL("cuCtxSetCurrent");
        return c ? OK : E_INVALID_VALUE;
}

EXPORT CUresult cuMemGetInfo_v2(size_t *free_b, size_t *total)
{
        CALL("cuMemGetInfo_v2");
        *total = fakegpu.mem_total;
        *free_b = fakegpu.mem_total - fakegpu.allocated;
        return OK;
}

/* The size before each block, so that a free knows it. */
EXPORT CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t bytes)
{
        CALL("cuMemAlloc_v2");
        if (fakegpu.allocated + bytes > fakegpu.mem_total)
                return E_OUT_OF_MEMORY;
        uint64_t *b = malloc(bytes + 16);
        if (!b)
                return E_OUT_OF_MEMORY;
        b[0] = bytes;
        fakegpu.allocated += bytes;
        if (fakegpu.allocated > fakegpu.peak)
                fakegpu.peak = fakegpu.allocated;
        *p = (CUdeviceptr)(uintptr_t)(b + 2);
        return OK;
}

EXPORT CUresult cuMemFree_v2(CUdeviceptr p)
{
        CALL("cuMemFree_v2");
        uint64_t *b = (uint64_t *)(uintptr_t)p - 2;
        fakegpu.allocated -= b[0];
        free(b);
        return OK;
}

EXPORT CUresult cuMemHostAlloc(void **p, size_t bytes, unsigned int flags)
{
        CALL("cuMemHostAlloc");
        *p = calloc(1, bytes);
        return *p ? OK : E_OUT_OF_MEMORY;
}

EXPORT CUresult cuMemFreeHost(void *p)
{
        CALL("cuMemFreeHost");
        free(p);
        return OK;
}

EXPORT CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void *src, size_t bytes, CUstream s)
{
        CALL("cuMemcpyHtoDAsync_v2");
        memcpy((void *)(uintptr_t)dst, src, bytes);
        fakegpu.stream_clock += bytes / fakegpu.h2d_bps;
        fakegpu.copies_in_flight++;
        return s == &the_stream ? OK : E_INVALID_VALUE;
}

EXPORT CUresult cuMemcpyDtoHAsync_v2(void *dst, CUdeviceptr src, size_t bytes, CUstream s)
{
        CALL("cuMemcpyDtoHAsync_v2");
        memcpy(dst, (const void *)(uintptr_t)src, bytes);
        fakegpu.stream_clock += bytes / fakegpu.d2h_bps;
        fakegpu.copies_in_flight++;
        return s == &the_stream ? OK : E_INVALID_VALUE;
}

EXPORT CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t bytes)
{
        CALL("cuMemcpyDtoH_v2");
        memcpy(dst, (const void *)(uintptr_t)src, bytes);
        return OK;
}

EXPORT CUresult cuModuleLoadDataEx(CUmodule *m, const void *image, unsigned int n, int *opts,
                                   void **vals)
{
        CALL("cuModuleLoadDataEx");
        const char *ptx = image;
        if (!strstr(ptx, "\n.version 7.0\n") || !strstr(ptx, "\n.target sm_80\n"))
                return E_INVALID_PTX;
        for (size_t i = 0; i < sizeof(kernels) / sizeof(kernels[0]); i++) {
                char entry[64];
                snprintf(entry, sizeof(entry), ".entry %s(", kernels[i].name);
                if (!strstr(ptx, entry))
                        return E_INVALID_PTX;
        }
        *m = (CUmodule)(uintptr_t)1;
        return n == 2 && opts[0] == 5 && opts[1] == 6 && vals[0] ? OK : E_INVALID_VALUE;
}

EXPORT CUresult cuModuleGetFunction(CUfunction *f, CUmodule m, const char *name)
{
        CALL("cuModuleGetFunction");
        for (size_t i = 0; i < sizeof(kernels) / sizeof(kernels[0]); i++)
                if (!strcmp(kernels[i].name, name)) {
                        *f = &kernels[i];
                        return OK;
                }
        return E_NOT_FOUND;
}

EXPORT CUresult cuModuleUnload(CUmodule m)
{
        CALL("cuModuleUnload");
        return OK;
}

EXPORT CUresult cuStreamCreate(CUstream *s, unsigned int flags)
{
        CALL("cuStreamCreate");
        *s = &the_stream;
        fakegpu.stream_clock = 0;
        return flags == 1 ? OK : E_INVALID_VALUE;
}

EXPORT CUresult cuStreamDestroy_v2(CUstream s)
{
        CALL("cuStreamDestroy_v2");
        return OK;
}

EXPORT CUresult cuStreamSynchronize(CUstream s)
{
        CALL("cuStreamSynchronize");
        fakegpu.copies_in_flight = 0;
        fakegpu.kernels_in_flight = 0;
        return OK;
}

EXPORT CUresult cuEventCreate(CUevent *e, unsigned int flags)
{
        CALL("cuEventCreate");
        *e = calloc(1, sizeof(**e));
        return *e ? OK : E_OUT_OF_MEMORY;
}

EXPORT CUresult cuEventRecord(CUevent e, CUstream s)
{
        CALL("cuEventRecord");
        e->t = fakegpu.stream_clock;
        e->recorded = true;
        return s == &the_stream ? OK : E_INVALID_VALUE;
}

/* The GPU caught up: what was queued is done, the link idles again, and
 * the GPU (gpu_nvml.c's samples of it are to be taken before this). */
EXPORT CUresult cuEventSynchronize(CUevent e)
{
        CALL("cuEventSynchronize");
        fakegpu.copies_in_flight = 0;
        fakegpu.kernels_in_flight = 0;
        return e->recorded ? OK : E_INVALID_VALUE;
}

EXPORT CUresult cuEventQuery(CUevent e)
{
        CALL("cuEventQuery");
        return OK;
}

EXPORT CUresult cuEventElapsedTime_v2(float *ms, CUevent a, CUevent b)
{
        CALL("cuEventElapsedTime_v2");
        if (!a->recorded || !b->recorded)
                return E_INVALID_VALUE;
        *ms = (float)((b->t - a->t) * 1e3);
        return OK;
}

EXPORT CUresult cuEventDestroy_v2(CUevent e)
{
        CALL("cuEventDestroy_v2");
        free(e);
        return OK;
}

EXPORT CUresult cuGetErrorName(CUresult r, const char **s)
{
        *s = r == E_OUT_OF_MEMORY ? "CUDA_ERROR_OUT_OF_MEMORY"
             : r == E_INVALID_VALUE ? "CUDA_ERROR_INVALID_VALUE"
             : r == E_INVALID_PTX ? "CUDA_ERROR_INVALID_PTX" : "CUDA_ERROR_UNKNOWN";
        return OK;
}

/* ---- the kernels, in C ---------------------------------------------------- */

static double *dptr(void *p)
{
        return (double *)(uintptr_t)*(CUdeviceptr *)p;
}

static CUresult stream_kernel(const char *name, void **p)
{
        if (!strcmp(name, "stream_init")) {
                double *a = dptr(p[0]), *b = dptr(p[1]), *c = dptr(p[2]);
                unsigned long long n = *(unsigned long long *)p[6];
                for (unsigned long long i = 0; i < n; i++) {
                        a[i] = *(double *)p[3];
                        b[i] = *(double *)p[4];
                        c[i] = *(double *)p[5];
                }
                fakegpu.stream_clock += 3.0 * n * 8 / fakegpu.copy_bps;
        } else if (!strcmp(name, "stream_copy")) {
                double *a = dptr(p[0]), *c = dptr(p[1]);
                unsigned long long n = *(unsigned long long *)p[2];
                memcpy(c, a, n * 8);
                fakegpu.stream_clock += 2.0 * n * 8 / fakegpu.copy_bps;
        } else {
                double *a = dptr(p[0]), *b = dptr(p[1]), *c = dptr(p[2]), s = *(double *)p[3];
                unsigned long long n = *(unsigned long long *)p[4];
                for (unsigned long long i = 0; i < n; i++)
                        a[i] = b[i] + s * c[i];
                fakegpu.stream_clock += 3.0 * n * 8 / fakegpu.triad_bps;
        }
        return OK;
}

/* gpu_kernels.cu's gemm_fill, written again from its description. */
static uint16_t fill_bits(unsigned long long i, unsigned seed)
{
        unsigned x = (unsigned)i * 0x9e3779b1u ^ (unsigned)(i >> 32) ^ seed;
        x ^= x >> 16;
        x *= 0x85ebca6bu;
        x ^= x >> 13;
        x *= 0xc2b2ae35u;
        x ^= x >> 16;
        return (uint16_t)(((x >> 31) << 15) | ((126u + (x & 1u)) << 7) | ((x >> 1) & 0x7fu));
}

static CUresult gemm_kernel(const char *name, unsigned gx, unsigned gy, unsigned bx, void **p)
{
        if (!strcmp(name, "gemm_fill")) {
                uint16_t *m = (uint16_t *)(uintptr_t)*(CUdeviceptr *)p[0];
                unsigned long long n = *(unsigned long long *)p[1];
                for (unsigned long long i = 0; i < n; i++)
                        m[i] = fill_bits(i, *(unsigned *)p[2]);
                fakegpu.stream_clock += 2.0 * n / fakegpu.copy_bps;
                return OK;
        }
        const uint16_t *A = (const uint16_t *)(uintptr_t)*(CUdeviceptr *)p[0];
        const uint16_t *B = (const uint16_t *)(uintptr_t)*(CUdeviceptr *)p[1];
        uint16_t *C = (uint16_t *)(uintptr_t)*(CUdeviceptr *)p[2];
        int m = *(int *)p[3], n = *(int *)p[4], k = *(int *)p[5];
        if (m % 128 || n % 128 || k % 32 || gx != (unsigned)n / 128 ||
            gy != (unsigned)m / 128 || bx != 256)
                return E_INVALID_VALUE;
        for (int i = 0; i < m; i++)
                for (int j = 0; j < n; j++) {
                        float acc = 0;
                        for (int q = 0; q < k; q++)
                                acc += fakegpu_float(A[(size_t)i * k + q]) *
                                       fakegpu_float(B[(size_t)q * n + j]);
                        C[(size_t)i * n + j] = fakegpu_bf16(acc);
                }
        fakegpu.stream_clock += 2.0 * m * n * k / fakegpu.flops;
        fakegpu.gemms++;
        return OK;
}

EXPORT CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                               unsigned by, unsigned bz, unsigned shared, CUstream s, void **p,
                               void **extra)
{
        CALL("cuLaunchKernel");
        if (s != &the_stream || gz != 1 || by != 1 || bz != 1 || extra || !p)
                return E_INVALID_VALUE;
        fakegpu.launches++;
        fakegpu.kernels_in_flight++;
        if (!strncmp(f->name, "stream_", 7))
                return bx == 1024 ? stream_kernel(f->name, p) : E_INVALID_VALUE;
        return gemm_kernel(f->name, gx, gy, bx, p);
}
