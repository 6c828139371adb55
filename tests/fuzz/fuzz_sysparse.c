/* fuzz_sysparse.c — libFuzzer target for the kernel's counter files as
 * evidence.c reads them (core/sysparse.c): a sysfs counter, a CPU list,
 * "key value" lines, a block device's stat line, /proc/PID/cgroup.
 *
 * Input: one byte choosing the parser, then the file's text.  What is
 * accepted must hold: a counter prints back as itself; a CPU list counts
 * at least one CPU, below SYSPARSE_MAX_CPU, ids ascending; a keyed value
 * and every block stat field is a finite count >= 0; a cgroup path is
 * absolute with no "." or ".." component. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sysparse.h"

#include "fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
        return 0;
}

static void check_u64(const char *text)
{
        uint64_t v, again;
        char buf[32];
        if (sysparse_u64(text, &v) < 0)
                return;
        snprintf(buf, sizeof(buf), "%" PRIu64, v);
        if (sysparse_u64(buf, &again) < 0 || again != v)
                abort();
}

static void check_cpulist(const char *text)
{
        unsigned ids[64], n;
        if (sysparse_cpulist(text, ids, 64, &n) < 0)
                return;
        if (n < 1 || n > SYSPARSE_MAX_CPU)
                abort();
        for (unsigned i = 1; i < n && i < 64; i++)
                if (ids[i] <= ids[i - 1] || ids[i] >= SYSPARSE_MAX_CPU)
                        abort();
}

static void check_keyed(const char *text)
{
        static const char *const keys[] = { "nr_periods", "nr_throttled", "throttled_usec",
                                            "MemTotal", "HardwareCorrupted" };
        double v;
        for (size_t i = 0; i < sizeof(keys) / sizeof(*keys); i++)
                if (sysparse_keyed(text, keys[i], &v) >= 0 && (!isfinite(v) || v < 0))
                        abort();
}

static void check_blockstat(const char *text)
{
        struct sysparse_blockstat b;
        if (sysparse_blockstat(text, &b) < 0)
                return;
        const double f[] = { b.reads, b.read_ms, b.writes, b.write_ms, b.in_flight, b.io_ms,
                             b.queue_ms };
        for (size_t i = 0; i < sizeof(f) / sizeof(*f); i++)
                if (!isfinite(f[i]) || f[i] < 0)
                        abort();
}

static void check_path(const char *p)
{
        if (!p)
                return;
        if (p[0] != '/' || strstr(p, "/../") || strstr(p, "/./") || strstr(p, "\n"))
                abort();
        size_t n = strlen(p);
        if ((n >= 3 && !strcmp(p + n - 3, "/..")) || (n >= 2 && !strcmp(p + n - 2, "/.")))
                abort();
}

static void check_cgroup(const char *text)
{
        struct sysparse_cgroup c;
        if (sysparse_cgroup(text, &c) < 0)
                return;
        check_path(c.v1_path);
        check_path(c.v2_path);
        if (!c.v1_path != !c.v1_controllers)
                abort();
        sysparse_cgroup_clear(&c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        static void (*const parsers[])(const char *) = {
                check_u64, check_cpulist, check_keyed, check_blockstat, check_cgroup,
        };
        if (!size)
                return 0;
        char *text = malloc(size);
        if (!text)
                return 0;
        memcpy(text, data + 1, size - 1);
        text[size - 1] = 0;
        parsers[data[0] % (sizeof(parsers) / sizeof(*parsers))](text);
        free(text);
        return 0;
}
