/* test_busy.c — the busy check reads PSI and loadavg files as the kernel
 * writes them, decides on the right signal, and skips what is missing. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/busy.h"
#include "test.h"

static char dir[] = "/tmp/test_load.XXXXXX";

static void put(const char *name, const char *text)
{
        char path[256];
        snprintf(path, sizeof(path), "%s/%s", dir, name);
        FILE *f = fopen(path, "we");
        CHECK(f);
        fputs(text, f);
        CHECK(fclose(f) == 0);
}

static void psi(const char *name, const char *some_avg10)
{
        char text[256], file[64];
        snprintf(text, sizeof(text),
                 "some avg10=%s avg60=1.00 avg300=0.50 total=123456\n"
                 "full avg10=99.00 avg60=0.00 avg300=0.00 total=0\n", some_avg10);
        snprintf(file, sizeof(file), "pressure/%s", name);
        put(file, text);
}

static void test_readers(void)
{
        char path[256];
        double v = -1;
        psi("cpu", "12.34");
        snprintf(path, sizeof(path), "%s/pressure/cpu", dir);
        CHECK(busy_read_psi(path, &v) == 0);
        CHECK_NEAR(v, 12.34, 1e-9);
        put("pressure/io", "garbage\n");
        snprintf(path, sizeof(path), "%s/pressure/io", dir);
        CHECK(busy_read_psi(path, &v) == -EINVAL);
        CHECK_NEAR(v, 12.34, 1e-9); /* untouched on failure */
        snprintf(path, sizeof(path), "%s/pressure/nosuch", dir);
        CHECK(busy_read_psi(path, &v) == -ENOENT);
        put("loadavg", "3.50 2.00 1.00 2/345 6789\n");
        snprintf(path, sizeof(path), "%s/loadavg", dir);
        CHECK(busy_read_loadavg(path, &v) == 0);
        CHECK_NEAR(v, 3.5, 1e-9);
}

static void test_busy(void)
{
        struct busy_limits lim = { .max_psi_cpu = 25, .max_psi_io = 25,
                                   .max_psi_memory = 10 };
        char *why = NULL;
        psi("cpu", "0.00");
        psi("io", "24.99");
        psi("memory", "10.00");
        CHECK(busy_check(&lim, NULL, &why) == 0 && !why); /* at the limit is not over */
        psi("io", "25.01");
        CHECK(busy_check(&lim, NULL, &why) == 1);
        CHECK_STR_CONTAINS(why, "io pressure 25.0% > 25%");
        free(why);
        why = NULL;
        lim.max_psi_io = 0; /* 0 disables a check */
        CHECK(busy_check(&lim, NULL, &why) == 0);
        psi("memory", "50.00");
        CHECK(busy_check(&lim, NULL, &why) == 1);
        CHECK_STR_CONTAINS(why, "memory pressure 50.0% > 10%");
        free(why);
        why = NULL;
        lim = (struct busy_limits){ .max_load = 0.5 };
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        char text[64];
        snprintf(text, sizeof(text), "%.2f 0.1 0.1 1/1 1\n", 0.4 * (double)cpus);
        put("loadavg", text);
        CHECK(busy_check(&lim, NULL, &why) == 0);
        snprintf(text, sizeof(text), "%.2f 0.1 0.1 1/1 1\n", 0.6 * (double)cpus);
        put("loadavg", text);
        CHECK(busy_check(&lim, NULL, &why) == 1);
        CHECK_STR_CONTAINS(why, "(0.60 per CPU) > 0.5 per CPU");
        free(why);
}

static void test_missing_psi(void)
{
        /* a kernel without PSI: the checks are skipped, not "busy" */
        struct busy_limits lim = { .max_psi_cpu = 0.001, .max_psi_io = 0.001,
                                   .max_psi_memory = 0.001 };
        char *why = NULL;
        setenv("BENCHWATCH_PROC_DIR", "/nonexistent", 1);
        CHECK(busy_check(&lim, NULL, &why) == 0 && !why);
}

int main(void)
{
        char sub[300];
        CHECK(mkdtemp(dir));
        snprintf(sub, sizeof(sub), "%s/pressure", dir);
        CHECK(mkdir(sub, 0700) == 0);
        setenv("BENCHWATCH_PROC_DIR", dir, 1);
        test_readers();
        test_busy();
        test_missing_psi();
        const char *files[] = { "pressure/cpu", "pressure/io", "pressure/memory", "loadavg" };
        for (size_t i = 0; i < 4; i++) {
                char p[300];
                snprintf(p, sizeof(p), "%s/%s", dir, files[i]);
                unlink(p);
        }
        rmdir(sub);
        rmdir(dir);
        return 0;
}
