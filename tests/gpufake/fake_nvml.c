/* fake_nvml.c — a recording fake of the NVML entry points the gpu plugin
 * reads (libnvidia-ml.so.1), under their versioned names.  It has no
 * setter, no reset: a plugin that looked one up would fail here.  See
 * fakegpu.h. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fakegpu.h"

typedef int nvmlReturn_t;
typedef struct {
        struct nvmlDevice_st *handle;
} nvmlDevice_t;
typedef struct {
        struct nvmlEventSet_st *handle;
} nvmlEventSet_t;
typedef struct {
        unsigned int pid;
        unsigned long long usedGpuMemory;
        unsigned int gpuInstanceId, computeInstanceId;
} nvmlProcessInfo_t;
typedef struct {
        unsigned int gpu, memory;
} nvmlUtilization_t;
typedef struct {
        unsigned long long total, free, used;
} nvmlMemory_t;
typedef struct {
        char busIdLegacy[16];
        unsigned int domain, bus, device, pciDeviceId, pciSubSystemId;
        char busId[32];
} nvmlPciInfo_t;
typedef struct {
        unsigned long long referenceTime, violationTime;
} nvmlViolationTime_t;
typedef struct {
        unsigned int fieldId, scopeId;
        long long timestamp, latencyUsec;
        int valueType;
        nvmlReturn_t nvmlReturn;
        union {
                double dVal;
                unsigned long long ullVal;
        } value;
} nvmlFieldValue_t;
typedef struct {
        nvmlDevice_t device;
        unsigned long long eventType, eventData;
        unsigned int gpuInstanceId, computeInstanceId;
} nvmlEventData_t;

#define OK 0
#define E_INVALID_ARGUMENT 2
#define E_NOT_SUPPORTED 3
#define E_INSUFFICIENT_SIZE 7
#define E_DRIVER_NOT_LOADED 9
#define E_TIMEOUT 10
#define E_UNKNOWN 999
#define EXPORT __attribute__((visibility("default")))

#define CALL(name) \
        do { \
                if (fakegpu_call(name)) \
                        return E_UNKNOWN; \
                if (fakegpu_not_supported(name)) \
                        return E_NOT_SUPPORTED; \
        } while (0)

static bool initialised;
static unsigned registered;

static int gpu_of(nvmlDevice_t d)
{
        unsigned i = (unsigned)(uintptr_t)d.handle;
        return initialised && i >= 1 && i <= fakegpu.count ? (int)i - 1 : -1;
}

#define DEV(d) \
        do { \
                if (gpu_of(d) < 0) \
                        return E_INVALID_ARGUMENT; \
        } while (0)

EXPORT nvmlReturn_t nvmlInit_v2(void)
{
        CALL("nvmlInit_v2");
        const char *not_loaded = getenv("FAKEGPU_DRIVER_NOT_LOADED");
        if (not_loaded && !strcmp(not_loaded, "1"))
                return E_DRIVER_NOT_LOADED;
        fakegpu_setup();
        fakegpu.t0_ns = fakegpu_now_ns();
        fakegpu.process_calls = 0;
        fakegpu.util_calls = 0;
        fakegpu.xid_sent = false;
        fakegpu.smoothing_read = false;
        fakegpu.samples = fakegpu.samples_busy = 0;
        initialised = true;
        registered = 0;
        return OK;
}

EXPORT nvmlReturn_t nvmlShutdown(void)
{
        CALL("nvmlShutdown");
        initialised = false;
        return OK;
}

EXPORT const char *nvmlErrorString(nvmlReturn_t r)
{
        return r == E_NOT_SUPPORTED ? "Not Supported" : r == E_UNKNOWN ? "Unknown Error"
               : r == E_INVALID_ARGUMENT ? "Invalid Argument" : "Fake Error";
}

EXPORT nvmlReturn_t nvmlSystemGetDriverVersion(char *v, unsigned int len)
{
        CALL("nvmlSystemGetDriverVersion");
        snprintf(v, len, "580.65.06");
        return OK;
}

EXPORT nvmlReturn_t nvmlSystemGetNVMLVersion(char *v, unsigned int len)
{
        CALL("nvmlSystemGetNVMLVersion");
        snprintf(v, len, "%s", fakegpu.nvml_version);
        return OK;
}

EXPORT nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *n)
{
        CALL("nvmlDeviceGetCount_v2");
        *n = fakegpu.count;
        return OK;
}

EXPORT nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int i, nvmlDevice_t *d)
{
        CALL("nvmlDeviceGetHandleByIndex_v2");
        if (i >= fakegpu.count)
                return E_INVALID_ARGUMENT;
        d->handle = (struct nvmlDevice_st *)(uintptr_t)(i + 1);
        return OK;
}

EXPORT nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t d, char *s, unsigned int len)
{
        CALL("nvmlDeviceGetUUID");
        DEV(d);
        snprintf(s, len, "GPU-fa4e0000-0000-0000-0000-00000000000%d", gpu_of(d));
        return OK;
}

EXPORT nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t d, char *s, unsigned int len)
{
        CALL("nvmlDeviceGetName");
        DEV(d);
        snprintf(s, len, "NVIDIA H200");
        return OK;
}

EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t d, nvmlMemory_t *m)
{
        CALL("nvmlDeviceGetMemoryInfo");
        DEV(d);
        m->total = fakegpu.mem_total;
        m->used = fakegpu.allocated;
        m->free = m->total - m->used;
        return OK;
}

/* The same PCI location as fake_cuda.c's attributes. */
EXPORT nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t d, nvmlPciInfo_t *p)
{
        CALL("nvmlDeviceGetPciInfo_v3");
        DEV(d);
        memset(p, 0, sizeof(*p));
        p->bus = 0x17 + (unsigned)gpu_of(d);
        snprintf(p->busId, sizeof(p->busId), "00000000:%02X:00.0", p->bus);
        snprintf(p->busIdLegacy, sizeof(p->busIdLegacy), "0000:%02X:00.0", p->bus);
        return OK;
}

EXPORT nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t d, unsigned int *n,
                                                            nvmlProcessInfo_t *info)
{
        CALL("nvmlDeviceGetComputeRunningProcesses_v3");
        DEV(d);
        unsigned pids[3], k = 0;
        fakegpu.process_calls++;
        if (fakegpu.context)
                pids[k++] = fakegpu.self_pid;
        if (fakegpu.busy_pid)
                pids[k++] = fakegpu.busy_pid;
        if (fakegpu.process_after && fakegpu.process_calls >= fakegpu.process_after)
                pids[k++] = 4242;
        if (fakegpu.many_after && fakegpu.process_calls >= fakegpu.many_after) {
                *n = 1000;
                return E_INSUFFICIENT_SIZE;
        }
        if (*n < k) {
                *n = k;
                return E_INSUFFICIENT_SIZE;
        }
        for (unsigned i = 0; i < k; i++)
                info[i] = (nvmlProcessInfo_t){ .pid = pids[i], .usedGpuMemory = 1 << 20,
                                               .gpuInstanceId = 0xffffffffu,
                                               .computeInstanceId = 0xffffffffu };
        *n = k;
        return OK;
}

/* A compute-only GPU, as the H200. */
EXPORT nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses_v3(nvmlDevice_t d, unsigned int *n,
                                                             nvmlProcessInfo_t *info)
{
        CALL("nvmlDeviceGetGraphicsRunningProcesses_v3");
        DEV(d);
        return E_NOT_SUPPORTED;
}

EXPORT nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t d, nvmlUtilization_t *u)
{
        CALL("nvmlDeviceGetUtilizationRates");
        DEV(d);
        fakegpu.util_calls++;
        u->gpu = !fakegpu.util_looks || fakegpu.util_calls <= fakegpu.util_looks ? fakegpu.util
                                                                                  : 0;
        u->memory = 0;
        return OK;
}

EXPORT nvmlReturn_t nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t d,
                                                           unsigned long long *r)
{
        CALL("nvmlDeviceGetCurrentClocksEventReasons");
        DEV(d);
        /* what it shows under load: was work queued and not waited for? */
        fakegpu.samples++;
        fakegpu.samples_busy += fakegpu.kernels_in_flight || fakegpu.copies_in_flight;
        *r = fakegpu.reasons;
        return OK;
}

/* Each reason's counter: its share of the time since nvmlInit. */
static unsigned long long held_ns(int reason)
{
        return (unsigned long long)(fakegpu.held[reason] *
                                    (double)(fakegpu_now_ns() - fakegpu.t0_ns)) +
               1000000000ull * 3600; /* and an hour before this process */
}

/* Which field id is what in the NVML version the fake claims (nvml.h of
 * 12.8, 12.9, 13.0, 13.1): a clock event reason counter (its reason), a
 * power smoothing field (-2), or nothing (-1). */
static int field_meaning(unsigned id)
{
        unsigned driver = 0;
        sscanf(fakegpu.nvml_version, "%*u.%u", &driver);
        unsigned events = driver >= 590 ? 269 : driver >= 575 ? 251 : 0;
        unsigned smoothing_low = driver >= 590 || driver < 575 ? 251 : 0;
        if (id == 74 || id == 76)
                return id == 74 ? 4 : 5;
        if (events && id >= events && id < events + 3)
                return id == events ? 3 : id == events + 1 ? 1 : 2;
        if ((smoothing_low && id >= 251 && id < 254) ||
            (driver >= 575 && driver < 590 && id >= 269 && id < 272))
                return -2;
        return -1;
}

EXPORT nvmlReturn_t nvmlDeviceGetFieldValues(nvmlDevice_t d, int n, nvmlFieldValue_t *v)
{
        CALL("nvmlDeviceGetFieldValues");
        DEV(d);
        for (int i = 0; i < n; i++) {
                int reason = field_meaning(v[i].fieldId);
                v[i].nvmlReturn = fakegpu.no_fields || reason == -1 ? E_NOT_SUPPORTED : OK;
                v[i].valueType = 3; /* unsigned long long */
                if (reason >= 0)
                        v[i].value.ullVal = held_ns(reason);
                if (reason == -2) { /* enabled, a profile, a floor: small and steady */
                        v[i].value.ullVal = 1;
                        fakegpu.smoothing_read = true;
                }
        }
        return OK;
}

EXPORT nvmlReturn_t nvmlDeviceGetViolationStatus(nvmlDevice_t d, int policy,
                                                 nvmlViolationTime_t *t)
{
        CALL("nvmlDeviceGetViolationStatus");
        DEV(d);
        int reason = policy == 0 ? 4 : policy == 1 ? 3 : policy == 2 ? 5 : -1;
        if (reason < 0)
                return E_INVALID_ARGUMENT;
        t->referenceTime = fakegpu_now_ns() / 1000;
        t->violationTime = held_ns(reason);
        return OK;
}

EXPORT nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t d, int type, unsigned int *mhz)
{
        CALL("nvmlDeviceGetClockInfo");
        DEV(d);
        *mhz = fakegpu.sm_mhz;
        return type == 1 ? OK : E_INVALID_ARGUMENT;
}

EXPORT nvmlReturn_t nvmlDeviceGetMaxClockInfo(nvmlDevice_t d, int type, unsigned int *mhz)
{
        CALL("nvmlDeviceGetMaxClockInfo");
        DEV(d);
        *mhz = fakegpu.sm_max_mhz;
        return type == 1 ? OK : E_INVALID_ARGUMENT;
}

EXPORT nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t d, int sensor, unsigned int *c)
{
        CALL("nvmlDeviceGetTemperature");
        DEV(d);
        *c = 41 + fakegpu.launches % 5; /* warms up as it works */
        return sensor == 0 ? OK : E_INVALID_ARGUMENT;
}

EXPORT nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t d, unsigned int *mw)
{
        CALL("nvmlDeviceGetEnforcedPowerLimit");
        DEV(d);
        *mw = fakegpu.power_limit_mw;
        return OK;
}

EXPORT nvmlReturn_t nvmlDeviceGetPowerManagementDefaultLimit(nvmlDevice_t d, unsigned int *mw)
{
        CALL("nvmlDeviceGetPowerManagementDefaultLimit");
        DEV(d);
        *mw = 700000;
        return OK;
}

EXPORT nvmlReturn_t nvmlDeviceGetTotalEccErrors(nvmlDevice_t d, int type, int counter,
                                                unsigned long long *n)
{
        CALL("nvmlDeviceGetTotalEccErrors");
        DEV(d);
        if (type < 0 || type > 1 || counter < 0 || counter > 1)
                return E_INVALID_ARGUMENT;
        *n = fakegpu.ecc[type];
        return OK;
}

EXPORT nvmlReturn_t nvmlDeviceGetRemappedRows(nvmlDevice_t d, unsigned int *cor,
                                              unsigned int *unc, unsigned int *pending,
                                              unsigned int *failure)
{
        CALL("nvmlDeviceGetRemappedRows");
        DEV(d);
        *cor = fakegpu.remapped[0];
        *unc = fakegpu.remapped[1];
        *pending = fakegpu.remapped[2];
        *failure = fakegpu.remapped[3];
        return OK;
}

EXPORT nvmlReturn_t nvmlDeviceGetPcieReplayCounter(nvmlDevice_t d, unsigned int *n)
{
        CALL("nvmlDeviceGetPcieReplayCounter");
        DEV(d);
        *n = fakegpu.replay;
        return OK;
}

/* The link trains up only while copies are in flight. */
EXPORT nvmlReturn_t nvmlDeviceGetCurrPcieLinkGeneration(nvmlDevice_t d, unsigned int *g)
{
        CALL("nvmlDeviceGetCurrPcieLinkGeneration");
        DEV(d);
        *g = fakegpu.copies_in_flight ? fakegpu.pcie[0] : fakegpu.pcie_idle[0];
        return OK;
}

EXPORT nvmlReturn_t nvmlDeviceGetCurrPcieLinkWidth(nvmlDevice_t d, unsigned int *w)
{
        CALL("nvmlDeviceGetCurrPcieLinkWidth");
        DEV(d);
        *w = fakegpu.copies_in_flight ? fakegpu.pcie[1] : fakegpu.pcie_idle[1];
        return OK;
}

EXPORT nvmlReturn_t nvmlDeviceGetMaxPcieLinkGeneration(nvmlDevice_t d, unsigned int *g)
{
        CALL("nvmlDeviceGetMaxPcieLinkGeneration");
        DEV(d);
        *g = fakegpu.pcie_max[0];
        return OK;
}

EXPORT nvmlReturn_t nvmlDeviceGetMaxPcieLinkWidth(nvmlDevice_t d, unsigned int *w)
{
        CALL("nvmlDeviceGetMaxPcieLinkWidth");
        DEV(d);
        *w = fakegpu.pcie_max[1];
        return OK;
}

EXPORT nvmlReturn_t nvmlEventSetCreate(nvmlEventSet_t *s)
{
        CALL("nvmlEventSetCreate");
        s->handle = (struct nvmlEventSet_st *)(uintptr_t)0xe5e7;
        return OK;
}

EXPORT nvmlReturn_t nvmlDeviceRegisterEvents(nvmlDevice_t d, unsigned long long types,
                                             nvmlEventSet_t s)
{
        CALL("nvmlDeviceRegisterEvents");
        DEV(d);
        registered = (unsigned)types;
        return types == 8 ? OK : E_NOT_SUPPORTED;
}

EXPORT nvmlReturn_t nvmlEventSetWait_v2(nvmlEventSet_t s, nvmlEventData_t *e, unsigned int ms)
{
        CALL("nvmlEventSetWait_v2");
        if (!(registered & 8) || !fakegpu.xid || fakegpu.xid_sent || !fakegpu.context)
                return E_TIMEOUT;
        fakegpu.xid_sent = true;
        memset(e, 0, sizeof(*e));
        e->eventType = 8;
        e->eventData = fakegpu.xid;
        return OK;
}

EXPORT nvmlReturn_t nvmlEventSetFree(nvmlEventSet_t s)
{
        CALL("nvmlEventSetFree");
        return OK;
}
