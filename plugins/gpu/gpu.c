/* gpu.c — the gpu plugin: one GPU a run, its device memory bandwidth
 * (BabelStream's copy and triad, gpu_stream.c), a dense bf16 GEMM rate
 * (cuBLASLt's or the plugin's own tensor-core kernel, gpu_gemm.c), its
 * pinned host<->device copy bandwidth with the PCIe link read during the
 * copies (nvbandwidth's, gpu_copy.c), and its own health from NVML
 * (gpu_health.c).
 *
 * No CUDA at build time: libcuda.so.1 and libnvidia-ml.so.1 are opened at
 * run time (gpu_cuda.h, gpu_nvml.h), the kernels travel as PTX text; a
 * host without the NVIDIA driver, or whose driver has no GPU to show
 * (its module not loaded, or NVML counts none), makes `check` say -ENODEV
 * ("no NVIDIA driver", "no usable GPU"), so `run` exits 3 and the daemon
 * skips the probe (plugin.h); NVML failing otherwise on a GPU host is a
 * fault the runs show.
 *
 * Polite to the GPU's real work: a run starts only when NVML shows no
 * other process on the GPU and its utilisation at most IDLE_PERCENT, makes
 * way (-EBUSY: a deferral, not a failure) within a batch when one appears
 * (gpu_session.h), takes at most `memory` of device memory for its
 * buffers (and half of what is free; the CUDA context's comes on top), at
 * most `duration` (10 s) in all, and only reads the GPU's state: never a
 * clock, a power limit, a mode or a reset.
 *
 * gpu=all measures one GPU a run, the next each time (the index is kept
 * in the state directory), so a host's GPUs take turns; every figure has
 * a `gpu` label (NVML's index, nvidia-smi's), so each GPU is a series of
 * its own, and benchwatch_gpu_info names it. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <time.h>

#include "core/plugin.h"
#include "gpu_copy.h"
#include "gpu_cuda.h"
#include "gpu_gemm.h"
#include "gpu_health.h"
#include "gpu_nvml.h"
#include "gpu_session.h"
#include "gpu_stream.h"
#include "util/atomicfile.h"
#include "util/fdio.h"
#include "util/format.h"
#include "util/parse.h"
#include "util/strutil.h"
#include "util/timeutil.h"

#define IDLE_PERCENT 5      /* NVML utilisation at most this before a run */
#define MAX_GPUS 1024
#define TEARDOWN 0.5        /* seconds kept for the health reads and the end */
#define MIB (UINT64_C(1) << 20)
#define STREAM_ARRAY_MAX (512 * MIB)
#define STREAM_L2_TIMES 4   /* each bandwidth array at least 4 x the L2 cache */

enum { P_GPU, P_DURATION, P_MEMORY, P_STREAM, P_GEMM, P_COPY, P_M, P_N, P_K, P_ENGINE,
       P_COPY_SIZE, P_COUNT };

static const struct bw_param_def gpu_params[] = {
        [P_GPU] = {
                .name = "gpu", .type = BW_PARAM_STRING, .default_value = "all",
                .help = "GPU to measure, by NVML's (nvidia-smi's) index; all: one GPU a "
                        "run, the next each time",
        },
        [P_DURATION] = {
                .name = "duration", .type = BW_PARAM_DURATION, .default_value = "8s",
                .min = 2, .max = 10, .unit = "s",
                .help = "Wall-clock time of the whole run (setup, the measurements, the "
                        "health reads), at most 10 s",
        },
        [P_MEMORY] = {
                .name = "memory", .type = BW_PARAM_SIZE, .default_value = "2G",
                .min = 64.0 * MIB, .max = 64.0 * (1 << 30), .unit = "bytes",
                .help = "Device memory a run's buffers may take, and never more than half "
                        "of what is free on the GPU (the bandwidth arrays: a third of it "
                        "each, up to 512M, and at least 4 x the GPU's L2 cache); the CUDA "
                        "context's own comes on top",
        },
        [P_STREAM] = {
                .name = "stream", .type = BW_PARAM_BOOL, .default_value = "yes",
                .help = "Measure device memory bandwidth (BabelStream copy and triad)",
        },
        [P_GEMM] = {
                .name = "gemm", .type = BW_PARAM_BOOL, .default_value = "yes",
                .help = "Measure the dense bf16 matrix-multiply rate",
        },
        [P_COPY] = {
                .name = "copy", .type = BW_PARAM_BOOL, .default_value = "yes",
                .help = "Measure pinned host<->device copy bandwidth (nvbandwidth)",
        },
        [P_M] = {
                .name = "gemm_m", .type = BW_PARAM_INT, .default_value = "8192",
                .min = 128, .max = 65536, .unit = "rows",
                .help = "Rows of A and C (the GEMM is m x k times k x n)",
        },
        [P_N] = {
                .name = "gemm_n", .type = BW_PARAM_INT, .default_value = "8192",
                .min = 128, .max = 65536, .unit = "columns", .help = "Columns of B and C",
        },
        [P_K] = {
                .name = "gemm_k", .type = BW_PARAM_INT, .default_value = "8192",
                .min = 32, .max = 65536, .unit = "", .help = "Columns of A, rows of B",
        },
        [P_ENGINE] = {
                .name = "gemm_engine", .type = BW_PARAM_ENUM, .default_value = "auto",
                .choices = gpu_gemm_engine_names,
                .help = "cublaslt: cuBLASLt (as torch.matmul); wmma: the plugin's own "
                        "tensor-core kernel; auto: cuBLASLt where installed (the figure's "
                        "`engine` label says which)",
        },
        [P_COPY_SIZE] = {
                .name = "copy_size", .type = BW_PARAM_SIZE, .default_value = "256M",
                .min = 1.0 * MIB, .max = 4.0 * (1 << 30), .unit = "bytes",
                .help = "Bytes of one host<->device copy (as much pinned host memory and "
                        "device memory)",
        },
        [P_COUNT] = { .name = NULL },
};

/* gpu=all: -1; else the index. */
static int gpu_choice(const char *s, int64_t *ret)
{
        if (!strcmp(s, "all")) {
                *ret = -1;
                return 0;
        }
        return parse_int64(s, ret) < 0 || *ret < 0 || *ret >= MAX_GPUS ? -EINVAL : 0;
}

static int gpu_check(const struct bw_run *run, const struct bw_host *h)
{
        const struct bw_param_value *v = run->values;
        uint64_t m = (uint64_t)v[P_M].i, n = (uint64_t)v[P_N].i, k = (uint64_t)v[P_K].i;
        uint64_t mem = (uint64_t)v[P_MEMORY].i;
        char a[32], b[32], *why = NULL;
        int64_t idx;
        if (gpu_choice(v[P_GPU].s, &idx) < 0)
                return h->fail(h, -EINVAL, "gpu: '%s' is neither 'all' nor a GPU index "
                               "(0, 1, ...)", v[P_GPU].s);
        if (!v[P_STREAM].b && !v[P_GEMM].b && !v[P_COPY].b)
                return h->fail(h, -EINVAL, "stream, gemm and copy are all off: nothing to "
                               "measure");
        if (v[P_GEMM].b && gpu_gemm_bytes(m, n, k) > mem)
                return h->fail(h, -EINVAL, "gemm %" PRIu64 " x %" PRIu64 " x %" PRIu64 " needs "
                               "%s of device memory, more than memory=%s", m, n, k,
                               format_size((int64_t)gpu_gemm_bytes(m, n, k), a, sizeof(a)),
                               format_size((int64_t)mem, b, sizeof(b)));
        if (v[P_COPY].b && (uint64_t)v[P_COPY_SIZE].i > mem)
                return h->fail(h, -EINVAL, "copy_size=%s is more than memory=%s",
                               format_size(v[P_COPY_SIZE].i, a, sizeof(a)),
                               format_size((int64_t)mem, b, sizeof(b)));
        if (v[P_GEMM].b && v[P_ENGINE].i == GPU_GEMM_WMMA && gpu_gemm_wmma_shape_error(m, n, k))
                return h->fail(h, -EINVAL, "%s", gpu_gemm_wmma_shape_error(m, n, k));
        int r = gpu_cuda_present(&why);
        if (r >= 0)
                r = gpu_nvml_usable(&why);
        if (r < 0)
                r = h->fail(h, r, "%s", why ? why : "out of memory");
        free(why);
        return r;
}

/* ---- which GPU ------------------------------------------------------------ */

static char *next_path(const struct bw_run *run)
{
        return str_printf("%s/gpu-%s.next", run->state_dir, run->probe);
}

/* gpu=all: the GPU after the one the last run measured, and the one
 * after it kept for the next run (kept first: a run that fails or makes
 * way still passes the turn on). */
static unsigned take_turn(const struct bw_run *run, const struct bw_host *h, unsigned count)
{
        char *path = next_path(run), buf[32];
        struct stat st;
        int64_t next = 0;
        if (!path || fdio_read_small(path, buf, sizeof(buf)) < 0 ||
            (buf[strcspn(buf, "\n")] = '\0', parse_int64(buf, &next)) < 0 || next < 0 ||
            next >= count)
                next = 0;
        char *text = str_printf("%u\n", (unsigned)((next + 1) % count));
        int r = path && text ? atomicfile_write(run->state_dir, path, text, strlen(text), 0644)
                             : -ENOMEM;
        /* a one-off `run` before any daemon made the state directory */
        if (r < 0 && stat(run->state_dir, &st) < 0 && errno == ENOENT)
                r = 0;
        if (r < 0)
                h->log(h, LOG_WARNING, "cannot keep the next GPU in '%s': %s (GPU %u again "
                       "next time)", path ? path : "?", strerror(-r), (unsigned)next);
        free(text);
        free(path);
        return (unsigned)next;
}

static int choose_gpu(struct gpu_session *s, unsigned *ret)
{
        const struct bw_run *run = s->run;
        unsigned count;
        char *why = NULL;
        int64_t want;
        (void)gpu_choice(run->values[P_GPU].s, &want);
        int r = gpu_nvml_count(&s->nv, &count, &why);
        if (r < 0) {
                r = s->h->fail(s->h, r, "%s", why ? why : "out of memory");
                free(why);
                return r;
        }
        if (count == 0)
                return s->h->fail(s->h, -ENODEV, "the NVIDIA driver sees no GPU");
        if (want >= (int64_t)count)
                return s->h->fail(s->h, -ENODEV, "gpu=%" PRId64 ": this host has %u GPU(s), "
                                  "0 to %u", want, count, count - 1);
        *ret = want >= 0 ? (unsigned)want : take_turn(run, s->h, count);
        return 0;
}

/* Another process on the GPU, or a busy one: not now (a deferral).  NVML's
 * utilisation covers its last sample period, up to a second: a process
 * that has just ended (a run of this probe too) still shows in it, so a
 * busy GPU with no process in view is looked at once more a second later. */
static int idle_enough(struct gpu_session *s)
{
        unsigned pids[GPU_SESSION_MAX_PIDS], n = 0, util = 0;
        char *why = NULL;
        int r = gpu_nvml_processes(&s->nv, pids, GPU_SESSION_MAX_PIDS, &n, &why);
        if (r > 0)
                return s->h->fail(s->h, -EBUSY, "GPU %u busy: more processes on it than NVML "
                                  "lists at once; waits for an idle GPU", s->nv.index);
        if (r >= 0 && n)
                return s->h->fail(s->h, -EBUSY, "GPU %u busy: %u process(es) on it (pid %u%s); "
                                  "waits for an idle GPU", s->nv.index, n, pids[0],
                                  n > 1 ? ", ..." : "");
        if (r >= 0)
                r = gpu_nvml_utilization(&s->nv, &util, &why);
        if (r >= 0 && util > IDLE_PERCENT) {
                struct timespec second = { 1, 0 };
                clock_nanosleep(CLOCK_MONOTONIC, 0, &second, NULL);
                r = gpu_nvml_utilization(&s->nv, &util, &why);
        }
        if (r == -ENODATA)
                return 0; /* MIG and others: the process list is the test */
        if (r >= 0 && util > IDLE_PERCENT)
                return s->h->fail(s->h, -EBUSY, "GPU %u busy: %u%% utilised with no process "
                                  "of its own in view; waits for an idle GPU", s->nv.index,
                                  util);
        if (r < 0)
                r = s->h->fail(s->h, r, "%s", why ? why : "out of memory");
        free(why);
        return r;
}

/* ---- the figures ------------------------------------------------------------ */

static void emit_info(struct gpu_session *s, const char *gpu, const struct gpu_nvml_info *in)
{
        const struct bw_host *h = s->h;
        char mem[32];
        snprintf(mem, sizeof(mem), "%llu", in->memory_bytes);
        h->info(h, "benchwatch_gpu_info", "The GPU a probe's figures with the same gpu label "
                "are of (NVML)",
                (const char *const[]){ "gpu", gpu, "uuid", in->uuid, "name", in->name,
                                       "memory_bytes", mem, "driver_version", in->driver,
                                       "bus_id", in->bus_id, NULL });
}

static void emit_stream(const struct bw_host *h, const char *gpu,
                        const struct gpu_stream_result *x)
{
        const char *l[] = { "gpu", gpu, NULL };
        h->gauge(h, "memory_copy_bytes_per_second", "Device memory bandwidth of BabelStream's "
                 "copy (c = a): 2 arrays' bytes over one kernel's best time", l,
                 x->copy_bytes_per_second);
        h->gauge(h, "memory_triad_bytes_per_second", "Device memory bandwidth of "
                 "BabelStream's triad (a = b + s c): 3 arrays' bytes over one kernel's best "
                 "time", l, x->triad_bytes_per_second);
        h->gauge(h, "memory_array_bytes", "Bytes of each of the three bandwidth arrays", l,
                 (double)x->array_bytes);
}

static void emit_gemm(const struct bw_host *h, const char *gpu, const struct gpu_gemm_spec *sp,
                      const struct gpu_gemm_result *x)
{
        char m[24], n[24], k[24];
        snprintf(m, sizeof(m), "%" PRIu64, sp->m);
        snprintf(n, sizeof(n), "%" PRIu64, sp->n);
        snprintf(k, sizeof(k), "%" PRIu64, sp->k);
        const char *l[] = { "gpu", gpu, "engine", gpu_gemm_engine_names[x->engine], "m", m,
                            "n", n, "k", k, NULL };
        h->gauge(h, "gemm_flop_per_second", "Dense bf16 GEMM rate (fp32 accumulation): "
                 "2 m n k over the median time of one", l, x->flop_per_second);
}

static void emit_copy(const struct bw_host *h, const char *gpu, const struct gpu_copy_result *x)
{
        const char *l[] = { "gpu", gpu, NULL };
        h->gauge(h, "host_to_device_bytes_per_second", "Pinned host to device copy "
                 "bandwidth (nvbandwidth's host_to_device_memcpy_ce: the median sample)", l,
                 x->h2d_bytes_per_second);
        h->gauge(h, "device_to_host_bytes_per_second", "Device to pinned host copy "
                 "bandwidth (nvbandwidth's device_to_host_memcpy_ce: the median sample)", l,
                 x->d2h_bytes_per_second);
        if (x->has_link) {
                h->gauge(h, "pcie_link_generation", "The PCIe link's generation during the "
                         "copies", l, x->link_gen);
                h->gauge(h, "pcie_link_width", "The PCIe link's lanes during the copies", l,
                         x->link_width);
        }
        if (x->has_max_link) {
                h->gauge(h, "pcie_link_max_generation", "The highest generation the PCIe "
                         "link can train to", l, x->max_link_gen);
                h->gauge(h, "pcie_link_max_width", "The most lanes the PCIe link can train "
                         "to", l, x->max_link_width);
        }
}

/* ---- the run ---------------------------------------------------------------- */

/* The device memory a run may take: memory=, and half of what is free. */
static int memory_cap(struct gpu_session *s, uint64_t *ret)
{
        size_t free_b = 0, total = 0;
        CUresult e = s->cu.mem_get_info(&free_b, &total);
        if (e)
                return gpu_session_cuda_fail(s, e, "cuMemGetInfo");
        uint64_t want = (uint64_t)s->run->values[P_MEMORY].i;
        *ret = want < free_b / 2 ? want : free_b / 2;
        return 0;
}

static int too_big(struct gpu_session *s, const char *what, uint64_t need, uint64_t cap)
{
        char a[32], b[32];
        return s->h->fail(s->h, -ENOMEM, "GPU %u: %s needs %s of device memory, more than the "
                          "%s the run may take (memory=, at most half of the free memory)",
                          s->nv.index, what, format_size((int64_t)need, a, sizeof(a)),
                          format_size((int64_t)cap, b, sizeof(b)));
}

/* The bytes of each bandwidth array: a third of what the run may take,
 * up to STREAM_ARRAY_MAX, and at least STREAM_L2_TIMES x the L2 cache
 * (H100, H200: 50M), or the kernels would measure the cache, not the
 * memory; a cap that cannot give that fails the run, saying what would. */
static int stream_array(struct gpu_session *s, uint64_t cap, size_t *ret)
{
        int l2 = 0;
        CUresult e = s->cu.device_get_attribute(&l2, GPU_CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE,
                                                s->dev);
        if (e)
                return gpu_session_cuda_fail(s, e, "cuDeviceGetAttribute (L2 cache size)");
        uint64_t least = ((uint64_t)(l2 > 0 ? l2 : 0) * STREAM_L2_TIMES + MIB - 1) & ~(MIB - 1);
        uint64_t most = least > STREAM_ARRAY_MAX ? least : STREAM_ARRAY_MAX;
        uint64_t array = (cap / 3 < most ? cap / 3 : most) & ~(MIB - 1);
        if (array < least) {
                char a[32], b[32], c[32];
                return s->h->fail(s->h, -ENOMEM, "GPU %u: the bandwidth arrays must be at "
                                  "least %d x its %s L2 cache each, not to measure the cache: "
                                  "%s of device memory, more than the %s the run may take "
                                  "(memory=, at most half of the free memory)", s->nv.index,
                                  STREAM_L2_TIMES, format_size(l2, a, sizeof(a)),
                                  format_size((int64_t)(3 * least), b, sizeof(b)),
                                  format_size((int64_t)cap, c, sizeof(c)));
        }
        *ret = (size_t)array;
        return 0;
}

/* The seconds measurement `which` gets: its share of what is left before
 * `end` among it and those after it (stream, gemm, copy in this order), so
 * that a slow set-up (cuBLASLt's loading) comes out of the run's own
 * time, not on top of it. */
static double share(const struct bw_param_value *v, int which, double end)
{
        static const double weight[P_COUNT] = { [P_STREAM] = 0.25, [P_GEMM] = 0.45,
                                                [P_COPY] = 0.30 };
        double left = end - TEARDOWN - now_mono(), sum = 0;
        for (int p = which; p <= P_COPY; p++)
                sum += v[p].b ? weight[p] : 0;
        return sum > 0 && left > 0 ? left * weight[which] / sum : 0;
}

static int measure(struct gpu_session *s, const char *gpu, double end,
                   struct gpu_copy_result *copy)
{
        const struct bw_param_value *v = s->run->values;
        const struct bw_host *h = s->h;
        struct gpu_gemm_spec gs = {
                .m = (uint64_t)v[P_M].i, .n = (uint64_t)v[P_N].i, .k = (uint64_t)v[P_K].i,
                .engine = (enum gpu_gemm_engine)v[P_ENGINE].i,
        };
        uint64_t cap = 0, copy_b = (uint64_t)v[P_COPY_SIZE].i;
        double left = end - TEARDOWN - now_mono();
        int r = memory_cap(s, &cap);
        if (r >= 0 && v[P_GEMM].b && gpu_gemm_bytes(gs.m, gs.n, gs.k) > cap)
                r = too_big(s, "the GEMM", gpu_gemm_bytes(gs.m, gs.n, gs.k), cap);
        if (r >= 0 && v[P_COPY].b && copy_b > cap)
                r = too_big(s, "the copy buffer", copy_b, cap);
        if (r >= 0 && left < 1)
                r = h->fail(h, -ETIME, "GPU %u: setting up took %.1f s of duration=%.0fs: "
                            "no time left to measure", s->nv.index, v[P_DURATION].d - left,
                            v[P_DURATION].d);
        if (r >= 0 && v[P_STREAM].b) {
                struct gpu_stream_result x;
                size_t array = 0;
                r = stream_array(s, cap, &array);
                if (r >= 0)
                        r = gpu_stream_run(s, array, share(v, P_STREAM, end), &x);
                if (r >= 0)
                        emit_stream(h, gpu, &x);
        }
        if (r >= 0 && v[P_GEMM].b) {
                struct gpu_gemm_result x;
                gs.seconds = share(v, P_GEMM, end);
                r = gpu_gemm_run(s, &gs, &x);
                if (r >= 0)
                        emit_gemm(h, gpu, &gs, &x);
        }
        if (r >= 0 && v[P_COPY].b) {
                r = gpu_copy_run(s, (size_t)copy_b, share(v, P_COPY, end), copy);
                if (r >= 0)
                        emit_copy(h, gpu, copy);
        }
        return r;
}

/* The driver keeps the kernels it compiled under CUDA_CACHE_PATH, by
 * default in $HOME, which a hardened unit may not let it write. */
static void jit_cache(const struct bw_run *run)
{
        char *dir = str_printf("%s/gpu-jit", run->cache_dir);
        if (dir && !getenv("CUDA_CACHE_PATH"))
                setenv("CUDA_CACHE_PATH", dir, 0);
        free(dir);
}

static int on_gpu(struct gpu_session *s, unsigned index, double end)
{
        struct gpu_nvml_info info;
        struct gpu_copy_result copy = { 0 };
        char gpu[16], *why = NULL;
        snprintf(gpu, sizeof(gpu), "%u", index);
        struct gpu_health hl = { .gpu = gpu, .uuid = info.uuid };
        int r = gpu_session_select(s, index);
        if (r >= 0)
                r = idle_enough(s);
        if (r >= 0 && (r = gpu_nvml_info(&s->nv, &info, &why)) < 0)
                r = s->h->fail(s->h, r, "%s", why ? why : "out of memory");
        free(why);
        if (r < 0)
                return r;
        emit_info(s, gpu, &info);
        double t0 = now_mono();
        gpu_nvml_read_counters(&s->nv, &hl.before);
        jit_cache(s->run);
        r = gpu_session_open_cuda(s, &info);
        if (r >= 0)
                r = measure(s, gpu, end, &copy);
        if (r < 0)
                return r;
        gpu_nvml_read_counters(&s->nv, &hl.after);
        hl.seconds = now_mono() - t0;
        hl.copy = s->run->values[P_COPY].b ? &copy : NULL;
        gpu_health_report(s, &hl);
        return 0;
}

static int gpu_run(const struct bw_run *run, const struct bw_host *h)
{
        double end = now_mono() + run->values[P_DURATION].d;
        struct gpu_session s;
        unsigned index = 0;
        if (end > run->deadline - TEARDOWN)
                end = run->deadline - TEARDOWN;
        int r = gpu_session_open_nvml(&s, run, h);
        if (r >= 0)
                r = choose_gpu(&s, &index);
        if (r >= 0)
                r = on_gpu(&s, index, end);
        gpu_session_close(&s);
        return r;
}

/* `benchwatch run gpu`: the figures, then the GPU's own state. */
static const struct bw_report_line gpu_report[] = {
        { .label = "Device memory (BabelStream)", .show = BW_SHOW_HEADING },
        { .label = "  copy:", .show = BW_SHOW_VALUE, .figure = "memory_copy_bytes_per_second",
          .scale = 1e-9, .unit = "GB/s", .decimals = 1 },
        { .label = "  triad:", .show = BW_SHOW_VALUE,
          .figure = "memory_triad_bytes_per_second", .scale = 1e-9, .unit = "GB/s",
          .decimals = 1 },
        { .label = "  array:", .show = BW_SHOW_VALUE, .figure = "memory_array_bytes",
          .scale = 1.0 / MIB, .unit = "MiB" },
        { .label = "bf16 GEMM:", .show = BW_SHOW_VALUE, .figure = "gemm_flop_per_second",
          .scale = 1e-12, .unit = "TFLOP/s", .decimals = 1 },
        { .label = "Host to device:", .show = BW_SHOW_VALUE,
          .figure = "host_to_device_bytes_per_second", .scale = 1e-9, .unit = "GB/s",
          .decimals = 2 },
        { .label = "Device to host:", .show = BW_SHOW_VALUE,
          .figure = "device_to_host_bytes_per_second", .scale = 1e-9, .unit = "GB/s",
          .decimals = 2 },
        { .label = "PCIe link during copies", .show = BW_SHOW_HEADING },
        { .label = "  generation:", .show = BW_SHOW_VALUE, .figure = "pcie_link_generation" },
        { .label = "  lanes:", .show = BW_SHOW_VALUE, .figure = "pcie_link_width" },
        { .label = "  can do generation:", .show = BW_SHOW_VALUE,
          .figure = "pcie_link_max_generation" },
        { .label = "  can do lanes:", .show = BW_SHOW_VALUE, .figure = "pcie_link_max_width" },
        { .label = "GPU health during the run", .show = BW_SHOW_HEADING },
        { .label = "  SM clock:", .show = BW_SHOW_VALUE, .figure = "sm_clock_hertz",
          .scale = 1e-6, .unit = "MHz" },
        { .label = "  SM clock maximum:", .show = BW_SHOW_VALUE, .figure = "sm_clock_max_hertz",
          .scale = 1e-6, .unit = "MHz" },
        { .label = "  temperature, highest:", .show = BW_SHOW_VALUE,
          .figure = "temperature_celsius", .unit = "°C" },
        { .label = "  power limit:", .show = BW_SHOW_VALUE, .figure = "power_limit_watts",
          .unit = "W" },
        { .label = "  default power limit:", .show = BW_SHOW_VALUE,
          .figure = "power_default_limit_watts", .unit = "W" },
        { .label = "  Xid errors:", .show = BW_SHOW_VALUE, .figure = "xid_errors" },
        { .label = NULL },
};

BW_PLUGIN_DEFINE = {
        .abi_version = BW_PLUGIN_ABI_VERSION,
        .name = "gpu",
        .description = "an NVIDIA GPU's device memory bandwidth (BabelStream copy, triad), "
                       "bf16 GEMM rate (cuBLASLt), pinned host<->device copies "
                       "(nvbandwidth) and NVML health; one GPU a run",
        .caps = BW_CAP_DEVICE,
        .params = gpu_params,
        .throughput_metric = "memory_copy_bytes_per_second",
        .check = gpu_check,
        .run = gpu_run,
        .report = gpu_report,
};
