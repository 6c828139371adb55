/* gpu_health.c — see gpu_health.h. */
#include "gpu_health.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>

#include "util/atomicfile.h"
#include "util/fdio.h"
#include "util/parse.h"
#include "util/strutil.h"

static const char *const reason_words[GPU_REASON_COUNT] = {
        [GPU_REASON_HW_SLOWDOWN] = "HW slowdown",
        [GPU_REASON_HW_THERMAL] = "HW thermal slowdown",
        [GPU_REASON_HW_POWER_BRAKE] = "HW power brake",
        [GPU_REASON_SW_THERMAL] = "SW thermal slowdown",
        [GPU_REASON_SW_POWER_CAP] = "SW power cap",
        [GPU_REASON_SYNC_BOOST] = "sync boost",
};

/* The counts kept between runs, each under a name that says its source
 * (an aggregate and a volatile ECC count do not compare). */
enum { K_ECC_COR, K_ECC_UNC, K_REMAP_COR, K_REMAP_UNC, K_REPLAY, K_COUNT };

struct kept {
        const char *name[K_COUNT];
        unsigned long long v[K_COUNT];
};

static void kept_of(const struct gpu_nvml_counters *c, struct kept *ret)
{
        static const char *const ecc[2][2] = {
                { "ecc_corrected_volatile", "ecc_corrected_aggregate" },
                { "ecc_uncorrected_volatile", "ecc_uncorrected_aggregate" },
        };
        memset(ret, 0, sizeof(*ret));
        for (int t = 0; t < 2; t++) {
                int k = c->has_ecc[t][GPU_NVML_AGGREGATE_ECC] ? GPU_NVML_AGGREGATE_ECC
                        : c->has_ecc[t][GPU_NVML_VOLATILE_ECC] ? GPU_NVML_VOLATILE_ECC : -1;
                if (k >= 0) {
                        ret->name[K_ECC_COR + t] = ecc[t][k];
                        ret->v[K_ECC_COR + t] = c->ecc[t][k];
                }
        }
        if (c->has_remapped) {
                ret->name[K_REMAP_COR] = "remapped_corrected";
                ret->v[K_REMAP_COR] = c->remapped_corrected;
                ret->name[K_REMAP_UNC] = "remapped_uncorrected";
                ret->v[K_REMAP_UNC] = c->remapped_uncorrected;
        }
        if (c->has_replay) {
                ret->name[K_REPLAY] = "pcie_replays";
                ret->v[K_REPLAY] = c->replay;
        }
}

static char *kept_path(const struct bw_run *run, const char *uuid)
{
        char *p = str_printf("%s/gpu-%s.health", run->state_dir, uuid);
        for (char *c = p ? strrchr(p, '/') + 1 : NULL; c && *c; c++)
                if (!(*c >= 'a' && *c <= 'z') && !(*c >= 'A' && *c <= 'Z') &&
                    !(*c >= '0' && *c <= '9') && *c != '-' && *c != '.')
                        *c = '_';
        return p;
}

/* The previous run's value of `name`; false when it had none. */
static bool previous(const char *text, const char *name, unsigned long long *ret)
{
        size_t len = strlen(name);
        for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
                char word[32];
                int64_t v;
                if (strncmp(l, name, len) || l[len] != ' ')
                        continue;
                size_t n = strcspn(l + len + 1, "\n");
                if (n >= sizeof(word))
                        return false;
                memcpy(word, l + len + 1, n);
                word[n] = '\0';
                if (parse_int64(word, &v) < 0 || v < 0)
                        return false;
                *ret = (unsigned long long)v;
                return true;
        }
        return false;
}

/* The counts this run could not read, as the previous run kept them: a
 * read that failed once must not lose what accrued meanwhile (the next run
 * compares with the last count read). */
static void carry_forward(struct kept *k, const char *old)
{
        static const char *const names[K_COUNT][2] = {
                { "ecc_corrected_aggregate", "ecc_corrected_volatile" },
                { "ecc_uncorrected_aggregate", "ecc_uncorrected_volatile" },
                { "remapped_corrected", NULL }, { "remapped_uncorrected", NULL },
                { "pcie_replays", NULL },
        };
        for (int i = 0; i < K_COUNT && old; i++)
                for (int j = 0; j < 2 && !k->name[i] && names[i][j]; j++)
                        if (previous(old, names[i][j], &k->v[i]))
                                k->name[i] = names[i][j];
}

/* This boot's id ("" where the kernel does not say): a count the driver
 * keeps only while it is loaded (the PCIe replays, the volatile ECC
 * counts) starts again at 0 with a boot, and one that climbed past the
 * last run's since then would read as a small gain. */
static void boot_id(char *buf, size_t size)
{
        if (fdio_read_small("/proc/sys/kernel/random/boot_id", buf, size) < 0)
                buf[0] = 0;
        buf[strcspn(buf, "\n")] = 0;
}

/* Whether the previous run's counts were kept in another boot. */
static bool other_boot(const char *old)
{
        char now[64], was[64] = "";
        const char *l = old ? strstr(old, "boot_id ") : NULL;
        if (!l || (l != old && l[-1] != '\n'))
                return false;
        snprintf(was, sizeof(was), "%.*s", (int)strcspn(l + 8, "\n"), l + 8);
        boot_id(now, sizeof(now));
        return *now && strcmp(now, was);
}

static int save_kept(const struct gpu_session *s, const char *path, const struct kept *k)
{
        char text[512], boot[64];
        size_t at = 0;
        boot_id(boot, sizeof(boot));
        if (*boot)
                at += (size_t)snprintf(text, sizeof(text), "boot_id %s\n", boot);
        for (int i = 0; i < K_COUNT; i++)
                if (k->name[i])
                        at += (size_t)snprintf(text + at, sizeof(text) - at, "%s %llu\n",
                                               k->name[i], k->v[i]);
        return atomicfile_write(s->run->state_dir, path, text, at, 0644);
}

double gpu_health_reason_ratio(const struct gpu_session *s, const struct gpu_health *hl,
                               int i)
{
        if (hl->before.has_reason_ns[i] && hl->after.has_reason_ns[i] && hl->seconds > 0) {
                double d = (double)(hl->after.reason_ns[i] - hl->before.reason_ns[i]) / 1e9;
                if (hl->after.reason_ns[i] < hl->before.reason_ns[i])
                        d = 0; /* the driver reloaded */
                return d / hl->seconds > 1 ? 1 : d / hl->seconds;
        }
        if (s->n_reason_samples)
                return (double)s->reason_samples[i] / s->n_reason_samples;
        return -1;
}

/* A piece of the sentence. */
static void say(char *buf, size_t size, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));
static void say(char *buf, size_t size, const char *fmt, ...)
{
        size_t at = strlen(buf);
        va_list ap;
        if (at && at + 2 < size)
                at += (size_t)snprintf(buf + at, size - at, "; ");
        va_start(ap, fmt);
        if (at < size)
                vsnprintf(buf + at, size - at, fmt, ap);
        va_end(ap);
}

static void emit_reasons(struct gpu_session *s, const struct gpu_health *hl, char *why,
                         size_t size)
{
        const struct bw_host *h = s->h;
        for (int i = 0; i < GPU_REASON_COUNT; i++) {
                const char *labels[] = { "gpu", hl->gpu, "reason", gpu_nvml_reason_names[i],
                                         NULL };
                double ratio = gpu_health_reason_ratio(s, hl, i);
                if (ratio >= 0)
                        h->gauge(h, "clock_event_ratio", "Share of the run the GPU's clocks "
                                 "were held back for this reason (NVML clock event reasons: "
                                 "their accumulated time where counted, else the share of "
                                 "samples)", labels, ratio);
                if (hl->after.has_reason_ns[i])
                        h->counter(h, "clock_event_seconds_total", "Time the GPU's clocks "
                                   "were held back for this reason since the driver loaded "
                                   "(NVML)", labels, (double)hl->after.reason_ns[i] / 1e9);
                if (ratio >= 0.01)
                        say(why, size, "%s %.0f%% of the run", reason_words[i], 100 * ratio);
        }
}

static void emit_clock_power(struct gpu_session *s, const struct gpu_health *hl, char *why,
                             size_t size)
{
        const struct bw_host *h = s->h;
        const char *labels[] = { "gpu", hl->gpu, NULL };
        unsigned max_mhz;
        double mean = s->n_sm_samples ? s->sm_mhz_sum / s->n_sm_samples : -1, lim, def;
        bool has_max = gpu_nvml_max_sm_mhz(&s->nv, &max_mhz) == 0 && max_mhz > 0;
        if (mean >= 0)
                h->gauge(h, "sm_clock_hertz", "The SM clock during the run (mean of NVML "
                         "samples)", labels, mean * 1e6);
        if (has_max)
                h->gauge(h, "sm_clock_max_hertz", "The SM clock's maximum (NVML)", labels,
                         max_mhz * 1e6);
        if (mean >= 0 && has_max) {
                h->gauge(h, "sm_clock_ratio", "The SM clock during the run over its maximum",
                         labels, mean / max_mhz);
                if (mean / max_mhz < 0.9)
                        say(why, size, "SM clock %.0f MHz, %.0f%% of its %u MHz maximum", mean,
                            100 * mean / max_mhz, max_mhz);
        }
        if (s->has_temperature)
                h->gauge(h, "temperature_celsius", "The GPU's highest temperature during the "
                         "run", labels, s->max_celsius);
        if (gpu_nvml_power_limits(&s->nv, &lim, &def) == 0) {
                h->gauge(h, "power_limit_watts", "The enforced power limit", labels, lim);
                h->gauge(h, "power_default_limit_watts", "The default power limit", labels, def);
                if (lim < 0.99 * def)
                        say(why, size, "power limit %.0f W, below the default %.0f W", lim, def);
        }
}

static void emit_counts(struct gpu_session *s, const struct gpu_health *hl)
{
        static const char *const type[2] = { "corrected", "uncorrected" };
        static const char *const counter[2] = { "volatile", "aggregate" };
        const struct bw_host *h = s->h;
        const struct gpu_nvml_counters *c = &hl->after;
        const char *labels[] = { "gpu", hl->gpu, NULL };
        for (int t = 0; t < 2; t++)
                for (int k = 0; k < 2; k++) {
                        const char *l[] = { "gpu", hl->gpu, "type", type[t], "counter",
                                            counter[k], NULL };
                        if (c->has_ecc[t][k])
                                h->counter(h, "ecc_errors_total", "ECC errors (volatile: "
                                           "since the driver loaded; aggregate: the GPU's "
                                           "life)", l, (double)c->ecc[t][k]);
                }
        if (c->has_remapped) {
                const char *lc[] = { "gpu", hl->gpu, "cause", "corrected", NULL };
                const char *lu[] = { "gpu", hl->gpu, "cause", "uncorrected", NULL };
                h->gauge(h, "remapped_rows", "Memory rows remapped, by the kind of error",
                         lc, c->remapped_corrected);
                h->gauge(h, "remapped_rows", "Memory rows remapped, by the kind of error",
                         lu, c->remapped_uncorrected);
                h->gauge(h, "remapped_rows_pending", "1: a row remapping waits for a GPU "
                         "reset", labels, c->remapped_pending ? 1 : 0);
                h->gauge(h, "remapped_rows_failure", "1: a row remapping failed", labels,
                         c->remapped_failure ? 1 : 0);
        }
        if (c->has_replay)
                h->counter(h, "pcie_replays_total", "PCIe replays (NVML's replay counter)",
                           labels, c->replay);
        if (s->nv.has_events)
                h->gauge(h, "xid_errors", "Xid errors NVML reported during the run", labels,
                         s->xids);
}

/* What is new since the previous run's counts. */
static void emit_since(struct gpu_session *s, const struct gpu_health *hl,
                       const struct kept *now, const char *old, char *why, size_t size)
{
        static const char *const words[K_COUNT] = {
                "corrected ECC errors", "uncorrected ECC errors", "rows remapped (corrected)",
                "rows remapped (uncorrected)", "PCIe replays",
        };
        const struct bw_host *h = s->h;
        bool rebooted = other_boot(old);
        for (int i = 0; i < K_COUNT; i++) {
                unsigned long long was, d;
                if (!now->name[i] || !old || !previous(old, now->name[i], &was))
                        continue;
                /* kept by the driver only while loaded: a boot since, all new */
                bool restarted = rebooted && (i == K_REPLAY || strstr(now->name[i], "volatile"));
                d = now->v[i] >= was && !restarted ? now->v[i] - was : now->v[i];
                const char *kind = i == K_ECC_COR || i == K_REMAP_COR ? "corrected"
                                                                      : "uncorrected";
                const char *l[] = { "gpu", hl->gpu, i == K_REPLAY ? NULL : i < K_REMAP_COR ?
                                    "type" : "cause", kind, NULL };
                h->gauge(h, i < K_REMAP_COR ? "ecc_errors_since_last_run"
                            : i == K_REPLAY ? "pcie_replays_since_last_run"
                                            : "remapped_rows_since_last_run",
                         "What the counter gained since the previous run on this GPU", l,
                         (double)d);
                if (d)
                        say(why, size, "%llu %s since the last run", d, words[i]);
        }
}

void gpu_health_report(struct gpu_session *s, const struct gpu_health *hl)
{
        const struct bw_host *h = s->h;
        char why[1024] = "", *old = NULL;
        struct kept now;
        char *path = kept_path(s->run, hl->uuid);
        size_t len;
        emit_reasons(s, hl, why, sizeof(why));
        emit_clock_power(s, hl, why, sizeof(why));
        emit_counts(s, hl);
        kept_of(&hl->after, &now);
        if (path && fdio_read_file(path, 4096, &old, &len, NULL) < 0)
                old = NULL;
        emit_since(s, hl, &now, old, why, sizeof(why));
        if (hl->after.unreadable)
                say(why, sizeof(why), "%u health counter(s) NVML could not read (kept as the "
                    "last run read them)", hl->after.unreadable);
        carry_forward(&now, old);
        if (hl->after.has_remapped && hl->after.remapped_pending)
                say(why, sizeof(why), "a row remapping waits for a GPU reset");
        if (hl->after.has_remapped && hl->after.remapped_failure)
                say(why, sizeof(why), "a row remapping failed");
        if (s->xids)
                say(why, sizeof(why), "%u Xid error(s) during the run, the last Xid %llu",
                    s->xids, s->xid_last);
        const struct gpu_copy_result *c = hl->copy;
        if (c && c->has_link && c->has_max_link &&
            (c->link_gen < c->max_link_gen || c->link_width < c->max_link_width))
                say(why, sizeof(why), "PCIe link gen %u x%u during the copies, gen %u x%u "
                    "possible", c->link_gen, c->link_width, c->max_link_gen, c->max_link_width);
        if (*why)
                h->log(h, LOG_NOTICE, "GPU %s: %s", hl->gpu, why);
        else
                h->log(h, LOG_INFO, "GPU %s: clocks not held back, no new errors", hl->gpu);
        struct stat st;
        int r = path ? save_kept(s, path, &now) : -ENOMEM;
        /* a one-off `run` before any daemon made the state directory */
        if (r < 0 && stat(s->run->state_dir, &st) < 0 && errno == ENOENT)
                r = 0;
        if (r < 0)
                h->log(h, LOG_WARNING, "cannot keep GPU %s's counts in '%s': %s", hl->gpu,
                       path ? path : "?", strerror(-r));
        free(old);
        free(path);
}
