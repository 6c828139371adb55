/* evidence_cost.c — what taking a run's evidence costs, and what it finds.
 *
 * The runner takes an evidence snapshot (core/evidence.h) before each run
 * and one after; the budget for the pair is well under a
 * millisecond.  This opens the host once (as the daemon would), then times
 * N pairs of snapshots plus the window between them, and prints the
 * sources found and absent, the cost per pair (mean, median, 99th
 * percentile, max, and the CPU time a pair took, which a busy host's
 * scheduling does not inflate), the figures of the last window as the
 * result would carry them, then the perf clock of a child that spins for
 * 200 ms (core/perfclock.h), or why there is none.
 *
 *   evidence_cost [ROOT [N]]      ROOT "/" (default) or a fixture tree */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/evidence.h"
#include "core/evidence_window.h"
#include "core/perfclock.h"
#include "core/result.h"
#include "util/format.h"
#include "util/parse.h"
#include "util/timeutil.h"

static int by_value(const void *a, const void *b)
{
        double x = *(const double *)a, y = *(const double *)b;
        return x < y ? -1 : x > y;
}

static void print_sources(const struct evidence_host *h)
{
        for (int s = 0; s < EVIDENCE_N_SOURCES; s++)
                printf("  %-17s %s\n", evidence_source_names[s],
                       evidence_host_has(h, (enum evidence_source)s)
                               ? "present"
                               : evidence_host_why_absent(h, (enum evidence_source)s));
}

static void print_window(const struct evidence_host *h, const struct evidence_window *w)
{
        struct result *res = result_new("cost", "none");
        if (!res || evidence_window_add_metrics(h, w, NULL, res) < 0) {
                fprintf(stderr, "out of memory\n");
                exit(1);
        }
        for (size_t i = 0; i < res->n_families; i++)
                for (size_t k = 0; k < res->families[i].n_samples; k++) {
                        const struct sample *s = &res->families[i].samples[k];
                        printf("  %s", res->families[i].name);
                        for (size_t l = 0; l < s->n_labels; l++)
                                printf("%s%s=\"%s\"", l ? "," : "{", s->labels[l].name,
                                       s->labels[l].value);
                        printf("%s %.6g\n", s->n_labels ? "}" : "", s->value);
                }
        result_free(res);
}

static double cpu_seconds(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
        return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Seconds of each of n before/after pairs, sorted; the last window; the
 * CPU time they took in all (a busy host's waits left out). */
static double *time_pairs(struct evidence_host *h, int n, struct evidence_window *ret,
                          double *ret_cpu)
{
        double *t = malloc((size_t)n * sizeof(*t)), cpu0 = cpu_seconds();
        struct evidence a, b;
        for (int i = 0; t && i < n; i++) {
                uint64_t t0 = now_ns();
                evidence_take_start(h, &a);
                evidence_take_end(h, NULL, &b);
                evidence_window_between(h, &a, &b, ret);
                t[i] = (double)(now_ns() - t0) / 1e9;
        }
        *ret_cpu = cpu_seconds() - cpu0;
        if (t)
                qsort(t, (size_t)n, sizeof(*t), by_value);
        return t;
}

/* The perf clock of a child spinning for 200 ms, counted from its start. */
static void perf_spin(void)
{
        struct perfclock *p = NULL;
        int go[2];
        double cycles, task_ns;
        char q[32], d[32];
        if (pipe(go) < 0)
                return;
        pid_t pid = fork();
        if (pid == 0) {
                char c;
                close(go[1]);
                if (read(go[0], &c, 1) < 0)
                        _exit(1);
                uint64_t end = now_ns() + 200000000;
                while (now_ns() < end)
                        ;
                _exit(0);
        }
        close(go[0]);
        int r = pid > 0 ? perfclock_open(pid, &p) : -1;
        if (write(go[1], "x", 1) < 0)
                r = -1;
        close(go[1]);
        if (pid > 0)
                waitpid(pid, NULL, 0);
        if (r >= 0)
                r = perfclock_read(p, &cycles, &task_ns);
        if (r >= 0)
                printf("perf clock of a 200 ms spin: %sHz (%s on a CPU)\n",
                       format_quantity(cycles / task_ns * 1e9, false, q, sizeof(q)),
                       format_duration(task_ns / 1e9, d, sizeof(d)));
        else
                printf("perf clock: %s\n", strerror(-r));
        perfclock_free(p);
}

int main(int argc, char **argv)
{
        const char *root = argc > 1 ? argv[1] : "/";
        int64_t n = 1000;
        struct evidence_host *h = NULL;
        struct evidence_window w;
        char q[4][32];
        uint64_t t0 = now_ns();
        if ((argc > 2 && (parse_int64(argv[2], &n) < 0 || n < 1 || n > 1000000)) ||
            evidence_host_new(root, KMSG_FROM_NOW, &h) < 0) {
                fprintf(stderr, "usage: evidence_cost [ROOT [N]]\n");
                return 2;
        }
        double open_s = (double)(now_ns() - t0) / 1e9;
        printf("sources under %s (found in %s):\n", root,
               format_quantity(open_s, true, q[0], sizeof(q[0])));
        print_sources(h);
        size_t kept, files = evidence_host_n_files(h, &kept);
        printf("%zu files a snapshot (%zu kept open), %zu NVMe controllers, kernel log %s\n",
               files, kept, evidence_host_n_nvme(h),
               evidence_host_has(h, EVIDENCE_KMSG) ? "polled" : "not read");
        double cpu = 0, *t = time_pairs(h, (int)n, &w, &cpu), sum = 0;
        if (!t)
                return 1;
        for (int i = 0; i < n; i++)
                sum += t[i];
        printf("%d snapshot pairs (before + after + window): mean %s, median %s, "
               "p99 %s, max %s\n", (int)n, format_quantity(sum / n, true, q[0], sizeof(q[0])),
               format_quantity(t[n / 2], true, q[1], sizeof(q[1])),
               format_quantity(t[(int)floor(0.99 * (n - 1))], true, q[2], sizeof(q[2])),
               format_quantity(t[n - 1], true, q[3], sizeof(q[3])));
        printf("CPU time a pair: %s\n", format_quantity(cpu / (double)n, true, q[0], sizeof(q[0])));
        printf("the last window's figures:\n");
        print_window(h, &w);
        perf_spin();
        free(t);
        evidence_host_free(h);
        return 0;
}
