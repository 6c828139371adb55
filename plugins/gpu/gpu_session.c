/* gpu_session.c — see gpu_session.h. */
#include "gpu_session.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpu_kernels_ptx.h"
#include "util/strutil.h"

static const char *const kernel_names[GPU_K_COUNT] = {
        [GPU_K_STREAM_INIT] = "stream_init", [GPU_K_STREAM_COPY] = "stream_copy",
        [GPU_K_STREAM_TRIAD] = "stream_triad", [GPU_K_GEMM_FILL] = "gemm_fill",
        [GPU_K_GEMM_BF16] = "gemm_bf16",
};

int gpu_session_cuda_fail(struct gpu_session *s, CUresult r, const char *what)
{
        char buf[32];
        return s->h->fail(s->h, r == 2 ? -ENOMEM : -EIO, "GPU %u: %s: %s", s->nv.index, what,
                          gpu_cuda_error(&s->cu, r, buf, sizeof(buf)));
}

int gpu_session_open_nvml(struct gpu_session *s, const struct bw_run *run,
                          const struct bw_host *h)
{
        char *why = NULL;
        memset(s, 0, sizeof(*s));
        s->h = h;
        s->run = run;
        int r = gpu_nvml_open(&s->nv, &why);
        s->nv_open = r >= 0;
        if (r < 0)
                r = h->fail(h, r, "%s", why ? why : "out of memory");
        free(why);
        return r;
}

int gpu_session_select(struct gpu_session *s, unsigned index)
{
        char *why = NULL;
        int r = gpu_nvml_select(&s->nv, index, &why);
        if (r < 0)
                r = s->h->fail(s->h, r, "%s", why ? why : "out of memory");
        free(why);
        return r;
}

/* The CUDA device at the PCI location NVML gave (CUDA numbers devices
 * its own way, and CUDA_VISIBLE_DEVICES may hide some). */
static int find_device(struct gpu_session *s, const struct gpu_nvml_info *info)
{
        int n = 0, dom, bus, dev;
        CUresult r = s->cu.device_get_count(&n);
        if (r != GPU_CUDA_SUCCESS)
                return gpu_session_cuda_fail(s, r, "cuDeviceGetCount");
        for (int i = 0; i < n; i++) {
                CUdevice d;
                if (s->cu.device_get(&d, i) != GPU_CUDA_SUCCESS ||
                    s->cu.device_get_attribute(&dom, GPU_CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, d) ||
                    s->cu.device_get_attribute(&bus, GPU_CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, d) ||
                    s->cu.device_get_attribute(&dev, GPU_CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, d))
                        continue;
                if ((unsigned)dom == info->domain && (unsigned)bus == info->bus &&
                    (unsigned)dev == info->device) {
                        s->dev = d;
                        return 0;
                }
        }
        return s->h->fail(s->h, -ENODEV, "GPU %u (%s) is not among the %d device(s) CUDA "
                          "sees (CUDA_VISIBLE_DEVICES?)", s->nv.index, info->bus_id, n);
}

/* The PTX compiled by the driver, its log in the failure. */
static int load_module(struct gpu_session *s)
{
        char log[2048] = "";
        CUjit_option opts[] = { GPU_CU_JIT_ERROR_LOG_BUFFER,
                                GPU_CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES };
        void *vals[] = { log, (void *)(uintptr_t)sizeof(log) };
        CUresult r = s->cu.module_load_data_ex(&s->mod, gpu_kernels_ptx, 2, opts, vals);
        if (r != GPU_CUDA_SUCCESS) {
                char buf[32];
                log[sizeof(log) - 1] = '\0';
                return s->h->fail(s->h, -EIO, "GPU %u: the driver cannot compile the "
                                  "plugin's PTX (ISA 7.0): %s%s%s", s->nv.index,
                                  gpu_cuda_error(&s->cu, r, buf, sizeof(buf)),
                                  *log ? ": " : "", log);
        }
        for (int i = 0; i < GPU_K_COUNT; i++)
                if ((r = s->cu.module_get_function(&s->k[i], s->mod, kernel_names[i])))
                        return gpu_session_cuda_fail(s, r, kernel_names[i]);
        return 0;
}

/* The pids in NVML's list now that were not before: this process's. */
static int note_self(struct gpu_session *s, const unsigned *before, unsigned n_before)
{
        unsigned pids[GPU_SESSION_MAX_PIDS], n;
        char *why = NULL;
        int r = gpu_nvml_processes(&s->nv, pids, GPU_SESSION_MAX_PIDS, &n, &why);
        if (r < 0) {
                r = s->h->fail(s->h, r, "%s", why ? why : "out of memory");
                free(why);
                return r;
        }
        unsigned fresh[GPU_SESSION_MAX_PIDS], n_fresh = 0, mine = 0;
        for (unsigned i = 0; i < n; i++) {
                bool old = false;
                for (unsigned k = 0; k < n_before && !old; k++)
                        old = before[k] == pids[i];
                if (!old)
                        fresh[n_fresh++] = pids[i];
                mine += pids[i] == (unsigned)getpid();
        }
        s->n_self = 0;
        if (mine)
                s->self[s->n_self++] = (unsigned)getpid();
        else if (n_fresh == 1)
                s->self[s->n_self++] = fresh[0]; /* our pid in the host's namespace */
        return 0;
}

int gpu_session_open_cuda(struct gpu_session *s, const struct gpu_nvml_info *info)
{
        unsigned before[GPU_SESSION_MAX_PIDS], n_before = 0;
        char *why = NULL;
        int r = gpu_nvml_processes(&s->nv, before, GPU_SESSION_MAX_PIDS, &n_before, &why);
        if (r >= 0)
                r = gpu_cuda_open(&s->cu, &why);
        s->cu_open = r >= 0;
        if (r < 0) {
                r = s->h->fail(s->h, r, "%s", why ? why : "out of memory");
                free(why);
                return r;
        }
        CUresult e = s->cu.init(0);
        if (e != GPU_CUDA_SUCCESS)
                return gpu_session_cuda_fail(s, e, "cuInit");
        if ((r = find_device(s, info)) < 0)
                return r;
        if ((e = s->cu.primary_ctx_retain(&s->ctx, s->dev)))
                return gpu_session_cuda_fail(s, e, "cuDevicePrimaryCtxRetain");
        if ((e = s->cu.ctx_set_current(s->ctx)))
                return gpu_session_cuda_fail(s, e, "cuCtxSetCurrent");
        (void)s->cu.device_get_attribute(&s->sm_count,
                                         GPU_CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, s->dev);
        int major = 0;
        if (!s->cu.device_get_attribute(&major, GPU_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                                        s->dev) && major < GPU_SESSION_MIN_CC_MAJOR)
                return s->h->fail(s->h, -ENOTSUP, "GPU %u (%s): compute capability %d.x; the "
                                  "plugin's kernels (PTX for sm_80) need %d.0 (Ampere) or "
                                  "later", s->nv.index, info->name, major,
                                  GPU_SESSION_MIN_CC_MAJOR);
        if ((r = load_module(s)) < 0)
                return r;
        if ((e = s->cu.stream_create(&s->stream, GPU_CU_STREAM_NON_BLOCKING)))
                return gpu_session_cuda_fail(s, e, "cuStreamCreate");
        return note_self(s, before, n_before);
}

void gpu_session_close(struct gpu_session *s)
{
        if (s->cu_open && s->stream)
                s->cu.stream_destroy(s->stream);
        if (s->cu_open && s->mod)
                s->cu.module_unload(s->mod);
        if (s->cu_open && s->ctx)
                s->cu.primary_ctx_release(s->dev);
        if (s->cu_open)
                gpu_cuda_close(&s->cu);
        if (s->nv_open)
                gpu_nvml_close(&s->nv);
        s->cu_open = s->nv_open = false;
}

static bool is_self(const struct gpu_session *s, unsigned pid)
{
        if (pid == (unsigned)getpid())
                return true;
        for (unsigned i = 0; i < s->n_self; i++)
                if (s->self[i] == pid)
                        return true;
        return false;
}

void gpu_session_sample(struct gpu_session *s)
{
        struct gpu_nvml_sample x;
        gpu_nvml_sample(&s->nv, &x);
        if (x.has_reasons) {
                s->n_reason_samples++;
                for (int i = 0; i < GPU_REASON_COUNT; i++)
                        s->reason_samples[i] += (x.reasons & gpu_nvml_reason_bits[i]) != 0;
        }
        if (x.has_sm_clock) {
                s->n_sm_samples++;
                s->sm_mhz_sum += x.sm_mhz;
        }
        if (x.has_temperature && (!s->has_temperature || x.celsius > s->max_celsius))
                s->max_celsius = x.celsius;
        s->has_temperature |= x.has_temperature;
}

int gpu_session_tick(struct gpu_session *s)
{
        unsigned pids[GPU_SESSION_MAX_PIDS], n = 0;
        char *why = NULL;
        if (s->h->stopping(s->h))
                return s->h->fail(s->h, -ECANCELED, "stopped before the end of the run");
        int r = gpu_nvml_processes(&s->nv, pids, GPU_SESSION_MAX_PIDS, &n, &why);
        if (r < 0) {
                r = s->h->fail(s->h, r, "%s", why ? why : "out of memory");
                free(why);
                return r;
        }
        if (r > 0)
                return s->h->fail(s->h, -EBUSY, "made way for the processes that started on "
                                  "GPU %u during the run (more than NVML lists at once); not "
                                  "counted", s->nv.index);
        for (unsigned i = 0; i < n; i++)
                if (!is_self(s, pids[i]))
                        return s->h->fail(s->h, -EBUSY, "made way for process %u, which "
                                          "started on GPU %u during the run; not counted",
                                          pids[i], s->nv.index);
        s->xids += gpu_nvml_xids(&s->nv, &s->xid_last);
        return 0;
}

int gpu_session_launch(struct gpu_session *s, enum gpu_kernel k, unsigned gx, unsigned gy,
                       unsigned bx, void **params)
{
        CUresult r = s->cu.launch_kernel(s->k[k], gx, gy, 1, bx, 1, 1, 0, s->stream, params,
                                         NULL);
        return r == GPU_CUDA_SUCCESS ? 0 : gpu_session_cuda_fail(s, r, kernel_names[k]);
}

int gpu_session_events(struct gpu_session *s, CUevent *ev, unsigned n)
{
        memset(ev, 0, n * sizeof(*ev));
        for (unsigned i = 0; i < n; i++) {
                /* blocking: the thread sleeps while it waits for the GPU */
                CUresult r = s->cu.event_create(&ev[i], GPU_CU_EVENT_BLOCKING_SYNC);
                if (r != GPU_CUDA_SUCCESS) {
                        gpu_session_events_free(s, ev, i);
                        return gpu_session_cuda_fail(s, r, "cuEventCreate");
                }
        }
        return 0;
}

void gpu_session_events_free(struct gpu_session *s, CUevent *ev, unsigned n)
{
        for (unsigned i = 0; i < n; i++)
                if (ev[i])
                        s->cu.event_destroy(ev[i]);
}

int gpu_session_elapsed(struct gpu_session *s, CUevent start, CUevent end, double *ret_s)
{
        float ms = 0;
        CUresult r = s->cu.event_synchronize(end);
        if (r != GPU_CUDA_SUCCESS)
                return gpu_session_cuda_fail(s, r, "cuEventSynchronize");
        if ((r = s->cu.event_elapsed_time(&ms, start, end)))
                return gpu_session_cuda_fail(s, r, "cuEventElapsedTime");
        *ret_s = ms / 1e3;
        return 0;
}

int gpu_session_alloc(struct gpu_session *s, size_t bytes, CUdeviceptr *ret, const char *what)
{
        CUresult r = s->cu.mem_alloc(ret, bytes);
        if (r == GPU_CUDA_SUCCESS)
                return 0;
        char buf[32];
        return s->h->fail(s->h, r == 2 ? -ENOMEM : -EIO, "GPU %u: cannot allocate %zu MiB "
                          "for %s: %s", s->nv.index, bytes >> 20, what,
                          gpu_cuda_error(&s->cu, r, buf, sizeof(buf)));
}

void gpu_session_free(struct gpu_session *s, CUdeviceptr p)
{
        if (p)
                s->cu.mem_free(p);
}
