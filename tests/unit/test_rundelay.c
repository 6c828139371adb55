/* test_rundelay.c — a probe's threads' run delay is summed over every
 * thread seen, a thread that exits keeps what it had waited, and a real
 * thread that waits for a CPU is seen waiting. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/rundelay.h"
#include "test.h"
#include "util/timeutil.h"

static char dir[] = "/tmp/test_rundelay.XXXXXX";

static void put(long tid, unsigned long long cpu, unsigned long long delay)
{
        char path[256];
        snprintf(path, sizeof(path), "%s/77/task/%ld", dir, tid);
        mkdir(path, 0755);
        snprintf(path, sizeof(path), "%s/77/task/%ld/schedstat", dir, tid);
        FILE *f = fopen(path, "we");
        CHECK(f);
        fprintf(f, "%llu %llu 12\n", cpu, delay);
        CHECK(fclose(f) == 0);
}

static void gone(long tid)
{
        char path[256];
        snprintf(path, sizeof(path), "%s/77/task/%ld/schedstat", dir, tid);
        CHECK(unlink(path) == 0);
        snprintf(path, sizeof(path), "%s/77/task/%ld", dir, tid);
        CHECK(rmdir(path) == 0);
}

/* Two threads; one exits between samples: its last reading still counts.
 * A thread ran between two samples (active) when its CPU time grew; its
 * first sample, whatever it had waited, is not counted. */
static void test_exited_threads_count(void)
{
        char path[256];
        struct rundelay *d = NULL;
        snprintf(path, sizeof(path), "%s/77", dir);
        CHECK(mkdir(path, 0755) == 0);
        snprintf(path, sizeof(path), "%s/77/task", dir);
        CHECK(mkdir(path, 0755) == 0);
        put(77, 1000, 100000000);   /* main thread: 0.1 s waited */
        put(78, 5000, 200000000);   /* worker: 0.2 s */
        CHECK(rundelay_new(dir, 77, &d) == 0);
        CHECK(rundelay_sample(d) == 0);
        CHECK_NEAR(rundelay_seconds(d), 0.3, 1e-9);
        CHECK(rundelay_active(d) == 0);
        put(78, 9000, 500000000);   /* the worker waited 0.3 s more, */
        CHECK(rundelay_sample(d) == 0);
        CHECK(rundelay_active(d) == 1);
        gone(78);                   /* then exited */
        put(77, 2000, 150000000);
        CHECK(rundelay_sample(d) == 0);
        CHECK_NEAR(rundelay_seconds(d), 0.65, 1e-9);
        CHECK(rundelay_threads(d) == 2 && rundelay_active(d) == 1);
        put(79, 1, 50000000);       /* a thread started late */
        CHECK(rundelay_sample(d) == 0);
        CHECK_NEAR(rundelay_seconds(d), 0.7, 1e-9);
        CHECK(rundelay_active(d) == 0);
        /* on-CPU time the same way: 2000 + 9000 (kept after the exit) + 1 ns */
        CHECK_NEAR(rundelay_cpu_seconds(d), 11001e-9, 1e-9);
        rundelay_free(d);
        CHECK(rundelay_new(dir, 12345, &d) == 0);
        CHECK(rundelay_sample(d) == -ENOENT); /* no such process */
        CHECK(rundelay_seconds(d) == 0);
        rundelay_free(d);
}

struct spin {
        uint64_t until;
};

static void *spinner(void *arg)
{
        const struct spin *s = arg;
        while (now_ns() < s->until)
                ;
        return NULL;
}

/* More spinning threads than CPUs: together they must wait for a CPU
 * about (threads - CPUs) x the time. */
static void test_real_threads(void)
{
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        unsigned n = (unsigned)(cpus > 0 && cpus < 16 ? cpus : 16) + 2;
        pthread_t t[18];
        struct spin s = { .until = now_ns() + 400000000u };
        struct rundelay *d = NULL;
        CHECK(rundelay_new("/proc", getpid(), &d) == 0);
        for (unsigned i = 0; i < n; i++)
                CHECK(pthread_create(&t[i], NULL, spinner, &s) == 0);
        sleep_until_ns(s.until - 50000000u);
        CHECK(rundelay_sample(d) == 0);
        for (unsigned i = 0; i < n; i++)
                pthread_join(t[i], NULL);
        CHECK(rundelay_threads(d) >= n);
        /* 2 threads too many for 0.35 s: ~0.7 s of waiting, at least half */
        if (rundelay_seconds(d) < 0.35) {
                fprintf(stderr, "run delay %.3f s with %u spinners on %ld CPUs\n",
                        rundelay_seconds(d), n, cpus);
                exit(1);
        }
        rundelay_free(d);
}

int main(void)
{
        if (access("/proc/self/task/", R_OK) != 0 ||
            access("/proc/thread-self/schedstat", R_OK) != 0) {
                fprintf(stderr, "SKIP: no /proc/thread-self/schedstat (CONFIG_SCHED_INFO)\n");
                return 77;
        }
        CHECK(mkdtemp(dir));
        test_exited_threads_count();
        test_real_threads();
        CHECK(test_rm_tree(dir) == 0);
        return 0;
}
