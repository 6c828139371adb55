/* gpu_nvml.c — see gpu_nvml.h. */
#include "gpu_nvml.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_cuda.h"
#include "util/strutil.h"

#define LIBNVML "libnvidia-ml.so.1"

const char *const gpu_nvml_reason_names[GPU_REASON_COUNT] = {
        [GPU_REASON_HW_SLOWDOWN] = "hw_slowdown",
        [GPU_REASON_HW_THERMAL] = "hw_thermal",
        [GPU_REASON_HW_POWER_BRAKE] = "hw_power_brake",
        [GPU_REASON_SW_THERMAL] = "sw_thermal",
        [GPU_REASON_SW_POWER_CAP] = "sw_power_cap",
        [GPU_REASON_SYNC_BOOST] = "sync_boost",
};

/* nvmlClocksEventReason* of nvml.h */
const unsigned long long gpu_nvml_reason_bits[GPU_REASON_COUNT] = {
        [GPU_REASON_HW_SLOWDOWN] = 0x8,
        [GPU_REASON_HW_THERMAL] = 0x40,
        [GPU_REASON_HW_POWER_BRAKE] = 0x80,
        [GPU_REASON_SW_THERMAL] = 0x20,
        [GPU_REASON_SW_POWER_CAP] = 0x4,
        [GPU_REASON_SYNC_BOOST] = 0x10,
};

/* Each reason's accumulated nanoseconds: an NVML field (0: none, HW
 * slowdown has no counter of its own; VERSIONED(i): the i-th of the three
 * that each NVML version numbers its own way, gpu_nvml.h), and the older
 * nvmlDeviceGetViolationStatus() policy for the same time (-1: none). */
#define VERSIONED(i) (1000u + (i))
static const struct { unsigned field; int policy; } reason_counter[GPU_REASON_COUNT] = {
        [GPU_REASON_HW_SLOWDOWN] = { 0, -1 },
        [GPU_REASON_HW_THERMAL] = { VERSIONED(1), -1 },     /* ..._HW_THERM_SLOWDOWN */
        [GPU_REASON_HW_POWER_BRAKE] = { VERSIONED(2), -1 }, /* ..._HW_POWER_BRAKE_SLOWDOWN */
        [GPU_REASON_SW_THERMAL] = { VERSIONED(0), 1 },      /* ..._SW_THERM_SLOWDOWN, THERMAL */
        [GPU_REASON_SW_POWER_CAP] = { 74, 0 },              /* ..._SW_POWER_CAP, POWER */
        [GPU_REASON_SYNC_BOOST] = { 76, 2 },                /* ..._SYNC_BOOST, SYNC_BOOST */
};

unsigned gpu_nvml_event_field_base(const char *nvml_version)
{
        /* "13.580.65.06": NVML's major version, then the driver's */
        const char *dot = nvml_version ? strchr(nvml_version, '.') : NULL;
        char *end;
        unsigned long branch = dot ? strtoul(dot + 1, &end, 10) : 0;
        if (!dot || end == dot + 1 || (*end && *end != '.'))
                return 0;
        return branch >= 590 ? GPU_NVML_FI_EVENTS_13_1 : branch >= 575 ? GPU_NVML_FI_EVENTS_12_9
                                                                       : 0;
}

#define SYM(field, name, required) { (void **)&api->field, name, NULL, required }
#define SYM2(field, name, old) { (void **)&api->field, name, old, false }

static int lookup(struct gpu_nvml_api *api, char **ret_why)
{
        const struct { void **p; const char *name, *fallback; bool required; } syms[] = {
                SYM(init, "nvmlInit_v2", true), SYM(shutdown, "nvmlShutdown", true),
                SYM(error_string, "nvmlErrorString", true),
                SYM(system_get_driver_version, "nvmlSystemGetDriverVersion", true),
                SYM(system_get_nvml_version, "nvmlSystemGetNVMLVersion", false),
                SYM(device_get_count, "nvmlDeviceGetCount_v2", true),
                SYM(device_get_handle_by_index, "nvmlDeviceGetHandleByIndex_v2", true),
                SYM(device_get_uuid, "nvmlDeviceGetUUID", true),
                SYM(device_get_name, "nvmlDeviceGetName", true),
                SYM(device_get_memory_info, "nvmlDeviceGetMemoryInfo", true),
                SYM(device_get_pci_info, "nvmlDeviceGetPciInfo_v3", true),
                SYM(device_get_compute_running_processes,
                    "nvmlDeviceGetComputeRunningProcesses_v3", true),
                SYM(device_get_graphics_running_processes,
                    "nvmlDeviceGetGraphicsRunningProcesses_v3", true),
                SYM(device_get_utilization_rates, "nvmlDeviceGetUtilizationRates", true),
                SYM2(device_get_current_clocks_event_reasons,
                     "nvmlDeviceGetCurrentClocksEventReasons",
                     "nvmlDeviceGetCurrentClocksThrottleReasons"),
                SYM(device_get_field_values, "nvmlDeviceGetFieldValues", false),
                SYM(device_get_violation_status, "nvmlDeviceGetViolationStatus", false),
                SYM(device_get_clock_info, "nvmlDeviceGetClockInfo", false),
                SYM(device_get_max_clock_info, "nvmlDeviceGetMaxClockInfo", false),
                SYM(device_get_temperature, "nvmlDeviceGetTemperature", false),
                SYM(device_get_enforced_power_limit, "nvmlDeviceGetEnforcedPowerLimit", false),
                SYM(device_get_power_management_default_limit,
                    "nvmlDeviceGetPowerManagementDefaultLimit", false),
                SYM(device_get_total_ecc_errors, "nvmlDeviceGetTotalEccErrors", false),
                SYM(device_get_remapped_rows, "nvmlDeviceGetRemappedRows", false),
                SYM(device_get_pcie_replay_counter, "nvmlDeviceGetPcieReplayCounter", false),
                SYM(device_get_curr_pcie_link_generation,
                    "nvmlDeviceGetCurrPcieLinkGeneration", false),
                SYM(device_get_curr_pcie_link_width, "nvmlDeviceGetCurrPcieLinkWidth", false),
                SYM(device_get_max_pcie_link_generation,
                    "nvmlDeviceGetMaxPcieLinkGeneration", false),
                SYM(device_get_max_pcie_link_width, "nvmlDeviceGetMaxPcieLinkWidth", false),
                SYM(event_set_create, "nvmlEventSetCreate", false),
                SYM(device_register_events, "nvmlDeviceRegisterEvents", false),
                SYM(event_set_wait, "nvmlEventSetWait_v2", false),
                SYM(event_set_free, "nvmlEventSetFree", false),
        };
        for (size_t i = 0; i < sizeof(syms) / sizeof(syms[0]); i++) {
                *syms[i].p = dlsym(api->dl, syms[i].name);
                if (!*syms[i].p && syms[i].fallback)
                        *syms[i].p = dlsym(api->dl, syms[i].fallback);
                if (!*syms[i].p && syms[i].required) {
                        *ret_why = str_printf("%s has no %s: a driver too old for "
                                              "benchwatch", LIBNVML, syms[i].name);
                        return -ENOSYS;
                }
        }
        return 0;
}

#undef SYM
#undef SYM2

const char *gpu_nvml_error(const struct gpu_nvml *n, nvmlReturn_t r)
{
        const char *s = n->api.error_string ? n->api.error_string(r) : NULL;
        return s ? s : "unknown NVML error";
}

int gpu_nvml_open(struct gpu_nvml *ret, char **ret_why)
{
        memset(ret, 0, sizeof(*ret));
        char *path = gpu_cuda_lib_path(LIBNVML);
        ret->api.dl = path ? dlopen(path, RTLD_NOW | RTLD_LOCAL) : NULL;
        free(path);
        if (!ret->api.dl) {
                *ret_why = str_printf("no NVIDIA driver (%s)", dlerror());
                return -ENODEV;
        }
        int r = lookup(&ret->api, ret_why);
        nvmlReturn_t e = r < 0 ? GPU_NVML_SUCCESS : ret->api.init();
        if (r >= 0 && e == GPU_NVML_ERROR_DRIVER_NOT_LOADED) {
                *ret_why = str_printf("no NVIDIA driver loaded (nvmlInit: %s)",
                                      gpu_nvml_error(ret, e));
                r = -ENODEV;
        } else if (r >= 0 && e != GPU_NVML_SUCCESS) {
                *ret_why = str_printf("nvmlInit: %s", gpu_nvml_error(ret, e));
                r = -EIO;
        }
        if (r < 0)
                memset(ret, 0, sizeof(*ret)); /* loaded, never closed (gpu_cuda.c) */
        char version[GPU_NVML_SYSTEM_NVML_VERSION_BUFFER_SIZE];
        if (r >= 0 && ret->api.system_get_nvml_version &&
            ret->api.system_get_nvml_version(version, sizeof(version)) == GPU_NVML_SUCCESS)
                ret->event_field_base = gpu_nvml_event_field_base(version);
        return r;
}

int gpu_nvml_usable(char **ret_why)
{
        struct gpu_nvml n;
        unsigned count = 0;
        char *why = NULL;
        int r = gpu_nvml_open(&n, &why);
        if (r >= 0) {
                r = gpu_nvml_count(&n, &count, &why);
                gpu_nvml_close(&n);
                if (r >= 0 && count == 0) {
                        *ret_why = strdup("no usable GPU (the NVIDIA driver sees none)");
                        return *ret_why ? -ENODEV : -ENOMEM;
                }
        }
        if (r == -ENODEV) { /* no driver, or its module not loaded */
                *ret_why = why;
                return -ENODEV;
        }
        /* NVML that fails otherwise (a library and module of two versions,
         * a GPU lost, no permission for its device nodes) is a fault of a
         * GPU host: `run` fails with it, where it shows */
        free(why);
        return 0;
}

void gpu_nvml_close(struct gpu_nvml *n)
{
        if (n->has_events && n->api.event_set_free)
                n->api.event_set_free(n->events);
        if (n->api.shutdown)
                n->api.shutdown();
        memset(n, 0, sizeof(*n));
}

int gpu_nvml_count(struct gpu_nvml *n, unsigned *ret, char **ret_why)
{
        nvmlReturn_t e = n->api.device_get_count(ret);
        if (e == GPU_NVML_SUCCESS)
                return 0;
        *ret_why = str_printf("nvmlDeviceGetCount: %s", gpu_nvml_error(n, e));
        return -EIO;
}

int gpu_nvml_select(struct gpu_nvml *n, unsigned index, char **ret_why)
{
        nvmlReturn_t e = n->api.device_get_handle_by_index(index, &n->dev);
        if (e != GPU_NVML_SUCCESS) {
                *ret_why = str_printf("GPU %u: nvmlDeviceGetHandleByIndex: %s", index,
                                      gpu_nvml_error(n, e));
                return -EIO;
        }
        n->index = index;
        const struct gpu_nvml_api *a = &n->api;
        if (!a->event_set_create || !a->device_register_events || !a->event_set_wait ||
            !a->event_set_free || a->event_set_create(&n->events) != GPU_NVML_SUCCESS)
                return 0;
        n->has_events = true;
        if (a->device_register_events(n->dev, GPU_NVML_EVENT_XID_CRITICAL_ERROR,
                                      n->events) != GPU_NVML_SUCCESS) {
                a->event_set_free(n->events);
                n->has_events = false; /* NOT_SUPPORTED: no Xid figure */
        }
        return 0;
}

int gpu_nvml_info(struct gpu_nvml *n, struct gpu_nvml_info *ret, char **ret_why)
{
        const struct gpu_nvml_api *a = &n->api;
        nvmlMemory_t mem;
        nvmlPciInfo_t pci;
        nvmlReturn_t e;
        const char *what = "nvmlDeviceGetUUID";
        memset(ret, 0, sizeof(*ret));
        if ((e = a->device_get_uuid(n->dev, ret->uuid, sizeof(ret->uuid))) ||
            (what = "nvmlDeviceGetName",
             e = a->device_get_name(n->dev, ret->name, sizeof(ret->name))) ||
            (what = "nvmlSystemGetDriverVersion",
             e = a->system_get_driver_version(ret->driver, sizeof(ret->driver))) ||
            (what = "nvmlDeviceGetMemoryInfo", e = a->device_get_memory_info(n->dev, &mem)) ||
            (what = "nvmlDeviceGetPciInfo", e = a->device_get_pci_info(n->dev, &pci))) {
                *ret_why = str_printf("GPU %u: %s: %s", n->index, what, gpu_nvml_error(n, e));
                return -EIO;
        }
        ret->memory_bytes = mem.total;
        ret->domain = pci.domain;
        ret->bus = pci.bus;
        ret->device = pci.device;
        snprintf(ret->bus_id, sizeof(ret->bus_id), "%.*s", (int)sizeof(pci.busId) - 1,
                 pci.busId);
        return 0;
}

/* Appends one kind of process to pids; 1 where there are more than NVML
 * lists at once (INSUFFICIENT_SIZE: info[] not filled, none appended). */
static int list_processes(struct gpu_nvml *n, bool compute, unsigned *pids, unsigned max,
                          unsigned *at, char **ret_why)
{
        nvmlProcessInfo_t info[64];
        unsigned count = sizeof(info) / sizeof(info[0]);
        nvmlReturn_t e = (compute ? n->api.device_get_compute_running_processes
                                  : n->api.device_get_graphics_running_processes)(
                n->dev, &count, info);
        if (e == GPU_NVML_ERROR_INSUFFICIENT_SIZE)
                return 1; /* more than 64: busy enough */
        else if (e == GPU_NVML_ERROR_NOT_SUPPORTED && !compute)
                count = 0; /* a compute-only GPU (H100, H200) */
        else if (e != GPU_NVML_SUCCESS) {
                *ret_why = str_printf("GPU %u: nvmlDeviceGet%sRunningProcesses: %s", n->index,
                                      compute ? "Compute" : "Graphics", gpu_nvml_error(n, e));
                return -EIO;
        }
        for (unsigned i = 0; i < count && *at < max; i++) {
                bool seen = false;
                for (unsigned k = 0; k < *at && !seen; k++)
                        seen = pids[k] == info[i].pid;
                if (!seen)
                        pids[(*at)++] = info[i].pid;
        }
        return 0;
}

int gpu_nvml_processes(struct gpu_nvml *n, unsigned *pids, unsigned max, unsigned *ret_n,
                       char **ret_why)
{
        unsigned at = 0;
        int r = list_processes(n, true, pids, max, &at, ret_why), more = r > 0;
        if (r >= 0)
                r = list_processes(n, false, pids, max, &at, ret_why);
        if (r >= 0)
                *ret_n = at;
        return r < 0 ? r : more || r > 0;
}

int gpu_nvml_utilization(struct gpu_nvml *n, unsigned *ret_percent, char **ret_why)
{
        nvmlUtilization_t u;
        nvmlReturn_t e = n->api.device_get_utilization_rates(n->dev, &u);
        if (e == GPU_NVML_SUCCESS) {
                *ret_percent = u.gpu;
                return 0;
        }
        if (e == GPU_NVML_ERROR_NOT_SUPPORTED)
                return -ENODATA;
        *ret_percent = 0;
        *ret_why = str_printf("GPU %u: nvmlDeviceGetUtilizationRates: %s", n->index,
                              gpu_nvml_error(n, e));
        return -EIO;
}

static void read_reason_counters(struct gpu_nvml *n, struct gpu_nvml_counters *c)
{
        const struct gpu_nvml_api *a = &n->api;
        nvmlFieldValue_t f[GPU_REASON_COUNT];
        int nf = 0, at[GPU_REASON_COUNT];
        memset(f, 0, sizeof(f));
        for (int i = 0; i < GPU_REASON_COUNT; i++) {
                unsigned id = reason_counter[i].field;
                if (id >= VERSIONED(0)) /* none where this NVML has none */
                        id = n->event_field_base ? n->event_field_base + id - VERSIONED(0) : 0;
                at[i] = id ? nf : -1;
                if (id)
                        f[nf++].fieldId = id;
        }
        bool fields = nf && a->device_get_field_values &&
                      a->device_get_field_values(n->dev, nf, f) == GPU_NVML_SUCCESS;
        for (int i = 0; i < GPU_REASON_COUNT; i++) {
                nvmlViolationTime_t v;
                if (fields && at[i] >= 0 && f[at[i]].nvmlReturn == GPU_NVML_SUCCESS) {
                        c->has_reason_ns[i] = true;
                        c->reason_ns[i] = f[at[i]].value.ullVal;
                } else if (reason_counter[i].policy >= 0 && a->device_get_violation_status &&
                           a->device_get_violation_status(n->dev, reason_counter[i].policy,
                                                          &v) == GPU_NVML_SUCCESS) {
                        c->has_reason_ns[i] = true;
                        c->reason_ns[i] = v.violationTime;
                }
        }
}

/* Whether a counter's read succeeded; one that failed otherwise than "not
 * supported" is counted as unreadable (the GPU has it: its count is kept
 * from the previous run, gpu_health.c). */
static bool read_ok(int rc, struct gpu_nvml_counters *c)
{
        c->unreadable += rc != GPU_NVML_SUCCESS && rc != GPU_NVML_ERROR_NOT_SUPPORTED;
        return rc == GPU_NVML_SUCCESS;
}

void gpu_nvml_read_counters(struct gpu_nvml *n, struct gpu_nvml_counters *ret)
{
        const struct gpu_nvml_api *a = &n->api;
        memset(ret, 0, sizeof(*ret));
        read_reason_counters(n, ret);
        for (int t = 0; t < 2 && a->device_get_total_ecc_errors; t++)
                for (int k = 0; k < 2; k++)
                        ret->has_ecc[t][k] = read_ok(a->device_get_total_ecc_errors(
                                n->dev, t, k, &ret->ecc[t][k]), ret);
        ret->has_remapped = a->device_get_remapped_rows &&
                            read_ok(a->device_get_remapped_rows(n->dev, &ret->remapped_corrected,
                                                                &ret->remapped_uncorrected,
                                                                &ret->remapped_pending,
                                                                &ret->remapped_failure), ret);
        ret->has_replay = a->device_get_pcie_replay_counter &&
                          read_ok(a->device_get_pcie_replay_counter(n->dev, &ret->replay), ret);
}

void gpu_nvml_sample(struct gpu_nvml *n, struct gpu_nvml_sample *ret)
{
        const struct gpu_nvml_api *a = &n->api;
        memset(ret, 0, sizeof(*ret));
        ret->has_reasons = a->device_get_current_clocks_event_reasons &&
                           a->device_get_current_clocks_event_reasons(n->dev, &ret->reasons) ==
                                   GPU_NVML_SUCCESS;
        ret->has_sm_clock = a->device_get_clock_info &&
                            a->device_get_clock_info(n->dev, GPU_NVML_CLOCK_SM,
                                                     &ret->sm_mhz) == GPU_NVML_SUCCESS;
        ret->has_temperature = a->device_get_temperature &&
                               a->device_get_temperature(n->dev, GPU_NVML_TEMPERATURE_GPU,
                                                         &ret->celsius) == GPU_NVML_SUCCESS;
}

unsigned gpu_nvml_xids(struct gpu_nvml *n, unsigned long long *ret_last)
{
        unsigned count = 0;
        nvmlEventData_t d;
        /* a bounded drain: a GPU that keeps failing does not hold the run */
        while (n->has_events && count < 1000 &&
               n->api.event_set_wait(n->events, &d, 0) == GPU_NVML_SUCCESS)
                if (d.eventType & GPU_NVML_EVENT_XID_CRITICAL_ERROR) {
                        count++;
                        *ret_last = d.eventData;
                }
        return count;
}

int gpu_nvml_max_sm_mhz(struct gpu_nvml *n, unsigned *ret)
{
        return n->api.device_get_max_clock_info &&
                               n->api.device_get_max_clock_info(n->dev, GPU_NVML_CLOCK_SM, ret) ==
                                       GPU_NVML_SUCCESS
                       ? 0
                       : -ENODATA;
}

int gpu_nvml_power_limits(struct gpu_nvml *n, double *ret_enforced_w, double *ret_default_w)
{
        const struct gpu_nvml_api *a = &n->api;
        unsigned enforced, def;
        if (!a->device_get_enforced_power_limit || !a->device_get_power_management_default_limit ||
            a->device_get_enforced_power_limit(n->dev, &enforced) != GPU_NVML_SUCCESS ||
            a->device_get_power_management_default_limit(n->dev, &def) != GPU_NVML_SUCCESS)
                return -ENODATA;
        *ret_enforced_w = enforced / 1000.0;
        *ret_default_w = def / 1000.0;
        return 0;
}

int gpu_nvml_pcie_link(struct gpu_nvml *n, bool max, unsigned *ret_gen, unsigned *ret_width)
{
        const struct gpu_nvml_api *a = &n->api;
        nvmlReturn_t (*gen)(nvmlDevice_t, unsigned *) =
                max ? a->device_get_max_pcie_link_generation
                    : a->device_get_curr_pcie_link_generation;
        nvmlReturn_t (*width)(nvmlDevice_t, unsigned *) =
                max ? a->device_get_max_pcie_link_width : a->device_get_curr_pcie_link_width;
        unsigned g, w;
        if (!gen || !width || gen(n->dev, &g) != GPU_NVML_SUCCESS ||
            width(n->dev, &w) != GPU_NVML_SUCCESS)
                return -ENODATA;
        *ret_gen = g;
        *ret_width = w;
        return 0;
}
