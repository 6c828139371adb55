/* gpu_session.h — one run on one GPU: its CUDA context and kernels, and
 * the watch that keeps the run polite.
 *
 * The measuring modules (gpu_stream.c, gpu_gemm.c, gpu_copy.c) share
 * this: they launch work in batches of about GPU_SESSION_BATCH seconds of
 * GPU time and call gpu_session_tick() between batches.  Each tick looks
 * at the GPU through NVML: another process on it (compute or graphics,
 * other than this one) ends the run at once as one that made way
 * (-EBUSY, plugin.h), so the GPU's real work waits at most a batch and a
 * look, well under a second; a stop ends it too; and the Xid errors are
 * collected.  The clock event reasons, the SM clock and the temperature
 * are sampled for the run's health figures (gpu_health.c) while a batch
 * is in flight (gpu_session_sample(), after its launches, before the wait
 * for it): after the wait the GPU idles, and shows neither the power cap
 * nor the heat of the work.
 *
 * This process's own context shows in NVML's process list too, under its
 * pid, or under the host's pid for it inside a PID namespace: the pids
 * that appear while the context is made (exactly one, when not getpid())
 * are taken as this run's own. */
#ifndef BENCHWATCH_GPU_SESSION_H
#define BENCHWATCH_GPU_SESSION_H

#include <stdbool.h>

#include "core/plugin.h"
#include "gpu_cuda.h"
#include "gpu_nvml.h"

#define GPU_SESSION_BATCH 0.05   /* seconds of GPU work between two ticks */
/* The longest one unit of work (a GEMM, a copy) may take: a batch holds
 * one at least, so a longer one would hold another process's work past
 * the second the run makes way within, and the run past its duration (a
 * 65536^3 GEMM takes about 2.3 s on an A100).  Said after the warm-up. */
#define GPU_SESSION_UNIT_MAX 0.25
#define GPU_SESSION_MAX_PIDS 64
#define GPU_SESSION_MIN_CC_MAJOR 8 /* the PTX targets sm_80 (its bf16 wmma) */

enum gpu_kernel {
        GPU_K_STREAM_INIT,
        GPU_K_STREAM_COPY,
        GPU_K_STREAM_TRIAD,
        GPU_K_GEMM_FILL,
        GPU_K_GEMM_BF16,
        GPU_K_COUNT
};

struct gpu_session {
        const struct bw_host *h;
        const struct bw_run *run;
        struct gpu_cuda cu;
        struct gpu_nvml nv;
        bool cu_open, nv_open;
        CUdevice dev;
        CUcontext ctx;            /* the device's primary context */
        CUmodule mod;
        CUstream stream;
        CUfunction k[GPU_K_COUNT];
        int sm_count;
        unsigned self[4], n_self; /* this process's pids in NVML's list */
        /* samples of the ticks */
        unsigned n_reason_samples, reason_samples[GPU_REASON_COUNT];
        unsigned n_sm_samples;
        double sm_mhz_sum;
        bool has_temperature;
        unsigned max_celsius;
        unsigned xids;
        unsigned long long xid_last;
};

/* NVML open; nothing of CUDA yet. */
int gpu_session_open_nvml(struct gpu_session *s, const struct bw_run *run,
                          const struct bw_host *h);
/* The GPU of the run, by NVML's index. */
int gpu_session_select(struct gpu_session *s, unsigned index);
/* CUDA's context on the GPU NVML selected (found by PCI location), the
 * kernels loaded, a stream, and this process's pids noted. */
int gpu_session_open_cuda(struct gpu_session *s, const struct gpu_nvml_info *info);
void gpu_session_close(struct gpu_session *s);

/* Between two batches: 0 to go on; -EBUSY (another process on the GPU)
 * or -ECANCELED (a stop), already h->fail()ed; -EIO when NVML fails. */
int gpu_session_tick(struct gpu_session *s);

/* One look at the clock event reasons, the SM clock and the temperature:
 * call it with a batch queued and not waited for. */
void gpu_session_sample(struct gpu_session *s);

/* Fails the run with a CUDA error: "what: CUDA_ERROR_...". */
int gpu_session_cuda_fail(struct gpu_session *s, CUresult r, const char *what);
/* A launch of kernel k on the session's stream; 0 or gpu_session_cuda_fail. */
int gpu_session_launch(struct gpu_session *s, enum gpu_kernel k, unsigned gx, unsigned gy,
                       unsigned bx, void **params);
/* n events, or none (a failure); gpu_session_events_free() frees them. */
int gpu_session_events(struct gpu_session *s, CUevent *ev, unsigned n);
void gpu_session_events_free(struct gpu_session *s, CUevent *ev, unsigned n);
/* Waits for event end (the thread sleeps), then the seconds from start
 * to end. */
int gpu_session_elapsed(struct gpu_session *s, CUevent start, CUevent end, double *ret_s);
int gpu_session_alloc(struct gpu_session *s, size_t bytes, CUdeviceptr *ret, const char *what);
void gpu_session_free(struct gpu_session *s, CUdeviceptr p);

#endif
