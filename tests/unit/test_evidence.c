/* test_evidence.c — the host's counters are found under a root (fixture
 * trees of tests/data/evidence: "metal", a two-package host with cgroup
 * v2, thermal, cpufreq, EDAC, disks and a kernel log; "v1", cgroup v1 and
 * nothing else; "bad", every file there but none a counter), read once
 * per snapshot with each core and package counted once, and turned into
 * a window's figures: differences of counters, NAN (and no metric) where
 * a counter is unreadable or went back, the kernel log since the previous
 * run's end.  Then this host's own, whatever it has. */
#include <errno.h>
#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/evidence.h"
#include "core/evidence_window.h"
#include "core/result.h"
#include "test.h"
#include "util/fdio.h"
#include "util/strutil.h"

#ifndef TOP_SRCDIR
#define TOP_SRCDIR "."
#endif

static char tmp[] = "/tmp/test_evidence.XXXXXX";
static const char *copy_from, *copy_to;

static char *fixture(const char *tree)
{
        const char *top = getenv("top_srcdir");
        char *p = str_printf("%s/tests/data/evidence/%s", top ? top : TOP_SRCDIR, tree);
        CHECK(p);
        return p;
}

static int copy_one(const char *path, const struct stat *st, int type, struct FTW *f)
{
        char *to = str_printf("%s%s", copy_to, path + strlen(copy_from));
        char *text = NULL;
        size_t len = 0;
        CHECK(to);
        if (type == FTW_D) {
                CHECK(mkdir(to, 0755) == 0 || errno == EEXIST);
        } else {
                CHECK(fdio_read_file(path, 1 << 20, &text, &len, NULL) == 0);
                FILE *out = fopen(to, "we");
                CHECK(out && fwrite(text, 1, len, out) == len && fclose(out) == 0);
        }
        free(text);
        free(to);
        return 0;
}

/* A writable copy of a fixture tree under tmp. */
static char *copy_tree(const char *tree)
{
        char *from = fixture(tree), *to = str_printf("%s/%s", tmp, tree);
        copy_from = from;
        copy_to = to;
        CHECK(nftw(from, copy_one, 16, FTW_PHYS) == 0);
        free(from);
        return to;
}

static void put(const char *root, const char *rel, const char *text, const char *mode)
{
        char *p = str_printf("%s/%s", root, rel);
        FILE *f = p ? fopen(p, mode) : NULL;
        CHECK(f);
        fputs(text, f);
        CHECK(fclose(f) == 0);
        free(p);
}

static void test_metal_snapshot(void)
{
        struct evidence_host *h = NULL;
        struct evidence e;
        char *root = fixture("metal");
        CHECK(evidence_host_new(root, KMSG_FROM_NOW, &h) == 0);
        for (int s = 0; s < EVIDENCE_N_SOURCES; s++)
                if (s != EVIDENCE_PERF_CLOCK && s != EVIDENCE_NVME)
                        EXPECT(evidence_host_has(h, (enum evidence_source)s));
        /* /dev/nvme0 of the fixture is a file: the ioctl is refused */
        CHECK(!evidence_host_has(h, EVIDENCE_NVME));
        CHECK_STR_CONTAINS(evidence_host_why_absent(h, EVIDENCE_NVME), "health log");
        char *absent = evidence_host_absent_text(h);
        CHECK_STR_CONTAINS(absent, "nvme_health (the health log: ");
        free(absent);
        CHECK(evidence_host_n_disks(h) == 2); /* not loop0 or dm-0: no device/ */
        CHECK(!strcmp(evidence_host_disk(h, 0), "nvme0n1"));
        CHECK(!strcmp(evidence_host_disk(h, 1), "sda"));
        CHECK(evidence_host_n_cgroup_levels(h) == 2); /* the root's has no nr_throttled */
        evidence_take_end(h, NULL, &e);
        CHECK(e.cgroup[0].periods == 200 && e.cgroup[0].throttled == 10);
        CHECK(e.cgroup[0].throttled_us == 150000 && e.cgroup[1].periods == 0);
        CHECK_NEAR(e.cur_hz, 2.5e9, 1e-12);          /* of cpu0-3, not offline cpu4 */
        CHECK_NEAR(e.scaling_max_hz, 3.0e9, 1e-12);  /* the lowest */
        CHECK_NEAR(e.cpuinfo_max_hz, 3.5e9, 1e-12);
        CHECK(!strcmp(e.governor, "performance,powersave"));
        /* cores (0,0) and (1,0): 5 + 7, not the siblings' again, nor cpu4's */
        CHECK(e.throttle_events[EVIDENCE_CORE] == 12);
        CHECK(isnan(e.throttle_ms[EVIDENCE_CORE])); /* not read: a third of a big host's files */
        CHECK(e.throttle_events[EVIDENCE_PACKAGE] == 150);
        CHECK(e.throttle_ms[EVIDENCE_PACKAGE] == 1200);
        CHECK(e.edac_ce == 7 && e.edac_ue == 1);
        CHECK(e.mem_total == 32768000.0 * 1024 && e.hw_corrupted == 8192);
        CHECK(e.cpus_online == 4);
        CHECK(e.disk[0].reads == 1000 && e.disk[0].read_ms == 500 && e.disk[0].queue_ms == 3600);
        CHECK(e.disk[1].reads == 400 && e.disk[1].writes == 0);
        CHECK(isnan(e.cycles) && isnan(e.task_ns)); /* no probe given */
        CHECK(e.kmsg_ok && e.kmsg.records == 0); /* from now: the end of the log */
        evidence_host_free(h);
        free(root);
}

/* The changes a run brings about in the metal copy at root. */
static void run_happens(const char *root)
{
        const char *svc = "sys/fs/cgroup/system.slice/benchwatch.service/cpu.stat";
        put(root, svc, "usage_usec 9000000\nnr_periods 300\nnr_throttled 51\n"
            "throttled_usec 650000\n", "we");
        put(root, "sys/devices/system/cpu/cpu0/thermal_throttle/core_throttle_count", "9\n", "we");
        put(root, "sys/devices/system/cpu/cpu2/thermal_throttle/core_throttle_count", "9\n", "we");
        put(root, "sys/devices/system/cpu/cpu1/thermal_throttle/package_throttle_count", "60\n",
            "we");
        put(root, "sys/devices/system/cpu/cpu3/thermal_throttle/package_throttle_count", "60\n",
            "we");
        put(root, "sys/devices/system/edac/mc/mc1/ce_count", "10\n", "we");
        put(root, "sys/block/nvme0n1/stat",
            "1100 0 8800 700 2000 10 16000 3000 2 7500 23600 0 0 0 0 10 5\n", "we");
        put(root, "sys/block/sda/stat", "100 0 800 100 0 0 0 0 0 1900 2100\n", "we");
        put(root, "dev/kmsg", "3,2000,9,-;blk_update_request: I/O error, dev sda\n", "ae");
}

static double value_of(const struct result *res, const char *family, const char *const *match)
{
        const struct sample *s = result_find_sample(res, family, match);
        return s ? s->value : NAN;
}

static void check_window(const struct evidence_window *w)
{
        CHECK(w->seconds == 10);
        CHECK_NEAR(w->throttled_ratio, 0.41, 1e-12); /* 41 of 100 periods */
        CHECK_NEAR(w->throttled_seconds, 0.5, 1e-12);
        CHECK(!strcmp(w->clock_source, "cpufreq") && w->clock_hz == 2.5e9);
        CHECK(w->throttle_events[EVIDENCE_CORE] == 4 && w->throttle_events[EVIDENCE_PACKAGE] == 10);
        CHECK(isnan(w->throttle_seconds[EVIDENCE_CORE]));
        CHECK(w->throttle_seconds[EVIDENCE_PACKAGE] == 0);
        CHECK(w->edac_ce == 6 && w->edac_ue == 0);
        CHECK_NEAR(w->disk[0].read_s_per_io, 0.002, 1e-12); /* 200 ms over 100 reads */
        CHECK(isnan(w->disk[0].write_s_per_io));            /* no write completed */
        CHECK_NEAR(w->disk[0].busy_ratio, 0.5, 1e-12);
        CHECK_NEAR(w->disk[0].queue_depth, 2.0, 1e-12);
        CHECK(isnan(w->disk[1].read_s_per_io)); /* sda's counter went back */
        CHECK(w->kmsg_ok && w->kmsg[KMSG_IO_ERROR] == 1 && w->kmsg[KMSG_RESET] == 0);
}

static void check_metrics(const struct evidence_host *h, const struct evidence_window *w)
{
        struct result *res = result_new("p", "cpu");
        CHECK(res && evidence_window_add_metrics(h, w, "nvme0n1", res) == 0);
        const char *read[] = { "device", "nvme0n1", "op", "read", NULL };
        const char *core[] = { "scope", "core", NULL };
        const char *io[] = { "kind", "io_error", NULL };
        const char *src[] = { "source", "cpufreq", NULL };
        CHECK_NEAR(value_of(res, "benchwatch_probe_cpu_throttled_ratio", NULL), 0.41, 1e-12);
        CHECK(value_of(res, "benchwatch_probe_cpu_clock_hertz", src) == 2.5e9);
        CHECK(value_of(res, "benchwatch_probe_thermal_throttle_events", core) == 4);
        CHECK(value_of(res, "benchwatch_probe_edac_corrected_errors", NULL) == 6);
        CHECK(value_of(res, "benchwatch_probe_disk_seconds_per_io", read) == 0.002);
        CHECK(value_of(res, "benchwatch_probe_kernel_log_events", io) == 1);
        const struct family *f = result_find(res, "benchwatch_probe_disk_seconds_per_io");
        CHECK(f && f->n_samples == 1 && *f->help); /* write: NAN, not added */
        const char *sda[] = { "device", "sda", NULL };
        CHECK(!result_find_sample(res, "benchwatch_probe_disk_busy_ratio", sda));
        result_free(res);
        res = result_new("p", "cpu");
        CHECK(res && evidence_window_add_metrics(h, w, "", res) == 0);
        CHECK(!result_find(res, "benchwatch_probe_disk_busy_ratio"));
        CHECK(result_find(res, "benchwatch_probe_cpu_throttled_ratio"));
        result_free(res);
}

static void test_metal_window(void)
{
        struct evidence_host *h = NULL;
        struct evidence a, b, c, d;
        struct evidence_window w;
        char *root = copy_tree("metal");
        struct evidence_probe p = { .perf = NULL }; /* no perf here: cpufreq's clock */
        CHECK(evidence_host_new(root, KMSG_FROM_NOW, &h) == 0);
        evidence_take_start(h, &a);
        CHECK(isnan(a.cur_hz) && !*a.governor && isnan(a.mem_total)); /* levels: at the end */
        run_happens(root);
        evidence_take_end(h, &p, &b);
        b.mono = a.mono + 10;
        evidence_window_between(h, &a, &b, &w);
        check_window(&w);
        check_metrics(h, &w);
        /* the next run: what the kernel logged between the runs counts too */
        put(root, "dev/kmsg", "6,2001,9,-;ata1: hard resetting link\n", "ae");
        evidence_take_start(h, &c);
        put(root, "dev/kmsg", "6,2002,9,-;nvme nvme0: resetting controller\n", "ae");
        evidence_take_end(h, NULL, &d);
        evidence_window_between(h, &c, &d, &w);
        CHECK(w.kmsg[KMSG_RESET] == 2 && w.kmsg[KMSG_IO_ERROR] == 0);
        CHECK(w.throttled_ratio == 0 && w.edac_ce == 0); /* nothing moved */
        CHECK(evidence_host_kmsg_seq(h) == 2003);
        evidence_host_free(h);
        free(root);
}

static void test_v1(void)
{
        struct evidence_host *h = NULL;
        struct evidence a, b;
        struct evidence_window w;
        char *root = copy_tree("v1");
        const char *scope = "sys/fs/cgroup/cpu,cpuacct/user.slice/session-3.scope/cpu.stat";
        CHECK(evidence_host_new(root, KMSG_FROM_NOW, &h) == 0);
        CHECK(evidence_host_has(h, EVIDENCE_CGROUP_CPU) && evidence_host_n_cgroup_levels(h) == 2);
        const enum evidence_source none[] = { EVIDENCE_CPUFREQ, EVIDENCE_THERMAL, EVIDENCE_EDAC,
                                              EVIDENCE_MEMINFO, EVIDENCE_CPU_ONLINE,
                                              EVIDENCE_BLOCK, EVIDENCE_NVME, EVIDENCE_KMSG };
        for (size_t i = 0; i < sizeof(none) / sizeof(*none); i++)
                EXPECT(!evidence_host_has(h, none[i]) && evidence_host_why_absent(h, none[i]));
        CHECK_STR_CONTAINS(evidence_host_why_absent(h, EVIDENCE_KMSG), "/dev/kmsg: No such");
        evidence_take_start(h, &a);
        CHECK(a.cgroup[0].throttled_us == 2500000); /* v1's nanoseconds, in µs */
        put(root, scope, "nr_periods 500\nnr_throttled 150\nthrottled_time 3500000000\n", "we");
        put(root, "sys/fs/cgroup/cpu,cpuacct/user.slice/cpu.stat",
            "nr_periods 1100\nnr_throttled 30\nthrottled_time 600000000\n", "we");
        evidence_take_end(h, NULL, &b);
        evidence_window_between(h, &a, &b, &w);
        CHECK_NEAR(w.throttled_ratio, 0.5, 1e-12); /* the scope's, above its parent's 0.1 */
        CHECK_NEAR(w.throttled_seconds, 1.0, 1e-12);
        CHECK(isnan(w.clock_hz) && !w.clock_source && isnan(w.mem_total));
        CHECK(!w.kmsg_ok && isnan(w.kmsg[KMSG_IO_ERROR]));
        /* a counter that went back (the group was recreated): not available,
         * even where the other one went on */
        put(root, scope, "nr_periods 600\nnr_throttled 1\nthrottled_time 1000\n", "we");
        put(root, "sys/fs/cgroup/cpu,cpuacct/user.slice/cpu.stat", "nr_periods 1100\n", "we");
        evidence_take_end(h, NULL, &a);
        evidence_window_between(h, &b, &a, &w);
        CHECK(isnan(w.throttled_ratio) && isnan(w.throttled_seconds));
        evidence_host_free(h);
        free(root);
}

/* The time the daemon's cgroup was held between two reads is the most
 * any one level was held, not the largest level's total then against
 * its total before: a parent held long ago (a pod's limit) has the
 * largest total while the scope's own quota holds it now. */
static void test_v1_held_by_a_level(void)
{
        struct evidence_host *h = NULL;
        struct evidence_throttled a, b;
        char *root = copy_tree("v1");
        const char *parent = "sys/fs/cgroup/cpu,cpuacct/user.slice/cpu.stat";
        const char *scope = "sys/fs/cgroup/cpu,cpuacct/user.slice/session-3.scope/cpu.stat";
        CHECK(evidence_host_new(root, KMSG_FROM_NOW, &h) == 0);
        put(root, parent, "nr_periods 1000\nnr_throttled 900\nthrottled_time 100000000000\n",
            "we");
        evidence_host_throttled(h, &a);
        CHECK(a.n == 2 && a.seconds[0] == 2.5 && a.seconds[1] == 100);
        put(root, scope, "nr_periods 402\nnr_throttled 102\nthrottled_time 2700000000\n", "we");
        evidence_host_throttled(h, &b);
        CHECK_NEAR(evidence_throttled_between(&a, &b), 0.2, 1e-9);
        /* the parent held too, longer */
        put(root, parent, "nr_periods 1001\nnr_throttled 901\nthrottled_time 100500000000\n",
            "we");
        evidence_host_throttled(h, &a);
        CHECK_NEAR(evidence_throttled_between(&b, &a), 0.5, 1e-9);
        /* a level unread, or whose counter went back, tells nothing */
        put(root, scope, "nr_periods 1\n", "we");
        evidence_host_throttled(h, &b);
        CHECK(isnan(b.seconds[0]) && evidence_throttled_between(&a, &b) == 0);
        evidence_host_throttled(NULL, &a);
        CHECK(a.n == 0 && isnan(evidence_throttled_between(&a, &b)));
        evidence_host_free(h);
        free(root);
}

/* Every file there, none a counter: nothing is reported, nothing breaks. */
static void test_bad(const char *tree)
{
        struct evidence_host *h = NULL;
        struct evidence a, b;
        struct evidence_window w;
        char *root = fixture(tree);
        CHECK(evidence_host_new(root, KMSG_FROM_NOW, &h) == 0);
        CHECK(!evidence_host_has(h, EVIDENCE_CPU_ONLINE));
        CHECK(!evidence_host_has(h, EVIDENCE_MEMINFO));
        CHECK(!evidence_host_has(h, EVIDENCE_CGROUP_CPU)); /* "/../../escape" */
        evidence_take_start(h, &a);
        evidence_take_end(h, NULL, &b);
        CHECK(isnan(a.throttle_events[EVIDENCE_CORE]));
        CHECK(isnan(a.throttle_events[EVIDENCE_PACKAGE]));
        CHECK(isnan(b.cur_hz) && isnan(b.scaling_max_hz) && isnan(a.edac_ce) && isnan(a.edac_ue));
        CHECK(!*b.governor && isnan(b.cpus_online) && isnan(a.disk[0].reads));
        evidence_window_between(h, &a, &b, &w);
        struct result *res = result_new("p", "disk");
        CHECK(res && evidence_window_add_metrics(h, &w, NULL, res) == 0);
        for (size_t i = 0; i < res->n_families; i++)
                fprintf(stderr, "unexpected: %s\n", res->families[i].name);
        CHECK(res->n_families == 0);
        result_free(res);
        evidence_host_free(h);
        free(root);
}

/* This host, whatever it has: every source found gives its figures, and
 * the online CPUs are the ones the C library counts. */
static void test_this_host(void)
{
        struct evidence_host *h = NULL;
        struct evidence a, b;
        struct evidence_window w;
        CHECK(evidence_host_new("/", KMSG_FROM_NOW, &h) == 0);
        char *absent = evidence_host_absent_text(h);
        printf("this host lacks: %s\n", absent ? absent : "nothing");
        free(absent);
        evidence_take_start(h, &a);
        evidence_take_end(h, NULL, &b);
        evidence_window_between(h, &a, &b, &w);
        if (evidence_host_has(h, EVIDENCE_CPU_ONLINE))
                CHECK(w.cpus_online == (double)sysconf(_SC_NPROCESSORS_ONLN));
        if (evidence_host_has(h, EVIDENCE_MEMINFO))
                CHECK(w.mem_total > 0);
        if (evidence_host_has(h, EVIDENCE_CGROUP_CPU))
                CHECK(w.throttled_ratio >= 0 && w.throttled_ratio <= 1);
        if (evidence_host_has(h, EVIDENCE_CPUFREQ))
                CHECK(w.clock_hz > 0 && !strcmp(w.clock_source, "cpufreq"));
        if (evidence_host_has(h, EVIDENCE_THERMAL))
                CHECK(w.throttle_events[EVIDENCE_PACKAGE] >= 0 ||
                      w.throttle_events[EVIDENCE_CORE] >= 0);
        if (evidence_host_has(h, EVIDENCE_EDAC))
                CHECK(w.edac_ce >= 0);
        for (size_t i = 0; i < w.n_disks; i++)
                CHECK(w.disk[i].queue_depth >= 0 && w.disk[i].busy_ratio >= 0);
        CHECK(w.kmsg_ok == evidence_host_has(h, EVIDENCE_KMSG));
        evidence_host_free(h);
}

int main(void)
{
        CHECK(mkdtemp(tmp));
        test_metal_snapshot();
        test_metal_window();
        test_v1();
        test_v1_held_by_a_level();
        test_bad("bad");
        test_bad("nonexistent");
        test_this_host();
        CHECK(test_rm_tree(tmp) == 0);
        return test_failures != 0;
}
