/* busy.c — is the host busy? (see busy.h). */
#include "core/busy.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/result.h"
#include "util/fdio.h"
#include "util/parse.h"
#include "util/strutil.h"
#include "util/timeutil.h"

#define PROC_FILE_MAX 512 /* PSI and loadavg files are a line or two */

/* The number that follows `key` in text, up to the next space or newline. */
static int number_after(const char *text, const char *key, double *ret)
{
        const char *p = strstr(text, key);
        if (!p)
                return -EINVAL;
        p += strlen(key);
        size_t len = strcspn(p, " \n");
        if (!len || len > 31)
                return -EINVAL;
        char num[32];
        memcpy(num, p, len);
        num[len] = 0;
        return parse_double(num, ret);
}

/* The number after `key` on the "some" line of a PSI file. */
static int psi_some(const char *path, const char *key, double *ret)
{
        char buf[PROC_FILE_MAX];
        int r = fdio_read_small(path, buf, sizeof(buf));
        if (r < 0)
                return r;
        if (strncmp(buf, "some ", 5))
                return -EINVAL;
        /* only the first line ("some"); "full" follows on the next */
        buf[strcspn(buf, "\n")] = 0;
        return number_after(buf, key, ret);
}

int busy_read_psi(const char *path, double *ret_avg10)
{
        return psi_some(path, " avg10=", ret_avg10);
}

int busy_read_loadavg(const char *path, double *ret_load1)
{
        char buf[PROC_FILE_MAX];
        int r = fdio_read_small(path, buf, sizeof(buf));
        if (r < 0)
                return r;
        buf[strcspn(buf, " \n")] = 0;
        return parse_double(buf, ret_load1);
}

static const char *proc_dir(void)
{
        const char *d = getenv("BENCHWATCH_PROC_DIR");
        return d && *d ? d : "/proc";
}

const char *const busy_psi_names[BUSY_N_PSI] = { "cpu", "io", "memory" };

/* "some total=" (microseconds) of a PSI file. */
static int busy_read_psi_total(const char *path, double *ret_us)
{
        return psi_some(path, " total=", ret_us);
}

/* The total and steal jiffies of the "cpu" line of a /proc/stat file. */
static int busy_read_steal(const char *path, double *ret_total, double *ret_steal)
{
        char buf[PROC_FILE_MAX];
        double f[8];
        int r = fdio_read_small(path, buf, sizeof(buf));
        if (r < 0)
                return r;
        if (strncmp(buf, "cpu ", 4))
                return -EINVAL;
        /* user nice system idle iowait irq softirq steal (guest time is
         * already inside user and nice) */
        if (sscanf(buf + 4, "%lf %lf %lf %lf %lf %lf %lf %lf", &f[0], &f[1], &f[2], &f[3],
                   &f[4], &f[5], &f[6], &f[7]) != 8)
                return -EINVAL;
        double total = 0;
        for (int i = 0; i < 8; i++)
                total += f[i];
        *ret_total = total;
        *ret_steal = f[7];
        return 0;
}

void busy_snapshot_take(struct busy_snapshot *ret)
{
        char *path = str_printf("%s/stat", proc_dir());
        ret->cpu_total = ret->cpu_steal = NAN;
        if (path && busy_read_steal(path, &ret->cpu_total, &ret->cpu_steal) < 0)
                ret->cpu_total = ret->cpu_steal = NAN;
        free(path);
        for (int i = 0; i < BUSY_N_PSI; i++) {
                ret->psi_total[i] = NAN;
                path = str_printf("%s/pressure/%s", proc_dir(), busy_psi_names[i]);
                if (path && busy_read_psi_total(path, &ret->psi_total[i]) < 0)
                        ret->psi_total[i] = NAN;
                free(path);
        }
        ret->mono = now_mono();
}

void busy_window_between(const struct busy_snapshot *a, const struct busy_snapshot *b,
                         struct busy_window *ret)
{
        double dt = b->cpu_total - a->cpu_total, wall = (b->mono - a->mono) * 1e6;
        ret->steal = dt > 0 ? fmin(fmax((b->cpu_steal - a->cpu_steal) / dt, 0), 1) : NAN;
        for (int i = 0; i < BUSY_N_PSI; i++) {
                double d = b->psi_total[i] - a->psi_total[i];
                ret->pressure[i] = wall > 0 && d >= 0 ? fmin(d / wall, 1) : NAN;
        }
}

/* 1 and *ret_why when the PSI file `name` is above limit; 0 otherwise. */
static int psi_over(const char *name, double limit, char **ret_why)
{
        if (limit <= 0)
                return 0;
        char *path = str_printf("%s/pressure/%s", proc_dir(), name);
        if (!path)
                return -ENOMEM;
        double v = 0;
        int r = busy_read_psi(path, &v);
        free(path);
        if (r < 0 || v <= limit)
                return 0; /* no PSI here: nothing to go by */
        *ret_why = str_printf("%s pressure %.1f%% > %g%%", name, v, limit);
        return *ret_why ? 1 : -ENOMEM;
}

static int loadavg_over(double limit, char **ret_why)
{
        if (limit <= 0)
                return 0;
        char *path = str_printf("%s/loadavg", proc_dir());
        if (!path)
                return -ENOMEM;
        double v = 0;
        int r = busy_read_loadavg(path, &v);
        free(path);
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        if (r < 0)
                return 0;
        double per_cpu = v / (double)(cpus > 0 ? cpus : 1);
        if (per_cpu <= limit)
                return 0;
        *ret_why = str_printf("load average %.2f (%.2f per CPU) > %g per CPU", v,
                              per_cpu, limit);
        return *ret_why ? 1 : -ENOMEM;
}

int busy_check(const struct busy_limits *lim, const char **ret_reason, char **ret_why)
{
        char *why = NULL;
        const char *reason = busy_psi_names[BUSY_PSI_CPU];
        int r = psi_over(reason, lim->max_psi_cpu, &why);
        if (r == 0)
                r = psi_over(reason = busy_psi_names[BUSY_PSI_IO], lim->max_psi_io, &why);
        if (r == 0)
                r = psi_over(reason = busy_psi_names[BUSY_PSI_MEMORY], lim->max_psi_memory, &why);
        if (r == 0) {
                reason = "load";
                r = loadavg_over(lim->max_load, &why);
        }
        if (r > 0) {
                *ret_why = why;
                if (ret_reason)
                        *ret_reason = reason;
        }
        return r;
}

int busy_window_add_metrics(const struct busy_window *w, struct result *res)
{
        int r = 0;
        if (!isnan(w->steal))
                r = result_add(res, "benchwatch_probe_steal_ratio",
                               "Share of the host's CPU time stolen by the hypervisor during the "
                               "run",
                               METRIC_GAUGE, NULL, w->steal, NULL);
        for (int i = 0; i < BUSY_N_PSI && r >= 0; i++) {
                const char *lv[] = { "resource", busy_psi_names[i], NULL };
                if (!isnan(w->pressure[i]))
                        r = result_add(res, "benchwatch_probe_pressure_ratio",
                                       "Share of the run's time in which some task (the probe's "
                                       "own "
                                       "included) waited for the resource (PSI some)",
                                       METRIC_GAUGE, lv, w->pressure[i], NULL);
        }
        return r;
}
