/* evidence_find.c — see evidence_find.h. */
#include "core/evidence_find.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/evidence_read.h"
#include "core/nvme_health.h"
#include "core/perfclock.h"
#include "core/sysparse.h"
#include "util/strutil.h"

#define CPU_DIR "/sys/devices/system/cpu"
#define MEMINFO_MAX 8192

static void absent(struct evidence_host *h, enum evidence_source s, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));
static void absent(struct evidence_host *h, enum evidence_source s, const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(h->why[s], sizeof(h->why[s]), fmt, ap);
        va_end(ap);
        h->has[s] = false;
}

/* root + path, formatted; NULL when out of memory. */
static char *under(const struct evidence_host *h, const char *fmt, ...)
        __attribute__((format(printf, 2, 3)));
static char *under(const struct evidence_host *h, const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        char *rel = str_vprintf(fmt, ap);
        va_end(ap);
        char *path = rel ? str_printf("%s%s", h->root, rel) : NULL;
        free(rel);
        return path;
}

static bool exists(const char *path)
{
        return access(path, F_OK) == 0;
}

/* f becomes path (owned), kept open while the host's budget lasts. */
static void file_set(struct evidence_host *h, struct evidence_file *f, char *path)
{
        bool keep = h->n_kept < EVIDENCE_MAX_KEPT;
        *f = (struct evidence_file){ .path = path, .fd = -1, .keep = keep };
        h->n_kept += keep;
}

static void file_clear(struct evidence_file *f)
{
        evidence_read_close(f);
        free(f->path);
        f->path = NULL;
}

void evidence_find_clear(struct evidence_host *h)
{
        for (size_t i = 0; i < h->n_reads; i++)
                file_clear(&h->reads[i].file);
        free(h->reads);
        for (size_t i = 0; i < h->n_governors; i++)
                file_clear(&h->governor[i]);
        for (size_t i = 0; i < h->n_cgroup; i++)
                file_clear(&h->cgroup_stat[i]);
        for (size_t i = 0; i < h->n_disks; i++) {
                free(h->disk_name[i]);
                file_clear(&h->disk_stat[i]);
        }
        file_clear(&h->meminfo);
        file_clear(&h->online);
}

/* Adds dir/name to the slot's files when it exists: 1 added, 0 not
 * there, -ENOMEM. */
static int add_read(struct evidence_host *h, const char *dir, const char *name,
                    enum evidence_slot slot)
{
        char *path = str_printf("%s/%s", dir, name);
        if (!path)
                return -ENOMEM;
        if (!exists(path)) {
                free(path);
                return 0;
        }
        if (h->n_reads == h->cap_reads) {
                size_t cap = h->cap_reads ? 2 * h->cap_reads : 32;
                struct evidence_reading *r = realloc(h->reads, cap * sizeof(*r));
                if (!r) {
                        free(path);
                        return -ENOMEM;
                }
                h->reads = r;
                h->cap_reads = cap;
        }
        h->reads[h->n_reads].slot = slot;
        file_set(h, &h->reads[h->n_reads++].file, path);
        return 1;
}

/* ---- CPUs ------------------------------------------------------------------- */

static int cpu_number(const char *name, unsigned *ret)
{
        uint64_t v;
        if (strncmp(name, "cpu", 3) || sysparse_u64(name + 3, &v) < 0 || name[3] == ' ' ||
            v >= SYSPARSE_MAX_CPU)
                return -EINVAL;
        *ret = (unsigned)v;
        return 0;
}

static int by_number(const void *a, const void *b)
{
        unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
        return x < y ? -1 : x > y;
}

/* The CPUs of a CPU directory without an online list: its cpuN. */
static void cpus_of_dir(const struct evidence_host *h, unsigned *ids, unsigned *ret_n)
{
        char *path = under(h, CPU_DIR);
        DIR *d = path ? opendir(path) : NULL;
        struct dirent *e;
        unsigned n = 0;
        while (d && n < SYSPARSE_MAX_CPU && (e = readdir(d)))
                if (cpu_number(e->d_name, &ids[n]) >= 0)
                        n++;
        if (d)
                closedir(d);
        free(path);
        qsort(ids, n, sizeof(*ids), by_number);
        *ret_n = n;
}

/* The online CPUs (cpu_online), or every cpuN when the list is not there. */
static int find_cpus(struct evidence_host *h, unsigned *ids, unsigned *ret_n)
{
        char list[4096];
        unsigned n = 0;
        char *path = under(h, CPU_DIR "/online");
        if (!path)
                return -ENOMEM;
        int r = evidence_read_whole(path, list, sizeof(list));
        if (r >= 0)
                r = sysparse_cpulist(list, ids, SYSPARSE_MAX_CPU, &n);
        h->has[EVIDENCE_CPU_ONLINE] = r >= 0;
        if (r >= 0) {
                file_set(h, &h->online, path);
        } else {
                absent(h, EVIDENCE_CPU_ONLINE, "%s: %s", CPU_DIR "/online", strerror(-r));
                free(path);
                cpus_of_dir(h, ids, &n);
        }
        *ret_n = n;
        return 0;
}

/* cpufreq of up to EVIDENCE_CPU_SAMPLE CPUs spread over the list. */
static int find_cpufreq(struct evidence_host *h, const unsigned *ids, unsigned n)
{
        unsigned m = n < EVIDENCE_CPU_SAMPLE ? n : EVIDENCE_CPU_SAMPLE;
        int r = 0, found = 0;
        for (unsigned k = 0; k < m && r >= 0; k++) {
                char *dir = under(h, CPU_DIR "/cpu%u/cpufreq", ids[(size_t)k * n / m]);
                char *gov = dir ? str_printf("%s/scaling_governor", dir) : NULL;
                r = gov ? add_read(h, dir, "scaling_cur_freq", EVIDENCE_S_CUR_HZ) : -ENOMEM;
                found += r > 0;
                if (r >= 0)
                        r = add_read(h, dir, "scaling_max_freq", EVIDENCE_S_SCALING_MAX);
                if (r >= 0)
                        r = add_read(h, dir, "cpuinfo_max_freq", EVIDENCE_S_CPUINFO_MAX);
                if (r >= 0 && exists(gov)) {
                        file_set(h, &h->governor[h->n_governors++], gov);
                        gov = NULL;
                }
                free(gov);
                free(dir);
        }
        h->has[EVIDENCE_CPUFREQ] = found > 0;
        if (!found)
                absent(h, EVIDENCE_CPUFREQ, "no %s/cpu*/cpufreq/scaling_cur_freq", CPU_DIR);
        return r < 0 ? r : 0;
}

struct topo {
        double package, core;
};

/* Whether t is in seen[0..n) (by package only when !core), else adds it. */
static bool seen_before(struct topo *seen, size_t *n, struct topo t, bool core)
{
        for (size_t i = 0; i < *n; i++)
                if (seen[i].package == t.package && (!core || seen[i].core == t.core))
                        return true;
        seen[(*n)++] = t;
        return false;
}

/* The CPU's package and core; a CPU without its topology stands alone. */
static struct topo topology(const char *cpu_dir, unsigned id)
{
        struct topo t = { -1.0 - id, id };
        struct evidence_file p = { .path = str_printf("%s/topology/physical_package_id", cpu_dir),
                                   .fd = -1 };
        struct evidence_file c = { .path = str_printf("%s/topology/core_id", cpu_dir), .fd = -1 };
        if (p.path && c.path && (evidence_read_counter(&p, &t.package) < 0 ||
                                 evidence_read_counter(&c, &t.core) < 0))
                t = (struct topo){ -1.0 - id, id };
        free(p.path);
        free(c.path);
        return t;
}

/* A core's event count; a package's count and time.  Each core's time
 * too would be a third of the files of a large host's snapshot, for a
 * figure no verdict reads: the package's time says how long. */
static int thermal_of(struct evidence_host *h, const char *dir, bool core, bool package)
{
        int r = 0, n = 0;
        if (core && (r = add_read(h, dir, "core_throttle_count", EVIDENCE_S_CORE_EVENTS)) > 0)
                n++;
        if (r >= 0 && package &&
            (r = add_read(h, dir, "package_throttle_count", EVIDENCE_S_PKG_EVENTS)) > 0)
                n++;
        if (r >= 0 && package)
                r = add_read(h, dir, "package_throttle_total_time_ms", EVIDENCE_S_PKG_MS);
        return r < 0 ? r : n;
}

/* Thermal throttle counters, each core and each package once. */
static int find_thermal(struct evidence_host *h, const unsigned *ids, unsigned n)
{
        struct topo *cores = calloc(n ? n : 1, sizeof(*cores));
        struct topo *pkgs = calloc(n ? n : 1, sizeof(*pkgs));
        size_t n_cores = 0, n_pkgs = 0;
        int r = cores && pkgs ? 0 : -ENOMEM, found = 0;
        for (unsigned i = 0; i < n && r >= 0; i++) {
                char *cpu = under(h, CPU_DIR "/cpu%u", ids[i]);
                char *dir = cpu ? str_printf("%s/thermal_throttle", cpu) : NULL;
                if (!dir)
                        r = -ENOMEM;
                if (dir && exists(dir)) {
                        struct topo t = topology(cpu, ids[i]);
                        bool core = !seen_before(cores, &n_cores, t, true);
                        bool pkg = !seen_before(pkgs, &n_pkgs, t, false);
                        r = thermal_of(h, dir, core, pkg);
                        found += r > 0;
                }
                free(dir);
                free(cpu);
        }
        free(cores);
        free(pkgs);
        h->has[EVIDENCE_THERMAL] = found > 0;
        if (!found)
                absent(h, EVIDENCE_THERMAL, "no %s/cpu*/thermal_throttle", CPU_DIR);
        return r < 0 ? r : 0;
}

static int find_all_cpus(struct evidence_host *h)
{
        unsigned *ids = malloc(SYSPARSE_MAX_CPU * sizeof(*ids)), n = 0;
        int r = ids ? find_cpus(h, ids, &n) : -ENOMEM;
        if (r >= 0)
                r = find_cpufreq(h, ids, n);
        if (r >= 0)
                r = find_thermal(h, ids, n);
        free(ids);
        return r;
}

/* ---- memory, cgroup, devices, logs ------------------------------------------ */

static int find_meminfo(struct evidence_host *h)
{
        char *buf = malloc(MEMINFO_MAX), *path = under(h, "/proc/meminfo");
        double v;
        int r = buf && path ? evidence_read_whole(path, buf, MEMINFO_MAX) : -ENOMEM;
        if (r >= 0)
                r = sysparse_keyed(buf, "MemTotal", &v);
        free(buf);
        h->has[EVIDENCE_MEMINFO] = r >= 0;
        if (r >= 0) {
                file_set(h, &h->meminfo, path);
                return 0;
        }
        free(path);
        if (r == -ENOMEM)
                return r;
        absent(h, EVIDENCE_MEMINFO, "/proc/meminfo: no MemTotal: %s", strerror(-r));
        return 0;
}

static int find_edac(struct evidence_host *h)
{
        char *path = under(h, "/sys/devices/system/edac/mc");
        DIR *d = path ? opendir(path) : NULL;
        struct dirent *e;
        uint64_t v;
        int r = path ? 0 : -ENOMEM, found = 0;
        while (d && r >= 0 && (e = readdir(d))) {
                if (strncmp(e->d_name, "mc", 2) || sysparse_u64(e->d_name + 2, &v) < 0)
                        continue;
                char *mc = str_printf("%s/%s", path, e->d_name);
                r = mc ? add_read(h, mc, "ce_count", EVIDENCE_S_EDAC_CE) : -ENOMEM;
                found += r > 0;
                if (r >= 0)
                        r = add_read(h, mc, "ue_count", EVIDENCE_S_EDAC_UE);
                free(mc);
        }
        if (d)
                closedir(d);
        free(path);
        h->has[EVIDENCE_EDAC] = found > 0;
        if (!found)
                absent(h, EVIDENCE_EDAC, "no /sys/devices/system/edac/mc/mc*/ce_count");
        return r < 0 ? r : 0;
}

/* Adds path's cpu.stat, then its parents', while they have one. */
static int add_cgroup_levels(struct evidence_host *h, const char *mount, const char *path)
{
        char *p = strdup(path);
        int r = p ? 0 : -ENOMEM;
        while (r >= 0 && h->n_cgroup < EVIDENCE_MAX_CGROUP_LEVELS) {
                struct evidence_cgroup_stat st;
                size_t len = strlen(p);
                while (len && p[len - 1] == '/')
                        p[--len] = 0;
                struct evidence_file stat = { .path = str_printf("%s%s/cpu.stat", mount, p),
                                              .fd = -1 };
                if (!stat.path)
                        r = -ENOMEM;
                else if (evidence_read_cgroup_stat(&stat, &st) >= 0)
                        file_set(h, &h->cgroup_stat[h->n_cgroup++], stat.path);
                else
                        free(stat.path);
                char *slash = strrchr(p, '/');
                if (!slash)
                        break;
                *slash = 0;
        }
        free(p);
        return r;
}

/* The first of the usual mount points where the group has a cpu.stat
 * that counts throttling: the v1 cpu controller's, then v2's. */
static int find_cgroup_in(struct evidence_host *h, const struct sysparse_cgroup *c)
{
        const char *v1[] = { c->v1_controllers, "cpu", "cpu,cpuacct" };
        const char *v2[] = { "", "/unified" };
        int r = 0;
        for (size_t i = 0; c->v1_path && i < 3 && r >= 0 && !h->n_cgroup; i++) {
                char *mount = under(h, "/sys/fs/cgroup/%s", v1[i]);
                r = mount ? add_cgroup_levels(h, mount, c->v1_path) : -ENOMEM;
                free(mount);
        }
        for (size_t i = 0; c->v2_path && i < 2 && r >= 0 && !h->n_cgroup; i++) {
                char *mount = under(h, "/sys/fs/cgroup%s", v2[i]);
                r = mount ? add_cgroup_levels(h, mount, c->v2_path) : -ENOMEM;
                free(mount);
        }
        return r;
}

static int find_cgroup(struct evidence_host *h)
{
        char buf[4096];
        struct sysparse_cgroup c = { 0 };
        char *path = under(h, "/proc/self/cgroup");
        int r = path ? evidence_read_whole(path, buf, sizeof(buf)) : -ENOMEM;
        free(path);
        if (r >= 0)
                r = sysparse_cgroup(buf, &c);
        if (r >= 0)
                r = find_cgroup_in(h, &c);
        sysparse_cgroup_clear(&c);
        if (r == -ENOMEM)
                return r;
        h->has[EVIDENCE_CGROUP_CPU] = h->n_cgroup > 0;
        if (!h->n_cgroup)
                absent(h, EVIDENCE_CGROUP_CPU, "%s", r < 0 ? strerror(-r) :
                       "no cpu.stat with nr_throttled for this process's cgroup");
        return 0;
}

static int by_name(const void *a, const void *b)
{
        return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Physical disks (with a device/, as yield.c counts them), by name. */
static int find_disks(struct evidence_host *h)
{
        char *path = under(h, "/sys/block");
        DIR *d = path ? opendir(path) : NULL;
        struct dirent *e;
        int r = path ? 0 : -ENOMEM;
        while (d && r >= 0 && h->n_disks < EVIDENCE_MAX_DISKS && (e = readdir(d))) {
                char *dev = str_printf("%s/%s/device", path, e->d_name);
                char *stat = str_printf("%s/%s/stat", path, e->d_name);
                if (!dev || !stat)
                        r = -ENOMEM;
                else if (e->d_name[0] != '.' && exists(dev) && exists(stat) &&
                         !(h->disk_name[h->n_disks++] = strdup(e->d_name)))
                        r = -ENOMEM;
                free(dev);
                free(stat);
        }
        if (d)
                closedir(d);
        qsort(h->disk_name, h->n_disks, sizeof(char *), by_name);
        for (size_t i = 0; r >= 0 && i < h->n_disks; i++) {
                char *stat = str_printf("%s/%s/stat", path, h->disk_name[i]);
                if (!stat)
                        r = -ENOMEM;
                file_set(h, &h->disk_stat[i], stat);
        }
        free(path);
        h->has[EVIDENCE_BLOCK] = h->n_disks > 0;
        if (!h->n_disks)
                absent(h, EVIDENCE_BLOCK, "no /sys/block/*/device");
        return r;
}

/* NVMe controllers whose health log can be read. */
static int find_nvme(struct evidence_host *h)
{
        char *path = under(h, "/sys/class/nvme");
        DIR *d = path ? opendir(path) : NULL;
        struct dirent *e;
        struct nvme_health health;
        uint64_t v;
        int r = path ? 0 : -ENOMEM, err = 0;
        while (d && r >= 0 && h->n_nvme < EVIDENCE_MAX_NVME && (e = readdir(d))) {
                if (strncmp(e->d_name, "nvme", 4) || sysparse_u64(e->d_name + 4, &v) < 0)
                        continue;
                char *dev = under(h, "/dev/%s", e->d_name);
                char *name = dev ? strdup(e->d_name) : NULL;
                if (!name)
                        r = -ENOMEM;
                else if ((err = nvme_health_read(dev, &health)) >= 0) {
                        h->nvme_name[h->n_nvme] = name;
                        h->nvme_dev[h->n_nvme++] = dev;
                        dev = name = NULL;
                }
                free(dev);
                free(name);
        }
        if (d)
                closedir(d);
        free(path);
        h->has[EVIDENCE_NVME] = h->n_nvme > 0;
        if (!h->n_nvme && err < 0)
                absent(h, EVIDENCE_NVME, "the health log: %s (CAP_SYS_ADMIN, DeviceAllow=)",
                       strerror(-err));
        else if (!h->n_nvme)
                absent(h, EVIDENCE_NVME, "no NVMe controller");
        return r;
}

static void find_kmsg(struct evidence_host *h, uint64_t after_seq)
{
        const char *root = *h->root ? h->root : "/";
        int r = kmsg_reader_open(root, after_seq, &h->kmsg);
        h->has[EVIDENCE_KMSG] = r >= 0;
        if (r < 0)
                absent(h, EVIDENCE_KMSG, "/dev/kmsg: %s", strerror(-r));
}

/* perf on the daemon itself: a run's own events are opened per run. */
static void find_perf(struct evidence_host *h)
{
        struct perfclock *p = NULL;
        int r = perfclock_open(0, &p);
        perfclock_free(p);
        h->has[EVIDENCE_PERF_CLOCK] = r >= 0;
        if (r == -EACCES || r == -EPERM)
                absent(h, EVIDENCE_PERF_CLOCK, "%s (perf_event_paranoid, CAP_PERFMON, "
                       "SystemCallFilter=)", strerror(-r));
        else if (r < 0)
                absent(h, EVIDENCE_PERF_CLOCK, "no CPU cycle counter: %s", strerror(-r));
}

int evidence_find_all(struct evidence_host *h, uint64_t kmsg_after_seq)
{
        int r = find_all_cpus(h);
        if (r >= 0)
                r = find_meminfo(h);
        if (r >= 0)
                r = find_edac(h);
        if (r >= 0)
                r = find_cgroup(h);
        if (r >= 0)
                r = find_disks(h);
        if (r >= 0)
                r = find_nvme(h);
        if (r >= 0) {
                find_kmsg(h, kmsg_after_seq);
                find_perf(h);
        }
        return r;
}
