/* fakegpu.c — the fakes' shared state, read from the environment, and
 * the record of calls (see fakegpu.h). */
#include "fakegpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct fakegpu fakegpu;

/* For the tests: the fake's state, through dlsym(). */
const struct fakegpu *fakegpu_state(void);
__attribute__((visibility("default"))) const struct fakegpu *fakegpu_state(void)
{
        return &fakegpu;
}

uint64_t fakegpu_now_ns(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static double env_double(const char *name, double def)
{
        const char *s = getenv(name);
        char *end;
        double v = s && *s ? strtod(s, &end) : def;
        return s && *s && *end ? def : v;
}

static void env_pair(const char *name, unsigned *v, unsigned n, unsigned a, unsigned b)
{
        const char *s = getenv(name);
        v[0] = a;
        v[1] = b;
        for (unsigned i = 0; s && *s && i < n; i++) {
                v[i] = (unsigned)strtoul(s, (char **)&s, 10);
                if (*s == ',')
                        s++;
        }
}

static void env_held(void)
{
        static const char *const names[6] = { "hw_slowdown", "hw_thermal", "hw_power_brake",
                                              "sw_thermal", "sw_power_cap", "sync_boost" };
        const char *s = getenv("FAKEGPU_HELD");
        memset(fakegpu.held, 0, sizeof(fakegpu.held));
        while (s && *s) {
                for (int i = 0; i < 6; i++) {
                        size_t n = strlen(names[i]);
                        if (!strncmp(s, names[i], n) && s[n] == '=')
                                fakegpu.held[i] = strtod(s + n + 1, NULL);
                }
                s = strchr(s, ',');
                s = s ? s + 1 : NULL;
        }
}

void fakegpu_setup(void)
{
        struct fakegpu *f = &fakegpu;
        unsigned e[2], rm[4] = { 0 };
        const char *s;
        f->count = (unsigned)env_double("FAKEGPU_COUNT", 1);
        f->mem_total = (uint64_t)env_double("FAKEGPU_MEM_TOTAL", 1 << 30);
        f->l2_bytes = (unsigned)env_double("FAKEGPU_L2_BYTES", 4 << 20);
        f->cc_major = (int)env_double("FAKEGPU_CC_MAJOR", 9);
        f->copy_bps = env_double("FAKEGPU_COPY_BPS", 2e12);
        f->triad_bps = env_double("FAKEGPU_TRIAD_BPS", 2.5e12);
        f->flops = env_double("FAKEGPU_FLOPS", 1e12);
        f->lt_first_s = env_double("FAKEGPU_LT_FIRST_S", 0);
        f->lt_loaded = false;
        f->h2d_bps = env_double("FAKEGPU_H2D_BPS", 50e9);
        f->d2h_bps = env_double("FAKEGPU_D2H_BPS", 40e9);
        f->busy_pid = (unsigned)env_double("FAKEGPU_BUSY_PID", 0);
        f->process_after = (unsigned)env_double("FAKEGPU_PROCESS_AFTER", 0);
        f->many_after = (unsigned)env_double("FAKEGPU_MANY_PROCESSES", 0);
        f->self_pid = (unsigned)env_double("FAKEGPU_SELF_PID", getpid());
        f->util = (unsigned)env_double("FAKEGPU_UTIL", 0);
        f->util_looks = (unsigned)env_double("FAKEGPU_UTIL_LOOKS", 0);
        f->reasons = (unsigned long long)env_double("FAKEGPU_REASONS", 0);
        f->no_fields = env_double("FAKEGPU_NO_FIELDS", 0) != 0;
        s = getenv("FAKEGPU_NVML_VERSION");
        snprintf(f->nvml_version, sizeof(f->nvml_version), "%s",
                 s && *s ? s : "13.580.65.06");
        f->sm_mhz = (unsigned)env_double("FAKEGPU_SM_MHZ", 1980);
        f->sm_max_mhz = (unsigned)env_double("FAKEGPU_SM_MAX_MHZ", 1980);
        f->power_limit_mw = (unsigned)(env_double("FAKEGPU_POWER_LIMIT_W", 700) * 1000);
        env_pair("FAKEGPU_ECC", e, 2, 0, 0);
        f->ecc[0] = e[0];
        f->ecc[1] = e[1];
        s = getenv("FAKEGPU_REMAPPED");
        for (int i = 0; s && *s && i < 4; i++) {
                rm[i] = (unsigned)strtoul(s, (char **)&s, 10);
                if (*s == ',')
                        s++;
        }
        memcpy(f->remapped, rm, sizeof(rm));
        f->replay = (unsigned)env_double("FAKEGPU_REPLAY", 0);
        f->xid = (unsigned)env_double("FAKEGPU_XID", 0);
        env_pair("FAKEGPU_PCIE", f->pcie, 2, 5, 16);
        env_pair("FAKEGPU_PCIE_IDLE", f->pcie_idle, 2, 1, 16);
        env_pair("FAKEGPU_PCIE_MAX", f->pcie_max, 2, 5, 16);
        env_held();
}

static bool listed(const char *var, const char *name)
{
        const char *s = getenv(var);
        size_t n = strlen(name);
        for (; s && *s; s += strcspn(s, ",") + (s[strcspn(s, ",")] ? 1 : 0))
                if (!strncmp(s, name, n) && (s[n] == ',' || !s[n]))
                        return true;
        return false;
}

bool fakegpu_call(const char *name)
{
        const char *log = getenv("FAKEGPU_LOG");
        FILE *f = log && *log ? fopen(log, "ae") : NULL;
        if (f) {
                fprintf(f, "%s\n", name);
                fclose(f);
        }
        return listed("FAKEGPU_FAIL", name);
}

bool fakegpu_not_supported(const char *name)
{
        return listed("FAKEGPU_NOT_SUPPORTED", name);
}

uint16_t fakegpu_bf16(float f)
{
        uint32_t u;
        memcpy(&u, &f, sizeof(u));
        u += 0x7fff + ((u >> 16) & 1);
        return (uint16_t)(u >> 16);
}

float fakegpu_float(uint16_t b)
{
        uint32_t u = (uint32_t)b << 16;
        float f;
        memcpy(&f, &u, sizeof(f));
        return f;
}
