/* fakegpu.h — what the recording fakes of libcuda.so.1, libnvidia-ml.so.1
 * and libcublasLt.so.13 share (tests/gpufake/: one shared object that the
 * plugin tests reach under those three names, so there is one state).
 *
 * No GPU: device memory is host memory, the kernels of gpu_kernels.cu are
 * done in C on it (so the plugin's checks of their results pass or fail
 * for real), and time is a stream clock the fake moves by a model —
 * bytes over a bandwidth, floating-point operations over a rate — which
 * the CUDA events read: the figures a test gets are what the model says,
 * never a measurement.
 *
 * Driven by the environment, read again at every cuInit() and nvmlInit():
 *   FAKEGPU_COUNT           GPUs (1)
 *   FAKEGPU_MEM_TOTAL       bytes of each GPU (1 GiB)
 *   FAKEGPU_CC_MAJOR        its compute capability's major number (9)
 *   FAKEGPU_L2_BYTES        its L2 cache (4 MiB: small, so that the tests'
 *                           arrays, 4 x of it at least, stay cheap)
 *   FAKEGPU_COPY_BPS, FAKEGPU_TRIAD_BPS  the bandwidth of the BabelStream
 *                           kernels (2e12, 2.5e12 bytes/s of the arrays)
 *   FAKEGPU_FLOPS           the GEMM rate (1e12 FLOP/s; cuBLASLt's: x 1.5)
 *   FAKEGPU_LT_FIRST_S      seconds the process's first cublasLtMatmul holds
 *                           the stream before its GEMM (the library loading
 *                           its kernels, lazily: the GPU idles) (0)
 *   FAKEGPU_H2D_BPS, FAKEGPU_D2H_BPS     copy bandwidths (50e9, 40e9)
 *   FAKEGPU_BUSY_PID        a process on every GPU from the start
 *   FAKEGPU_PROCESS_AFTER   N: pid 4242 appears on every GPU from the
 *                           N-th call of the compute process list on
 *   FAKEGPU_MANY_PROCESSES  N: from the N-th call of the compute process
 *                           list on, more processes than any list holds
 *                           (INSUFFICIENT_SIZE, the caller's list untouched)
 *   FAKEGPU_SELF_PID        the pid the process list shows for this process
 *                           (as a PID namespace does; default getpid())
 *   FAKEGPU_UTIL            utilisation, percent (0)
 *   FAKEGPU_UTIL_LOOKS      N: only the first N looks at it see FAKEGPU_UTIL,
 *                           then 0 (a process that just ended)
 *   FAKEGPU_REASONS         the clock event reasons bitmask (0)
 *   FAKEGPU_HELD            "hw_thermal=0.38,sw_power_cap=0.1": each
 *                           reason's counter grows by that share of the time
 *   FAKEGPU_NO_FIELDS       1: nvmlDeviceGetFieldValues says not supported
 *   FAKEGPU_NVML_VERSION    what nvmlSystemGetNVMLVersion says (13.580.65.06);
 *                           the field ids of the SW/HW thermal and power
 *                           brake counters follow it as in NVIDIA's nvml.h:
 *                           251-253 from driver 575 (NVML 12.9, 13.0), 269-271
 *                           from 590 (13.1), none before; the ids the
 *                           version gives power smoothing answer its values
 *   FAKEGPU_SM_MHZ, FAKEGPU_SM_MAX_MHZ   (1980, 1980)
 *   FAKEGPU_POWER_LIMIT_W   the enforced limit (700; the default is 700)
 *   FAKEGPU_ECC             "corrected,uncorrected" aggregate counts (0,0)
 *   FAKEGPU_REMAPPED        "corrected,uncorrected,pending,failure"
 *   FAKEGPU_REPLAY          PCIe replays (0)
 *   FAKEGPU_XID             an Xid error to report once, during the run
 *   FAKEGPU_PCIE, FAKEGPU_PCIE_IDLE, FAKEGPU_PCIE_MAX  "gen,width" of the
 *                           link while copies run (5,16), else (1,16), and
 *                           its maximum (5,16)
 *   FAKEGPU_NOT_SUPPORTED   NVML entry points that say NOT_SUPPORTED
 *   FAKEGPU_FAIL            an entry point that fails (CUDA: out of
 *                           memory; NVML: unknown error)
 *   FAKEGPU_DRIVER_NOT_LOADED  1: nvmlInit says the kernel driver is not
 *                           loaded (the libraries installed, no module)
 *   FAKEGPU_LOG             a file each call's name is appended to */
#ifndef BENCHWATCH_FAKEGPU_H
#define BENCHWATCH_FAKEGPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct fakegpu {
        unsigned count;
        uint64_t mem_total, allocated, peak;
        unsigned l2_bytes;
        int cc_major;
        double copy_bps, triad_bps, flops, h2d_bps, d2h_bps;
        double lt_first_s;
        bool lt_loaded;             /* a cublasLtMatmul was called */
        unsigned busy_pid, process_after, self_pid, process_calls, many_after;
        unsigned util, util_looks, util_calls, sm_mhz, sm_max_mhz, power_limit_mw;
        unsigned long long reasons;
        double held[6];             /* by the plugin's reason order */
        bool no_fields, context;
        char nvml_version[32];
        bool smoothing_read;        /* a power smoothing field was asked for */
        int ctx_device;             /* the CUdevice of the last context made */
        unsigned long long ecc[2];
        unsigned remapped[4], replay;
        unsigned xid;
        bool xid_sent;
        unsigned pcie[2], pcie_idle[2], pcie_max[2];
        unsigned copies_in_flight;
        unsigned kernels_in_flight; /* launched since the last wait */
        unsigned samples, samples_busy; /* clock looks, those with work queued */
        double stream_clock;        /* seconds of the (one) stream */
        uint64_t t0_ns;             /* nvmlInit's CLOCK_MONOTONIC */
        unsigned launches, gemms;
};

extern struct fakegpu fakegpu;

/* Reads the environment (at cuInit, nvmlInit). */
void fakegpu_setup(void);
/* Logs the call; true when FAKEGPU_FAIL names it. */
bool fakegpu_call(const char *name);
bool fakegpu_not_supported(const char *name);
uint64_t fakegpu_now_ns(void);
/* bf16 from float, rounded to nearest even; and back. */
uint16_t fakegpu_bf16(float f);
float fakegpu_float(uint16_t b);

#endif
