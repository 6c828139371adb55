/* evidence.c — see evidence.h.  The host's sources are found once and
 * kept as a list of files (kept open); a snapshot only reads them.  Counters that
 * are summed (thermal, EDAC) or combined over CPUs (cpufreq) go into a
 * slot, and a slot is NAN as soon as one of its files fails: a partial
 * sum would make a window's difference wrong. */
#include "core/evidence.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/evidence_find.h"
#include "core/evidence_read.h"
#include "core/perfclock.h"
#include "core/sysparse.h"
#include "util/strutil.h"
#include "util/timeutil.h"

const char *const evidence_source_names[EVIDENCE_N_SOURCES] = {
        "cgroup_cpu", "perf_clock", "cpufreq", "thermal_throttle", "edac",
        "meminfo", "cpu_online", "block_stat", "nvme_health", "kernel_log",
};

#define STAT_FILE_MAX 512        /* a block device's stat line */
#define MEMINFO_MAX 8192

int evidence_host_new(const char *root, uint64_t kmsg_after_seq, struct evidence_host **ret)
{
        struct evidence_host *h = calloc(1, sizeof(*h));
        if (!h || !(h->root = strdup(root))) {
                free(h);
                return -ENOMEM;
        }
        /* kept without its trailing '/': paths are root + "/sys/..." */
        for (size_t n = strlen(h->root); n && h->root[n - 1] == '/';)
                h->root[--n] = 0;
        int r = evidence_find_all(h, kmsg_after_seq);
        if (r < 0) {
                evidence_host_free(h);
                return r;
        }
        *ret = h;
        return 0;
}

void evidence_host_free(struct evidence_host *h)
{
        if (!h)
                return;
        evidence_find_clear(h);
        for (size_t i = 0; i < h->n_nvme; i++) {
                free(h->nvme_name[i]);
                free(h->nvme_dev[i]);
        }
        kmsg_reader_free(h->kmsg);
        free(h->root);
        free(h);
}

bool evidence_host_has(const struct evidence_host *h, enum evidence_source s)
{
        return h->has[s];
}

const char *evidence_host_why_absent(const struct evidence_host *h, enum evidence_source s)
{
        return h->has[s] ? NULL : h->why[s][0] ? h->why[s] : "not found";
}

char *evidence_host_absent_text(const struct evidence_host *h)
{
        char *text = NULL;
        for (int s = 0; s < EVIDENCE_N_SOURCES; s++) {
                if (h->has[s])
                        continue;
                char *t = str_printf("%s%s%s (%s)", text ? text : "", text ? ", " : "",
                                     evidence_source_names[s],
                                     evidence_host_why_absent(h, (enum evidence_source)s));
                free(text);
                if (!t)
                        return NULL;
                text = t;
        }
        return text;
}

size_t evidence_host_n_disks(const struct evidence_host *h)
{
        return h->n_disks;
}

const char *evidence_host_disk(const struct evidence_host *h, size_t i)
{
        return i < h->n_disks ? h->disk_name[i] : NULL;
}

size_t evidence_host_n_nvme(const struct evidence_host *h)
{
        return h->n_nvme;
}

const char *evidence_host_nvme(const struct evidence_host *h, size_t i)
{
        return i < h->n_nvme ? h->nvme_name[i] : NULL;
}

void evidence_host_throttled(struct evidence_host *h, struct evidence_throttled *ret)
{
        ret->n = h ? h->n_cgroup : 0;
        for (size_t i = 0; i < ret->n; i++) {
                struct evidence_cgroup_stat st;
                ret->seconds[i] = evidence_read_cgroup_stat(&h->cgroup_stat[i], &st) >= 0 ?
                                  st.throttled_us / 1e6 : NAN;
        }
}

double evidence_throttled_between(const struct evidence_throttled *a,
                                  const struct evidence_throttled *b)
{
        double most = NAN;
        for (size_t i = 0; i < a->n && i < b->n; i++) {
                double held = b->seconds[i] - a->seconds[i];
                if (held >= 0 && (isnan(most) || held > most))
                        most = held;
        }
        return most;
}

size_t evidence_host_n_cgroup_levels(const struct evidence_host *h)
{
        return h->n_cgroup;
}

size_t evidence_host_n_files(const struct evidence_host *h, size_t *ret_kept)
{
        if (ret_kept)
                *ret_kept = h->n_kept;
        return h->n_reads + h->n_governors + h->n_cgroup + h->n_disks + !!h->meminfo.path +
               !!h->online.path;
}

uint64_t evidence_host_kmsg_seq(const struct evidence_host *h)
{
        return h->kmsg ? kmsg_reader_next_seq(h->kmsg) : 0;
}

/* ---- a snapshot ------------------------------------------------------------ */

/* A level of cpufreq's: read at a run's end only. */
static bool is_level(enum evidence_slot s)
{
        return s == EVIDENCE_S_CUR_HZ || s == EVIDENCE_S_SCALING_MAX ||
               s == EVIDENCE_S_CPUINFO_MAX;
}

static void take_slots(struct evidence_host *h, bool end, struct evidence *e)
{
        double v[EVIDENCE_N_SLOTS];
        unsigned n[EVIDENCE_N_SLOTS] = { 0 };
        bool bad[EVIDENCE_N_SLOTS] = { false };
        for (size_t i = 0; i < h->n_reads; i++) {
                struct evidence_reading *rd = &h->reads[i];
                double x;
                if (!end && is_level(rd->slot))
                        continue;
                if (bad[rd->slot] || evidence_read_counter(&rd->file, &x) < 0) {
                        bad[rd->slot] = true;
                        continue;
                }
                if (!n[rd->slot]++)
                        v[rd->slot] = x;
                else if (rd->slot == EVIDENCE_S_SCALING_MAX)
                        v[rd->slot] = fmin(v[rd->slot], x);
                else if (rd->slot == EVIDENCE_S_CPUINFO_MAX)
                        v[rd->slot] = fmax(v[rd->slot], x);
                else
                        v[rd->slot] += x;
        }
        for (int s = 0; s < EVIDENCE_N_SLOTS; s++)
                if (bad[s] || !n[s])
                        v[s] = NAN;
        e->cur_hz = v[EVIDENCE_S_CUR_HZ] / n[EVIDENCE_S_CUR_HZ] * 1e3; /* kHz */
        e->scaling_max_hz = v[EVIDENCE_S_SCALING_MAX] * 1e3;
        e->cpuinfo_max_hz = v[EVIDENCE_S_CPUINFO_MAX] * 1e3;
        e->throttle_events[EVIDENCE_CORE] = v[EVIDENCE_S_CORE_EVENTS];
        e->throttle_ms[EVIDENCE_CORE] = NAN; /* not read: see evidence_find.c */
        e->throttle_events[EVIDENCE_PACKAGE] = v[EVIDENCE_S_PKG_EVENTS];
        e->throttle_ms[EVIDENCE_PACKAGE] = v[EVIDENCE_S_PKG_MS];
        e->edac_ce = v[EVIDENCE_S_EDAC_CE];
        e->edac_ue = v[EVIDENCE_S_EDAC_UE];
}

/* The distinct governors of the sampled CPUs, in order of first sight,
 * comma-separated; "" when one cannot be read. */
static void take_governor(struct evidence_host *h, struct evidence *e)
{
        char g[EVIDENCE_GOVERNOR_MAX], out[EVIDENCE_GOVERNOR_MAX] = "";
        size_t len = 0;
        for (size_t i = 0; i < h->n_governors; i++) {
                if (evidence_read_file(&h->governor[i], g, sizeof(g)) < 0)
                        return;
                g[strcspn(g, " \n")] = 0;
                size_t n = strlen(g);
                const char *p = strstr(out, g);
                bool seen = n && p && (p == out || p[-1] == ',') && (!p[n] || p[n] == ',');
                if (!n || seen)
                        continue;
                if (len + n + 2 > sizeof(out))
                        return; /* too many to say */
                if (len)
                        out[len++] = ',';
                memcpy(out + len, g, n + 1);
                len += n;
        }
        memcpy(e->governor, out, len + 1);
}

static void take_memory(struct evidence_host *h, struct evidence *e)
{
        char buf[MEMINFO_MAX];
        double v;
        unsigned n;
        if (h->meminfo.path && evidence_read_file(&h->meminfo, buf, sizeof(buf)) >= 0) {
                if (sysparse_keyed(buf, "MemTotal", &v) >= 0)
                        e->mem_total = v;
                if (sysparse_keyed(buf, "HardwareCorrupted", &v) >= 0)
                        e->hw_corrupted = v;
        }
        if (h->online.path && evidence_read_file(&h->online, buf, sizeof(buf)) >= 0 &&
            sysparse_cpulist(buf, NULL, 0, &n) >= 0)
                e->cpus_online = n;
}

static void take_disks(struct evidence_host *h, struct evidence *e)
{
        for (size_t i = 0; i < h->n_disks; i++) {
                char buf[STAT_FILE_MAX];
                struct sysparse_blockstat b;
                struct evidence_disk *d = &e->disk[i];
                if (evidence_read_file(&h->disk_stat[i], buf, sizeof(buf)) < 0 ||
                    sysparse_blockstat(buf, &b) < 0)
                        continue;
                *d = (struct evidence_disk){ b.reads, b.read_ms, b.writes, b.write_ms,
                                             b.io_ms, b.queue_ms };
        }
}

static void take_probe(const struct evidence_probe *p, struct evidence *e)
{
        if (!p)
                return;
        if (p->perf && perfclock_read(p->perf, &e->cycles, &e->task_ns) < 0)
                e->cycles = e->task_ns = NAN;
}

/* Every figure NAN, the rest zero. */
static void clear(struct evidence *e)
{
        memset(e, 0, sizeof(*e));
        for (size_t i = 0; i < EVIDENCE_MAX_CGROUP_LEVELS; i++)
                e->cgroup[i] = (struct evidence_cgroup_stat){ NAN, NAN, NAN };
        e->cycles = e->task_ns = NAN;
        e->mem_total = e->hw_corrupted = e->cpus_online = NAN;
        for (size_t i = 0; i < EVIDENCE_MAX_DISKS; i++)
                e->disk[i] = (struct evidence_disk){ NAN, NAN, NAN, NAN, NAN, NAN };
}

/* The counters every snapshot reads. */
static void take_counters(struct evidence_host *h, bool end, struct evidence *ret)
{
        clear(ret);
        ret->mono = now_mono();
        for (size_t i = 0; i < h->n_cgroup; i++)
                (void)evidence_read_cgroup_stat(&h->cgroup_stat[i], &ret->cgroup[i]);
        take_slots(h, end, ret);
        take_disks(h, ret);
        for (size_t i = 0; i < h->n_nvme; i++)
                ret->nvme_ok[i] = nvme_health_read(h->nvme_dev[i], &ret->nvme[i]) >= 0;
        if (h->kmsg) {
                ret->kmsg_ok = kmsg_reader_poll(h->kmsg) >= 0;
                ret->kmsg_prev = h->kmsg_last;
                kmsg_reader_counts(h->kmsg, &ret->kmsg);
                h->kmsg_last = ret->kmsg;
        }
}

void evidence_take_start(struct evidence_host *h, struct evidence *ret)
{
        take_counters(h, false, ret);
}

void evidence_take_end(struct evidence_host *h, const struct evidence_probe *probe,
                       struct evidence *ret)
{
        take_counters(h, true, ret);
        take_probe(probe, ret);
        take_governor(h, ret);
        take_memory(h, ret);
}
