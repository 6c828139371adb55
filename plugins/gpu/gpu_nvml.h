/* gpu_nvml.h — NVML, opened at run time, and what the gpu plugin reads
 * of a GPU's health with it.
 *
 * libnvidia-ml.so.1 ships with the driver; as with libcuda (gpu_cuda.h)
 * the types and signatures are NVML's own (nvml.h, API 13), declared
 * here, the versioned entry points where nvml.h #defines them
 * (nvmlInit -> nvmlInit_v2), and checked against nvml.h by
 * tests/plugins/gpu_abi.c where it is installed (with
 * GPU_NVML_REAL_HEADERS defined, the types are nvml.h's own).  Only reading calls:
 * nothing here sets a clock, a limit or a mode, or resets anything.
 *
 * What the GPU did during a run is read twice (counters: clock event
 * reasons' accumulated nanoseconds, ECC counts, remapped rows, PCIe
 * replays) and sampled while it runs (the clock event reasons now, the SM
 * clock, the temperature).  A figure the GPU does not have
 * (NVML_ERROR_NOT_SUPPORTED, an entry point the driver lacks) is marked
 * absent, never zero.  Nothing here logs. */
#ifndef BENCHWATCH_GPU_NVML_H
#define BENCHWATCH_GPU_NVML_H

#include <stdbool.h>
#include <stdint.h>

#ifndef GPU_NVML_REAL_HEADERS
typedef int nvmlReturn_t;
typedef struct {
        struct nvmlDevice_st *handle;
} nvmlDevice_t;
typedef struct {
        struct nvmlEventSet_st *handle;
} nvmlEventSet_t;
typedef struct nvmlProcessInfo_v2_st {
        unsigned int pid;
        unsigned long long usedGpuMemory;
        unsigned int gpuInstanceId;
        unsigned int computeInstanceId;
} nvmlProcessInfo_t;
typedef struct nvmlUtilization_st {
        unsigned int gpu;
        unsigned int memory;
} nvmlUtilization_t;
typedef struct nvmlMemory_st {
        unsigned long long total;
        unsigned long long free;
        unsigned long long used;
} nvmlMemory_t;
typedef struct nvmlPciInfo_st {
        char busIdLegacy[16];
        unsigned int domain;
        unsigned int bus;
        unsigned int device;
        unsigned int pciDeviceId;
        unsigned int pciSubSystemId;
        char busId[32];
} nvmlPciInfo_t;
typedef struct nvmlViolationTime_st {
        unsigned long long referenceTime;
        unsigned long long violationTime;
} nvmlViolationTime_t;
typedef union nvmlValue_st {
        double dVal;
        int siVal;
        unsigned int uiVal;
        unsigned long ulVal;
        unsigned long long ullVal;
        signed long long sllVal;
        unsigned short usVal;
} nvmlValue_t;
typedef struct nvmlFieldValue_st {
        unsigned int fieldId;
        unsigned int scopeId;
        long long timestamp;
        long long latencyUsec;
        int valueType;            /* nvmlValueType_t */
        nvmlReturn_t nvmlReturn;
        nvmlValue_t value;
} nvmlFieldValue_t;
typedef struct nvmlEventData_st {
        nvmlDevice_t device;
        unsigned long long eventType;
        unsigned long long eventData;
        unsigned int gpuInstanceId;
        unsigned int computeInstanceId;
} nvmlEventData_t;
typedef int nvmlClockType_t;
typedef int nvmlTemperatureSensors_t;
typedef int nvmlMemoryErrorType_t;
typedef int nvmlEccCounterType_t;
typedef int nvmlPerfPolicyType_t;
#endif

/* The values of nvml.h the plugin uses. */
#define GPU_NVML_SUCCESS 0
#define GPU_NVML_ERROR_NOT_SUPPORTED 3
#define GPU_NVML_ERROR_INSUFFICIENT_SIZE 7
#define GPU_NVML_ERROR_DRIVER_NOT_LOADED 9
#define GPU_NVML_ERROR_TIMEOUT 10
#define GPU_NVML_CLOCK_SM 1
#define GPU_NVML_TEMPERATURE_GPU 0
#define GPU_NVML_MEMORY_ERROR_TYPE_CORRECTED 0
#define GPU_NVML_MEMORY_ERROR_TYPE_UNCORRECTED 1
#define GPU_NVML_VOLATILE_ECC 0
#define GPU_NVML_AGGREGATE_ECC 1
#define GPU_NVML_EVENT_XID_CRITICAL_ERROR 0x0000000000000008ULL
#define GPU_NVML_DEVICE_UUID_V2_BUFFER_SIZE 96
#define GPU_NVML_DEVICE_NAME_V2_BUFFER_SIZE 96
#define GPU_NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE 80
#define GPU_NVML_SYSTEM_NVML_VERSION_BUFFER_SIZE 80
/* NVML_FI_DEV_CLOCKS_EVENT_REASON_SW_THERM_SLOWDOWN, HW_THERM_SLOWDOWN
 * and HW_POWER_BRAKE_SLOWDOWN, three fields in a row from the first: new
 * in NVML 12.9 (driver 575) and still there in 13.0 (580) as 251-253,
 * where 269-271 are power smoothing's; from 13.1 (590) on 269-271, and
 * 251-253 power smoothing's (as they were in 12.8).  The same id is
 * another field in another version: only event_field_base chooses. */
#define GPU_NVML_FI_EVENTS_12_9 251
#define GPU_NVML_FI_EVENTS_13_1 269

struct gpu_nvml_api {
        void *dl;
        nvmlReturn_t (*init)(void);
        nvmlReturn_t (*shutdown)(void);
        const char *(*error_string)(nvmlReturn_t r);
        nvmlReturn_t (*system_get_driver_version)(char *version, unsigned int length);
        nvmlReturn_t (*device_get_count)(unsigned int *count);
        nvmlReturn_t (*device_get_handle_by_index)(unsigned int index, nvmlDevice_t *dev);
        nvmlReturn_t (*device_get_uuid)(nvmlDevice_t dev, char *uuid, unsigned int length);
        nvmlReturn_t (*device_get_name)(nvmlDevice_t dev, char *name, unsigned int length);
        nvmlReturn_t (*device_get_memory_info)(nvmlDevice_t dev, nvmlMemory_t *memory);
        nvmlReturn_t (*device_get_pci_info)(nvmlDevice_t dev, nvmlPciInfo_t *pci);
        nvmlReturn_t (*device_get_compute_running_processes)(nvmlDevice_t dev,
                                                             unsigned int *count,
                                                             nvmlProcessInfo_t *infos);
        nvmlReturn_t (*device_get_graphics_running_processes)(nvmlDevice_t dev,
                                                              unsigned int *count,
                                                              nvmlProcessInfo_t *infos);
        nvmlReturn_t (*device_get_utilization_rates)(nvmlDevice_t dev, nvmlUtilization_t *u);
        /* the optional ones: NULL where the driver lacks them */
        nvmlReturn_t (*system_get_nvml_version)(char *version, unsigned int length);
        nvmlReturn_t (*device_get_current_clocks_event_reasons)(nvmlDevice_t dev,
                                                                unsigned long long *reasons);
        nvmlReturn_t (*device_get_field_values)(nvmlDevice_t dev, int count,
                                                nvmlFieldValue_t *values);
        nvmlReturn_t (*device_get_violation_status)(nvmlDevice_t dev,
                                                    nvmlPerfPolicyType_t policy,
                                                    nvmlViolationTime_t *t);
        nvmlReturn_t (*device_get_clock_info)(nvmlDevice_t dev, nvmlClockType_t type,
                                              unsigned int *mhz);
        nvmlReturn_t (*device_get_max_clock_info)(nvmlDevice_t dev, nvmlClockType_t type,
                                                  unsigned int *mhz);
        nvmlReturn_t (*device_get_temperature)(nvmlDevice_t dev,
                                               nvmlTemperatureSensors_t sensor,
                                               unsigned int *celsius);
        nvmlReturn_t (*device_get_enforced_power_limit)(nvmlDevice_t dev,
                                                        unsigned int *milliwatts);
        nvmlReturn_t (*device_get_power_management_default_limit)(nvmlDevice_t dev,
                                                                  unsigned int *milliwatts);
        nvmlReturn_t (*device_get_total_ecc_errors)(nvmlDevice_t dev,
                                                    nvmlMemoryErrorType_t type,
                                                    nvmlEccCounterType_t counter,
                                                    unsigned long long *count);
        nvmlReturn_t (*device_get_remapped_rows)(nvmlDevice_t dev, unsigned int *corrected,
                                                 unsigned int *uncorrected,
                                                 unsigned int *pending,
                                                 unsigned int *failure);
        nvmlReturn_t (*device_get_pcie_replay_counter)(nvmlDevice_t dev, unsigned int *n);
        nvmlReturn_t (*device_get_curr_pcie_link_generation)(nvmlDevice_t dev,
                                                             unsigned int *gen);
        nvmlReturn_t (*device_get_curr_pcie_link_width)(nvmlDevice_t dev,
                                                        unsigned int *width);
        nvmlReturn_t (*device_get_max_pcie_link_generation)(nvmlDevice_t dev,
                                                            unsigned int *gen);
        nvmlReturn_t (*device_get_max_pcie_link_width)(nvmlDevice_t dev,
                                                       unsigned int *width);
        nvmlReturn_t (*event_set_create)(nvmlEventSet_t *set);
        nvmlReturn_t (*device_register_events)(nvmlDevice_t dev, unsigned long long types,
                                               nvmlEventSet_t set);
        nvmlReturn_t (*event_set_wait)(nvmlEventSet_t set, nvmlEventData_t *data,
                                       unsigned int timeout_ms);
        nvmlReturn_t (*event_set_free)(nvmlEventSet_t set);
};

/* The reasons NVML holds clocks back for that the plugin reports, in
 * this order (their names are the `reason` label). */
enum gpu_reason {
        GPU_REASON_HW_SLOWDOWN,
        GPU_REASON_HW_THERMAL,
        GPU_REASON_HW_POWER_BRAKE,
        GPU_REASON_SW_THERMAL,
        GPU_REASON_SW_POWER_CAP,
        GPU_REASON_SYNC_BOOST,
        GPU_REASON_COUNT
};
extern const char *const gpu_nvml_reason_names[GPU_REASON_COUNT];
/* The bit of each reason in nvmlDeviceGetCurrentClocksEventReasons(). */
extern const unsigned long long gpu_nvml_reason_bits[GPU_REASON_COUNT];

/* Accumulated counters, read before and after a run. */
struct gpu_nvml_counters {
        bool has_reason_ns[GPU_REASON_COUNT];
        unsigned long long reason_ns[GPU_REASON_COUNT];  /* held back, ns */
        bool has_ecc[2][2];                  /* [corrected, uncorrected][volatile, aggregate] */
        unsigned long long ecc[2][2];
        bool has_remapped;
        unsigned remapped_corrected, remapped_uncorrected, remapped_pending, remapped_failure;
        bool has_replay;
        unsigned replay;
        unsigned unreadable; /* reads that failed otherwise than NOT_SUPPORTED */
};

/* One look during a run. */
struct gpu_nvml_sample {
        bool has_reasons, has_sm_clock, has_temperature;
        unsigned long long reasons;
        unsigned sm_mhz, celsius;
};

/* What a GPU is, for benchwatch_gpu_info and to find it in CUDA. */
struct gpu_nvml_info {
        char uuid[GPU_NVML_DEVICE_UUID_V2_BUFFER_SIZE];
        char name[GPU_NVML_DEVICE_NAME_V2_BUFFER_SIZE];
        char driver[GPU_NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE];
        char bus_id[32];
        unsigned domain, bus, device;
        unsigned long long memory_bytes;
};

struct gpu_nvml {
        struct gpu_nvml_api api;
        nvmlDevice_t dev;
        unsigned index;
        nvmlEventSet_t events;
        bool has_events;
        unsigned event_field_base;  /* gpu_nvml_event_field_base() of this NVML */
};

/* The first of the three clock event fields whose number changed
 * (GPU_NVML_FI_EVENTS_12_9 or _13_1) for the version string of
 * nvmlSystemGetNVMLVersion() ("13.580.65.06": NVML 13, driver 580); 0
 * where that NVML has none of them, or the string is not understood. */
unsigned gpu_nvml_event_field_base(const char *nvml_version);
/* Opens libnvidia-ml.so.1 and initialises NVML: -ENODEV, -ENOSYS or
 * -EIO with *ret_why (malloc'd). */
int gpu_nvml_open(struct gpu_nvml *ret, char **ret_why);
/* Whether the host has a GPU for the probe (`check`: NVML opened, looked
 * at, shut down; NVML makes no context, unlike cuInit): -ENODEV with
 * *ret_why, malloc'd, where it has none: "no NVIDIA driver (...)", "no
 * NVIDIA driver loaded (nvmlInit: Driver Not Loaded)", "no usable GPU
 * (the NVIDIA driver sees none)"; 0 otherwise, NVML failing another way
 * included (a fault of a GPU host, which `run` shows). */
int gpu_nvml_usable(char **ret_why);
/* nvmlShutdown and forget (the library stays loaded). */
void gpu_nvml_close(struct gpu_nvml *n);
/* How many GPUs NVML sees. */
int gpu_nvml_count(struct gpu_nvml *n, unsigned *ret, char **ret_why);
/* Selects GPU `index`, and asks for its Xid events where it can. */
int gpu_nvml_select(struct gpu_nvml *n, unsigned index, char **ret_why);
int gpu_nvml_info(struct gpu_nvml *n, struct gpu_nvml_info *ret, char **ret_why);
/* The pids of the compute and graphics processes on the GPU (at most
 * max), their count in *ret_n: 0; 1 where more processes are on it than
 * NVML lists at once (their pids unknown, not in pids); or -EIO with
 * *ret_why. */
int gpu_nvml_processes(struct gpu_nvml *n, unsigned *pids, unsigned max, unsigned *ret_n,
                       char **ret_why);
/* The GPU's utilisation over NVML's last sample period, percent. */
int gpu_nvml_utilization(struct gpu_nvml *n, unsigned *ret_percent, char **ret_why);
void gpu_nvml_read_counters(struct gpu_nvml *n, struct gpu_nvml_counters *ret);
void gpu_nvml_sample(struct gpu_nvml *n, struct gpu_nvml_sample *ret);
/* The Xid errors NVML reported since the last call (none when the GPU
 * cannot tell them): how many, and the last one's code. */
unsigned gpu_nvml_xids(struct gpu_nvml *n, unsigned long long *ret_last);
/* 0 and the value, or -ENODATA where the GPU does not tell it. */
int gpu_nvml_max_sm_mhz(struct gpu_nvml *n, unsigned *ret);
int gpu_nvml_power_limits(struct gpu_nvml *n, double *ret_enforced_w, double *ret_default_w);
int gpu_nvml_pcie_link(struct gpu_nvml *n, bool max, unsigned *ret_gen, unsigned *ret_width);
/* "NVML_ERROR_..." text of a return code (NVML's own words). */
const char *gpu_nvml_error(const struct gpu_nvml *n, nvmlReturn_t r);

#endif
