/* test_sysparse.c — the kernel's counter files are read as the kernel
 * writes them, and anything else (a sign, a fraction, garbage after the
 * number, a value past 2^64, an empty field, a descending CPU range) is
 * refused rather than read as some other number. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/sysparse.h"
#include "test.h"

static void test_u64(void)
{
        uint64_t v = 7;
        CHECK(sysparse_u64("123\n", &v) == 0 && v == 123);
        CHECK(sysparse_u64("  0 \n", &v) == 0 && v == 0);
        CHECK(sysparse_u64("18446744073709551615\n", &v) == 0 && v == UINT64_MAX);
        v = 7;
        CHECK(sysparse_u64("18446744073709551616", &v) == -ERANGE);
        CHECK(sysparse_u64("99999999999999999999999", &v) == -ERANGE);
        CHECK(sysparse_u64("-1", &v) == -EINVAL);
        CHECK(sysparse_u64("+1", &v) == -EINVAL);
        CHECK(sysparse_u64("1.5", &v) == -EINVAL);
        CHECK(sysparse_u64("2.5e6", &v) == -EINVAL);
        CHECK(sysparse_u64("12abc", &v) == -EINVAL);
        CHECK(sysparse_u64("12 13", &v) == -EINVAL);
        CHECK(sysparse_u64("", &v) == -EINVAL);
        CHECK(sysparse_u64("\n", &v) == -EINVAL);
        CHECK(v == 7); /* untouched on failure */
}

static void test_cpulist(void)
{
        unsigned n = 99, ids[8];
        CHECK(sysparse_cpulist("0-3,5,7-8\n", ids, 8, &n) == 0 && n == 7);
        CHECK(ids[0] == 0 && ids[3] == 3 && ids[4] == 5 && ids[5] == 7 && ids[6] == 8);
        CHECK(sysparse_cpulist("0\n", NULL, 0, &n) == 0 && n == 1);
        CHECK(sysparse_cpulist("0-191", ids, 8, &n) == 0 && n == 192 && ids[7] == 7);
        n = 99;
        CHECK(sysparse_cpulist("3-1\n", NULL, 0, &n) == -EINVAL);
        CHECK(sysparse_cpulist("1,0", NULL, 0, &n) == -EINVAL);   /* must ascend */
        CHECK(sysparse_cpulist("0-3,2", NULL, 0, &n) == -EINVAL); /* nor overlap */
        CHECK(sysparse_cpulist("", NULL, 0, &n) == -EINVAL);
        CHECK(sysparse_cpulist("0,", NULL, 0, &n) == -EINVAL);
        CHECK(sysparse_cpulist("0-", NULL, 0, &n) == -EINVAL);
        CHECK(sysparse_cpulist("a-b", NULL, 0, &n) == -EINVAL);
        CHECK(sysparse_cpulist("0-65536", NULL, 0, &n) == -EINVAL);
        CHECK(sysparse_cpulist("0-4294967296", NULL, 0, &n) == -EINVAL);
        CHECK(n == 99);
}

static void test_keyed(void)
{
        const char *stat = "usage_usec 8213410\nnr_periods 200\nnr_throttled 10\n"
                           "throttled_usec 150000\n";
        const char *meminfo = "MemTotal:       32768000 kB\nMemFree:  1 kB\n"
                              "HugePages_Total:       0\nHardwareCorrupted:     8 kB\n";
        double v = -1;
        CHECK(sysparse_keyed(stat, "nr_throttled", &v) == 0 && v == 10);
        CHECK(sysparse_keyed(stat, "throttled_usec", &v) == 0 && v == 150000);
        /* a key is a whole word: nr_periods is not "nr_period" */
        CHECK(sysparse_keyed(stat, "nr_period", &v) == -ENOENT);
        CHECK(sysparse_keyed(stat, "throttled_time", &v) == -ENOENT);
        CHECK(sysparse_keyed(meminfo, "MemTotal", &v) == 0 && v == 32768000.0 * 1024);
        CHECK(sysparse_keyed(meminfo, "HardwareCorrupted", &v) == 0 && v == 8192);
        CHECK(sysparse_keyed(meminfo, "HugePages_Total", &v) == 0 && v == 0);
        v = -1;
        CHECK(sysparse_keyed("HardwareCorrupted: lots kB\n", "HardwareCorrupted", &v) ==
              -EINVAL);
        CHECK(sysparse_keyed("nr_periods x\n", "nr_periods", &v) == -EINVAL);
        CHECK(sysparse_keyed("nr_periods 5 6\n", "nr_periods", &v) == -EINVAL);
        CHECK(sysparse_keyed("nr_periods -5\n", "nr_periods", &v) == -EINVAL);
        CHECK(sysparse_keyed("nr_periods 5 MB\n", "nr_periods", &v) == -EINVAL);
        CHECK(sysparse_keyed("", "nr_periods", &v) == -ENOENT);
        CHECK(sysparse_keyed("x", "", &v) == -ENOENT);
        CHECK(v == -1);
}

static void test_blockstat(void)
{
        struct sysparse_blockstat b = { 0 };
        /* 17 fields (5.5+), and the 11 of older kernels */
        CHECK(sysparse_blockstat("    1000        0     8000      500     2000       10    16000 "
                                 "    3000        1     2500     3600        0        0        0 "
                                 "       0       10        5\n", &b) == 0);
        CHECK(b.reads == 1000 && b.read_ms == 500 && b.writes == 2000 && b.write_ms == 3000);
        CHECK(b.in_flight == 1 && b.io_ms == 2500 && b.queue_ms == 3600);
        CHECK(sysparse_blockstat("400 0 3200 2000 0 0 0 0 0 1800 2000\n", &b) == 0);
        CHECK(b.reads == 400 && b.writes == 0 && b.queue_ms == 2000);
        b.reads = -1;
        CHECK(sysparse_blockstat("1 2 3 4 5\n", &b) == -EINVAL);
        CHECK(sysparse_blockstat("1 2 3 4 5 6 7 8 9 10 -11\n", &b) == -EINVAL);
        CHECK(sysparse_blockstat("1 2 3 4x 5 6 7 8 9 10 11\n", &b) == -EINVAL);
        CHECK(sysparse_blockstat("", &b) == -EINVAL);
        CHECK(b.reads == -1);
}

static void test_cgroup(void)
{
        struct sysparse_cgroup c;
        CHECK(sysparse_cgroup("0::/system.slice/benchwatch.service\n", &c) == 0);
        CHECK(!c.v1_path && !strcmp(c.v2_path, "/system.slice/benchwatch.service"));
        sysparse_cgroup_clear(&c);
        CHECK(sysparse_cgroup("12:pids:/user.slice\n4:cpu,cpuacct:/user.slice/s.scope\n"
                              "3:cpuset:/\n1:name=systemd:/x\n0::/user.slice/s.scope\n", &c) == 0);
        CHECK(!strcmp(c.v1_controllers, "cpu,cpuacct"));
        CHECK(!strcmp(c.v1_path, "/user.slice/s.scope"));
        CHECK(!strcmp(c.v2_path, "/user.slice/s.scope"));
        sysparse_cgroup_clear(&c);
        /* "cpuset" and "cpuacct" alone are not "cpu"; a path outside the
         * namespace is not ours to read */
        CHECK(sysparse_cgroup("3:cpuset:/a\n2:cpuacct:/b\n0::/../../escape\n", &c) == 0);
        CHECK(!c.v1_controllers && !c.v1_path && !c.v2_path);
        CHECK(sysparse_cgroup("0::relative\n1:cpu:/a/./b\n", &c) == 0);
        CHECK(!c.v2_path && !c.v1_path);
        sysparse_cgroup_clear(&c);
        c.v2_path = (char *)"untouched";
        CHECK(sysparse_cgroup("no colons here\n", &c) == -EINVAL);
        CHECK(sysparse_cgroup(":cpu:/a\n", &c) == -EINVAL);
        CHECK(sysparse_cgroup("x:cpu:/a\n", &c) == -EINVAL);
        CHECK(!strcmp(c.v2_path, "untouched"));
        CHECK(sysparse_cgroup("", &c) == 0 && !c.v2_path);
}

int main(void)
{
        test_u64();
        test_cpulist();
        test_keyed();
        test_blockstat();
        test_cgroup();
        return 0;
}
