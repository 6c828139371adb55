/* test_yield.c — the yield monitor on the real host: the probe's own CPU
 * use, however large, is not "other work" (the monitored process burns
 * every CPU: no yield at a limit that counting it would cross);
 * other processes' use is (children burning every CPU, the monitored
 * process asleep: a yield for cpu within a few samples); a probe process
 * that is gone is an error, not a verdict; the share others took over the
 * whole run is recorded the same way. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "test.h"
#include "core/yield.h"

static volatile int burning = 1;

static void *burn(void *arg)
{
        volatile unsigned long x = 0;
        while (burning)
                x++;
        return NULL;
}

static void nap(double s)
{
        struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };
        nanosleep(&ts, NULL);
}

/* Yield verdicts in n samples of m. */
static int verdicts(struct yield_monitor *m, int n, const char **ret_reason)
{
        int yes = 0;
        for (int i = 0; i < n; i++) {
                char *why = NULL;
                nap(YIELD_INTERVAL);
                int r = yield_monitor_sample(m, ret_reason, &why);
                CHECK(r >= 0);
                if (r > 0)
                        printf("  yield: %s (%s)\n", *ret_reason, why);
                yes += r > 0;
                free(why);
        }
        return yes;
}

/* 4 threads per CPU, so that other work on a shared host gets little of
 * the CPU while they run. */
static void own_use_is_not_others(long ncpu)
{
        const struct yield_limits lim = { .cpu = 75 };
        struct yield_monitor *m;
        pthread_t t[64];
        const char *reason = NULL;
        burning = 1;
        for (long i = 0; i < 4 * ncpu && i < 64; i++)
                CHECK(pthread_create(&t[i], NULL, burn, NULL) == 0);
        nap(0.2);
        CHECK(yield_monitor_new(&lim, getpid(), false, &m) == 0);
        int yes = verdicts(m, 8, &reason);
        struct yield_others o;
        yield_monitor_others(m, &o);  /* the whole run's share, for the record */
        CHECK(o.cpu >= 0 && o.cpu < 0.75);
        CHECK(isnan(o.io) && isnan(o.memory)); /* checks not asked for */
        burning = 0;
        for (long i = 0; i < 4 * ncpu && i < 64; i++)
                pthread_join(t[i], NULL);
        yield_monitor_free(m);
        CHECK(yes == 0);
}

static void others_use_is_seen(long ncpu)
{
        const struct yield_limits lim = { .cpu = 60 };
        struct yield_monitor *m;
        pid_t kids[128];
        const char *reason = NULL;
        long n = 2 * ncpu < 128 ? 2 * ncpu : 128;
        burning = 1;
        for (long i = 0; i < n; i++) {
                kids[i] = fork();
                CHECK(kids[i] >= 0);
                if (kids[i] == 0) {
                        burn(NULL);
                        _exit(0);
                }
        }
        CHECK(yield_monitor_new(&lim, getpid(), false, &m) == 0);
        int yes = verdicts(m, 4, &reason);
        struct yield_others o;
        yield_monitor_others(m, &o);
        printf("  others' share over the samples: %.0f%%\n", 100 * o.cpu);
        CHECK(o.cpu > 0.3 && o.cpu <= 1);
        for (long i = 0; i < n; i++)
                kill(kids[i], SIGKILL);
        for (long i = 0; i < n; i++)
                waitpid(kids[i], NULL, 0);
        yield_monitor_free(m);
        CHECK(yes >= 1 && !strcmp(reason, "cpu"));
}

static void gone_is_an_error(void)
{
        const struct yield_limits lim = { .cpu = 60, .io = 1e6 };
        struct yield_monitor *m;
        const char *reason = NULL;
        char *why = NULL;
        pid_t kid = fork();
        CHECK(kid >= 0);
        if (kid == 0)
                _exit(0);
        m = NULL;
        (void)yield_monitor_new(&lim, kid, true, &m); /* it may be gone already */
        waitpid(kid, NULL, 0);
        if (m) {
                CHECK(yield_monitor_sample(m, &reason, &why) < 0 && !why);
                yield_monitor_free(m);
        }
        CHECK(!yield_limits_any(&(struct yield_limits){ 0 }) && yield_limits_any(&lim));
}

/* A VM losing a quarter of its CPU to steal, its own services taking all
 * the rest: the share others took is of the time the host was given, so
 * a limit below 100% can still be reached. */
static void steal_is_not_the_hosts_time(void)
{
        char path[] = "/tmp/test_yield_statXXXXXX";
        int fd = mkstemp(path);
        CHECK(fd >= 0);
        /* user nice system idle iowait irq softirq steal guest guest_nice */
        const char line[] = "cpu  600 0 150 0 0 0 0 250 0 0\ncpu0 300 0 75 0 0 0 0 125 0 0\n";
        CHECK(write(fd, line, sizeof(line) - 1) == (ssize_t)(sizeof(line) - 1));
        close(fd);
        double busy = 0, total = 0;
        CHECK(yield_host_cpu(path, &busy, &total) == 0);
        CHECK(busy == 750 && total == 750);
        unlink(path);
        CHECK(yield_host_cpu(path, &busy, &total) < 0);
}

int main(void)
{
        long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
        CHECK(ncpu > 0);
        own_use_is_not_others(ncpu);
        others_use_is_seen(ncpu);
        gone_is_an_error();
        steal_is_not_the_hosts_time();
        printf("test_yield: ok\n");
        return 0;
}
