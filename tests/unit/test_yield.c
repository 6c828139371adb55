/* test_yield.c — the yield monitor on the real host: the probe's own CPU
 * use and waits, however large, are not others' (the monitored process
 * runs 4 threads a CPU: no yield for others' waits); other processes'
 * waits are (children burning every CPU twice over, the monitored
 * process asleep: a yield for cpu within a few samples, and no room); a
 * probe starved by the host's work yields; a probe process that is gone
 * is an error, not a verdict; /proc/stat is read per CPU, steal left out,
 * only the allowed CPUs counted for room. */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "test.h"
#include "core/evidence.h"
#include "core/plugin.h"
#include "core/rundelay.h"
#include "core/yield.h"
#include "util/timeutil.h"

static volatile int burning = 1;

static void *burn(void *arg)
{
        volatile unsigned long x = 0;
        if (arg) /* the probe's place: any other work preempts it */
                CHECK(sched_setscheduler(0, SCHED_IDLE, &(struct sched_param){ 0 }) == 0);
        while (burning)
                x++;
        return NULL;
}

static void nap(double s)
{
        struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };
        nanosleep(&ts, NULL);
}

static bool have_psi(void)
{
        return access("/proc/pressure/cpu", R_OK) == 0;
}

/* Yield verdicts in n samples of m, the probe's run delay d (may be NULL)
 * sampled before each, as the runner does. */
static int verdicts(struct yield_monitor *m, struct rundelay *d, int n, const char **ret_reason)
{
        int yes = 0;
        for (int i = 0; i < n; i++) {
                char *why = NULL;
                nap(YIELD_INTERVAL);
                if (d)
                        CHECK(rundelay_sample(d) == 0);
                int r = yield_monitor_sample(m, ret_reason, &why);
                CHECK(r >= 0);
                if (r > 0)
                        printf("  yield: %s (%s)\n", *ret_reason, why);
                yes += r > 0;
                free(why);
        }
        return yes;
}

static pid_t *burn_kids(long n)
{
        pid_t *kids = calloc((size_t)n, sizeof(*kids));
        CHECK(kids);
        burning = 1;
        for (long i = 0; i < n; i++) {
                kids[i] = fork();
                CHECK(kids[i] >= 0);
                if (kids[i] == 0) {
                        burn(NULL);
                        _exit(0);
                }
        }
        return kids;
}

static void reap(pid_t *kids, long n)
{
        for (long i = 0; i < n; i++)
                kill(kids[i], SIGKILL);
        for (long i = 0; i < n; i++)
                waitpid(kids[i], NULL, 0);
        free(kids);
}

/* Others' waits from PSI less the probe's own, on numbers: 16 of the
 * probe's threads each waiting 0.1 s on 16 busy CPUs raise "some" by
 * 0.1 s, not 1.6 s, so others' 0.2 s beside them are still seen (the
 * whole sum taken off left none: a big host's yield never fired). */
static void own_waits_spread_over_cpus(void)
{
        CHECK(fabs(yield_others_wait(0.3, 1.6, 16, 1) - 0.2) < 1e-9);
        /* 4 threads per CPU of a 2-CPU host waiting for each other */
        CHECK(yield_others_wait(1.0, 3.0, 2, 1) == 0);
        /* less than one CPU busy: the probe's waits count whole */
        CHECK(fabs(yield_others_wait(0.5, 0.2, 0.6, 1) - 0.3) < 1e-9);
        CHECK(yield_others_wait(0.1, 0, 16, 1) > 0.099);
        CHECK(isnan(yield_others_wait(NAN, 0, 1, 1)));
        CHECK(isnan(yield_others_wait(0.1, 0, 1, 0)));
}

/* 4 threads per CPU of the monitored process: they wait for each other,
 * which is not others waiting. */
static void own_waits_are_not_others(long ncpu)
{
        const struct yield_limits lim = { .cpu_wait = 25 };
        struct yield_monitor *m;
        struct rundelay *d;
        pthread_t t[64];
        const char *reason = NULL;
        long n = 4 * ncpu < 64 ? 4 * ncpu : 64;
        burning = 1;
        for (long i = 0; i < n; i++)
                CHECK(pthread_create(&t[i], NULL, burn, NULL) == 0);
        nap(0.2);
        CHECK(rundelay_new("/proc", getpid(), &d) == 0 && rundelay_sample(d) == 0);
        CHECK(yield_monitor_new(&lim, getpid(), BW_CAP_CPU_BOUND, d, NULL, &m) == 0);
        int yes = verdicts(m, d, 8, &reason);
        struct yield_others o;
        yield_monitor_others(m, &o);  /* the whole run's, for the record */
        CHECK(o.cpu >= 0 && o.cpu < 0.75);
        CHECK(isnan(o.io) && isnan(o.memory)); /* checks not asked for */
        CHECK(isnan(o.cpu_wait) || o.cpu_wait < 0.25);
        burning = 0;
        for (long i = 0; i < n; i++)
                pthread_join(t[i], NULL);
        yield_monitor_free(m);
        rundelay_free(d);
        CHECK(yes == 0);
}

/* Children burning every CPU twice over, the monitored process asleep:
 * they wait for each other, the look finds no room, a run yields. */
static void others_waits_are_seen(long ncpu)
{
        const struct yield_limits lim = { .cpu_wait = 25 };
        struct yield_monitor *m;
        const char *reason = NULL;
        long n = 2 * ncpu < 128 ? 2 * ncpu : 128;
        pid_t *kids = burn_kids(n);
        nap(0.1);
        CHECK(yield_monitor_new(&lim, getpid(), BW_CAP_CPU_BOUND, NULL, NULL, &m) == 0);
        int yes = verdicts(m, NULL, 4, &reason);
        struct yield_others o;
        yield_monitor_others(m, &o);
        printf("  others' share %.0f%%, their waits %.0f%%, idle CPUs %.2f of %u\n",
               100 * o.cpu, 100 * o.cpu_wait, o.idle_cpus, o.cpus);
        reap(kids, n);
        yield_monitor_free(m);
        CHECK(o.cpu > 0.3 && o.cpu <= 1);
        CHECK(o.cpus >= 1 && o.idle_cpus >= 0 && o.idle_cpus < 0.5);
        if (!have_psi()) {
                printf("  no PSI here: others' waits not checked\n");
                return;
        }
        CHECK(o.cpu_wait > 0.5);
        CHECK(yes >= 1 && !strcmp(reason, "cpu"));
}

/* A thread of the monitored process at SCHED_IDLE beside children
 * burning every CPU: it hardly runs, and the run stops. */
static void starved_is_seen(long ncpu)
{
        const struct yield_limits lim = { .starved = true };
        struct yield_monitor *m;
        struct rundelay *d;
        pthread_t t;
        const char *reason = NULL;
        pid_t *kids = burn_kids(ncpu);
        burning = 1;
        CHECK(pthread_create(&t, NULL, burn, (void *)1) == 0);
        nap(0.2);
        CHECK(rundelay_new("/proc", getpid(), &d) == 0 && rundelay_sample(d) == 0);
        CHECK(yield_monitor_new(&lim, getpid(), BW_CAP_CPU_BOUND, d, NULL, &m) == 0);
        int yes = verdicts(m, d, 4, &reason);
        burning = 0;
        pthread_join(t, NULL);
        reap(kids, ncpu);
        printf("  the probe's threads waited %.0f%% of the time they wanted a CPU\n",
               100 * rundelay_wait_share(d));
        CHECK(rundelay_wait_share(d) > YIELD_STARVED);
        yield_monitor_free(m);
        rundelay_free(d);
        CHECK(yes >= 1 && !strcmp(reason, "cpu"));
}


static bool put_text(const char *path, const char *text)
{
        FILE *f = fopen(path, "we");
        bool ok = f && fputs(text, f) >= 0;
        return f && fclose(f) == 0 && ok;
}

/* This process's one thread (tid 1) in a fixture /proc under root (a
 * mkdtemp template), in state `state`: its task directory into dir. */
static void thread_fixture(char *root, char state, char *dir, size_t size)
{
        char path[320], stat[64];
        CHECK(mkdtemp(root));
        snprintf(dir, size, "%s/%d", root, (int)getpid());
        CHECK(mkdir(dir, 0755) == 0);
        snprintf(dir, size, "%s/%d/task", root, (int)getpid());
        CHECK(mkdir(dir, 0755) == 0);
        snprintf(dir, size, "%s/%d/task/1", root, (int)getpid());
        CHECK(mkdir(dir, 0755) == 0);
        snprintf(stat, sizeof(stat), "1 (bw (probe) x) %c 1 1 1 0\n", state);
        snprintf(path, sizeof(path), "%s/stat", dir);
        CHECK(put_text(path, stat));
}

/* The fixture thread's nanoseconds on a CPU and waiting for one. */
static void thread_schedstat(const char *dir, double run_ns, double wait_ns)
{
        char path[320], text[96];
        snprintf(path, sizeof(path), "%s/schedstat", dir);
        snprintf(text, sizeof(text), "%.0f %.0f 50\n", run_ns, wait_ns);
        CHECK(put_text(path, text));
}

static void thread_fixture_remove(char *dir)
{
        const char *files[] = { "schedstat", "stat" };
        char path[320];
        for (size_t i = 0; i < 2; i++) {
                snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
                CHECK(unlink(path) == 0);
        }
        for (int i = 0; i < 4; i++) { /* task/1, task, PID, the root */
                CHECK(rmdir(dir) == 0);
                *strrchr(dir, '/') = 0;
        }
}

/* A fixture thread whose schedstat figures stand still, in state `state`,
 * watched as a CPU-bound probe for three samples: how many of them said
 * to stop the run, and why. */
static int standing_thread(char state, const char **ret_reason)
{
        char root[] = "/tmp/test_yield.XXXXXX", dir[256];
        struct yield_monitor *m;
        struct rundelay *d;
        thread_fixture(root, state, dir, sizeof(dir));
        thread_schedstat(dir, 900000000, 100000000);
        CHECK(rundelay_new(root, getpid(), &d) == 0 && rundelay_sample(d) == 0);
        CHECK(rundelay_runnable(d) == (state == 'R'));
        CHECK(yield_monitor_new(&(struct yield_limits){ .starved = true }, getpid(),
                                BW_CAP_CPU_BOUND, d, NULL, &m) == 0);
        int yes = verdicts(m, d, 3, ret_reason);
        yield_monitor_free(m);
        rundelay_free(d);
        thread_fixture_remove(dir);
        return yes;
}

/* A thread that waits `share` of the time it wants a CPU, its samples
 * taken by the runner apart from the monitor's (which are 0.3 s apart
 * here): each 0.18 s after the one before, a further 0.12 s before the
 * monitor's.  How many of 2 monitor samples said to stop the run. */
static int thread_sampled_apart(double share)
{
        char root[] = "/tmp/test_yield.XXXXXX", dir[256];
        const double lag[] = { 0, 0.12, 0.24 };
        const char *reason = NULL;
        double run = 1e9, wait = 0;
        struct yield_monitor *m;
        struct rundelay *d;
        int yes = 0;
        thread_fixture(root, 'R', dir, sizeof(dir));
        thread_schedstat(dir, run, wait);
        CHECK(rundelay_new(root, getpid(), &d) == 0 && rundelay_sample(d) == 0);
        CHECK(yield_monitor_new(&(struct yield_limits){ .starved = true }, getpid(),
                                BW_CAP_CPU_BOUND, d, NULL, &m) == 0);
        for (int k = 1; k <= 2; k++) {
                char *why = NULL;
                nap(0.3 - lag[k]);
                double w = now_mono() - rundelay_sampled_at(d);
                run += (1 - share) * w * 1e9, wait += share * w * 1e9;
                thread_schedstat(dir, run, wait);
                CHECK(rundelay_sample(d) == 0);
                nap(lag[k]);
                int r = yield_monitor_sample(m, &reason, &why);
                CHECK(r >= 0);
                if (r > 0)
                        printf("  waited %.0f%%, sampled apart: %s\n", 100 * share, why);
                yes += r > 0;
                free(why);
        }
        yield_monitor_free(m);
        rundelay_free(d);
        thread_fixture_remove(dir);
        return yes;
}

/* The thread's waits and runs are of the time between the runner's
 * samples of them, not between the monitor's: over the monitor's 0.3 s,
 * 0.18 s of them read as 58% waited where it waited 30%, twice in a row:
 * a run stopped as starved.  Waiting 70%, it is. */
static void waits_are_of_their_own_samples(void)
{
        CHECK(thread_sampled_apart(0.3) == 0);
        CHECK(thread_sampled_apart(0.7) >= 1);
}

/* A monitor sample with no sample of the threads since the one before
 * cannot tell whether they starved: the count in a row stands (read as
 * not starved, it began again, and a thread held off the CPU was let
 * run on). */
static void unsampled_threads_keep_the_count(void)
{
        char root[] = "/tmp/test_yield.XXXXXX", dir[256];
        const char *reason = NULL;
        struct yield_monitor *m;
        struct rundelay *d;
        int said[3];
        thread_fixture(root, 'R', dir, sizeof(dir));
        thread_schedstat(dir, 900000000, 100000000); /* held off from now on */
        CHECK(rundelay_new(root, getpid(), &d) == 0 && rundelay_sample(d) == 0);
        CHECK(yield_monitor_new(&(struct yield_limits){ .starved = true }, getpid(),
                                BW_CAP_CPU_BOUND, d, NULL, &m) == 0);
        for (int k = 0; k < 3; k++) {
                char *why = NULL;
                nap(YIELD_INTERVAL);
                if (k != 1)
                        CHECK(rundelay_sample(d) == 0);
                said[k] = yield_monitor_sample(m, &reason, &why);
                free(why);
        }
        CHECK(said[0] == 0 && said[1] == 0 && said[2] == 1);
        yield_monitor_free(m);
        rundelay_free(d);
        thread_fixture_remove(dir);
}

/* A thread held off the CPU for longer than a sample: schedstat accounts
 * its wait only when it runs again, so the samples show it neither
 * running nor waiting, runnable (R).  A CPU-bound probe's thread that
 * wants a CPU and gets none is starving, and the run stops. */
static void unaccounted_wait_is_starving(void)
{
        const char *reason = NULL;
        int yes = standing_thread('R', &reason);
        CHECK(yes >= 1 && reason && !strcmp(reason, "cpu"));
}

/* The same figures standing still while the thread sleeps (S: the memory
 * probe between its phases, `release`): it wanted no CPU, so it was not
 * starved, and the run goes on. */
static void sleeping_is_not_starving(void)
{
        const char *reason = NULL;
        CHECK(standing_thread('S', &reason) == 0);
}

/* An I/O-bound probe (http, mysql) whose `threads` fixture threads run and
 * each wait `share` of every sample: how many samples said to stop the
 * run.  Its threads' waits count each, as the tracker counts its runs:
 * 4 threads waiting 20% each are not starved (summed, 80% was). */
static int io_threads_waiting(int threads, double share)
{
        char root[] = "/tmp/test_yield.XXXXXX", dir[256], path[320];
        struct yield_monitor *m;
        struct rundelay *d;
        const char *reason = NULL;
        int yes = 0;
        CHECK(mkdtemp(root));
        snprintf(dir, sizeof(dir), "%s/%d", root, (int)getpid());
        CHECK(mkdir(dir, 0755) == 0);
        snprintf(dir, sizeof(dir), "%s/%d/task", root, (int)getpid());
        CHECK(mkdir(dir, 0755) == 0);
        for (int k = 0; k <= 4; k++) {
                for (int t = 1; t <= threads; t++) {
                        char text[96];
                        snprintf(path, sizeof(path), "%s/%d", dir, t);
                        CHECK(k || mkdir(path, 0755) == 0);
                        snprintf(path, sizeof(path), "%s/%d/stat", dir, t);
                        CHECK(put_text(path, "1 (w) S 1 1 1 0\n"));
                        snprintf(text, sizeof(text), "%.0f %.0f %d\n", 1e8 + k * 1e7,
                                 k * share * YIELD_INTERVAL * 1e9, k);
                        snprintf(path, sizeof(path), "%s/%d/schedstat", dir, t);
                        CHECK(put_text(path, text));
                }
                if (!k) {
                        CHECK(rundelay_new(root, getpid(), &d) == 0 && rundelay_sample(d) == 0);
                        CHECK(yield_monitor_new(&(struct yield_limits){ .starved = true },
                                                getpid(), BW_CAP_NETWORK, d, NULL, &m) == 0);
                        continue;
                }
                nap(YIELD_INTERVAL);
                CHECK(rundelay_sample(d) == 0);
                char *why = NULL;
                int r = yield_monitor_sample(m, &reason, &why);
                CHECK(r >= 0);
                yes += r > 0;
                free(why);
        }
        CHECK(rundelay_active(d) == (size_t)threads);
        yield_monitor_free(m);
        rundelay_free(d);
        CHECK(test_rm_tree(root) == 0);
        return yes;
}

static void io_bound_waits_per_thread(void)
{
        CHECK(io_threads_waiting(4, 0.2) == 0);
        CHECK(io_threads_waiting(1, 1.6) >= 1); /* room for a slow nap */
}

/* Under its own CPU quota (20% of a CPU) a burning thread waits for most
 * of the time it wants one, as runnable: that is the quota's, not the
 * host's work, and the run is not stopped for it (the verdict is to see
 * the quota).  Needs a writable cgroup v1 cpu controller. */
static void quota_is_not_starving(void)
{
        char grp[64], path[96], pid[32];
        /* one of its own: another test_yield (a sanitizer build's) beside */
        snprintf(grp, sizeof(grp), "/sys/fs/cgroup/cpu/test_yield_quota.%d", (int)getpid());
        if (access("/sys/fs/cgroup/cpu/cgroup.procs", W_OK) < 0 ||
            (mkdir(grp, 0755) < 0 && errno != EEXIST)) {
                printf("  no writable cgroup v1 cpu controller: quota case not run\n");
                return;
        }
        snprintf(pid, sizeof(pid), "%d\n", (int)getpid());
        snprintf(path, sizeof(path), "%s/cpu.cfs_period_us", grp);
        CHECK(put_text(path, "100000\n"));
        snprintf(path, sizeof(path), "%s/cpu.cfs_quota_us", grp);
        CHECK(put_text(path, "20000\n"));
        snprintf(path, sizeof(path), "%s/cgroup.procs", grp);
        CHECK(put_text(path, pid));
        struct evidence_host *ev = NULL;
        struct yield_monitor *m;
        struct rundelay *d;
        pthread_t t;
        const char *reason = NULL;
        CHECK(evidence_host_new("/", KMSG_FROM_NOW, &ev) == 0);
        burning = 1;
        CHECK(pthread_create(&t, NULL, burn, NULL) == 0);
        nap(0.3);
        CHECK(rundelay_new("/proc", getpid(), &d) == 0 && rundelay_sample(d) == 0);
        CHECK(yield_monitor_new(&(struct yield_limits){ .starved = true }, getpid(),
                                BW_CAP_CPU_BOUND, d, ev, &m) == 0);
        struct evidence_throttled held0, held1;
        evidence_host_throttled(ev, &held0);
        int yes = verdicts(m, d, 6, &reason);
        evidence_host_throttled(ev, &held1);
        double held = evidence_throttled_between(&held0, &held1);
        burning = 0;
        pthread_join(t, NULL);
        printf("  under a 20%% quota: waited %.0f%% of the time wanted, held %.2f s\n",
               100 * rundelay_wait_share(d), held);
        yield_monitor_free(m);
        rundelay_free(d);
        evidence_host_free(ev);
        CHECK(put_text("/sys/fs/cgroup/cpu/cgroup.procs", pid));
        CHECK(rmdir(grp) == 0);
        CHECK(held > 0.5); /* the premise: the quota held it */
        CHECK(yes == 0);
}

static void gone_is_an_error(void)
{
        const struct yield_limits lim = { .cpu_wait = 60, .io = 1e6 };
        struct yield_monitor *m;
        const char *reason = NULL;
        char *why = NULL;
        pid_t kid = fork();
        CHECK(kid >= 0);
        if (kid == 0)
                _exit(0);
        m = NULL;
        /* it may be gone already */
        (void)yield_monitor_new(&lim, kid, BW_CAP_DISK_IO, NULL, NULL, &m);
        waitpid(kid, NULL, 0);
        if (m) {
                CHECK(yield_monitor_sample(m, &reason, &why) < 0 && !why);
                yield_monitor_free(m);
        }
        CHECK(!yield_limits_any(&(struct yield_limits){ 0 }) && yield_limits_any(&lim));
        CHECK(yield_limits_any(&(struct yield_limits){ .starved = true }));
}

static bool odd_cpus(unsigned cpu, void *userdata)
{
        return cpu % 2;
}

/* A VM losing a quarter of its CPU to steal, its own services taking all
 * the rest: shares are of the time the host was given; room counts the
 * allowed CPUs' idle time only. */
static void stat_is_read_per_cpu(void)
{
        /* user nice system idle iowait irq softirq steal guest guest_nice */
        const char text[] = "cpu  600 0 150 400 0 0 0 250 0 0\n"
                            "cpu0 300 0 75 0 0 0 0 125 0 0\n"
                            "cpu1 300 0 75 300 100 0 0 125 0 0\n"
                            "intr 12345 0 0\nctxt 99\n";
        struct yield_cpu_times t;
        CHECK(yield_parse_stat(text, NULL, NULL, &t) == 0);
        CHECK(t.busy == 750 && t.total == 1150);
        CHECK(t.allowed == 2 && t.idle == 400 && t.total_allowed == 1150);
        CHECK(yield_parse_stat(text, odd_cpus, NULL, &t) == 0);
        CHECK(t.allowed == 1 && t.idle == 400 && t.total_allowed == 775);
        CHECK(yield_parse_stat("intr 1\n", NULL, NULL, &t) == -EINVAL);
        CHECK(yield_parse_stat("cpu  1 2 3\n", NULL, NULL, &t) == -EINVAL);
        CHECK(yield_parse_stat("cpu  1 2 3 4 5 6 7 8\ncpux 1\n", NULL, NULL, &t) == -EINVAL);
}

/* The idle CPUs between two reads: of 4 CPUs, 3 busy and 1 idle
 * throughout, 1.0; a CPU come on line between them with its idle time of
 * before (or gone off line) makes the sums of other CPUs: unknown, not
 * 3.99 idle. */
static void idle_cpus_of_the_same_cpus(void)
{
        struct yield_cpu_times a, b, c, d;
        CHECK(yield_parse_stat("cpu  400 0 0 0 0 0 0 0 0 0\n"
                               "cpu0 100 0 0 0 0 0 0 0 0 0\ncpu1 100 0 0 0 0 0 0 0 0 0\n"
                               "cpu2 100 0 0 0 0 0 0 0 0 0\ncpu3 100 0 0 0 0 0 0 0 0 0\n",
                               NULL, NULL, &a) == 0);
        CHECK(yield_parse_stat("cpu  550 0 0 50 0 0 0 0 0 0\n"
                               "cpu0 150 0 0 0 0 0 0 0 0 0\ncpu1 150 0 0 0 0 0 0 0 0 0\n"
                               "cpu2 150 0 0 0 0 0 0 0 0 0\ncpu3 100 0 0 50 0 0 0 0 0 0\n",
                               NULL, NULL, &b) == 0);
        CHECK_NEAR(yield_idle_cpus(&a, &b), 1.0, 1e-9);
        CHECK(yield_parse_stat("cpu  400 0 0 0 0 0 0 0 0 0\n"
                               "cpu0 100 0 0 0 0 0 0 0 0 0\ncpu1 100 0 0 0 0 0 0 0 0 0\n"
                               "cpu2 100 0 0 0 0 0 0 0 0 0\n", NULL, NULL, &c) == 0);
        CHECK(yield_parse_stat("cpu  550 0 0 900000 0 0 0 0 0 0\n"
                               "cpu0 150 0 0 0 0 0 0 0 0 0\ncpu1 150 0 0 0 0 0 0 0 0 0\n"
                               "cpu2 150 0 0 0 0 0 0 0 0 0\ncpu3 0 0 0 900000 0 0 0 0 0 0\n",
                               NULL, NULL, &d) == 0);
        CHECK(isnan(yield_idle_cpus(&c, &d)) && isnan(yield_idle_cpus(&d, &c)));
        CHECK(isnan(yield_idle_cpus(&a, &a))); /* no time given */
}

/* room times what the probe keeps busy, but no more than all the CPUs
 * idle as a look reads them: at room 1 or above, a probe with a thread
 * per CPU (or one that keeps a CPU busy, on 1 CPU) would wait for ever. */
static void room_needed_is_within_the_cpus(void)
{
        CHECK_NEAR(yield_room_needed(0.8, 1, 16), 0.8, 1e-12);
        CHECK_NEAR(yield_room_needed(1.5, 2, 16), 3, 1e-12);
        CHECK_NEAR(yield_room_needed(0.8, 16, 16), 12.8, 1e-12);
        CHECK_NEAR(yield_room_needed(1.25, 16, 16), 15.2, 1e-12);
        CHECK_NEAR(yield_room_needed(1, 1, 1), 0.95, 1e-12);
        CHECK(yield_room_needed(0, 4, 16) == 0);
}

int main(void)
{
        long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
        CHECK(ncpu > 0);
        stat_is_read_per_cpu();
        idle_cpus_of_the_same_cpus();
        room_needed_is_within_the_cpus();
        own_waits_are_not_others(ncpu);
        others_waits_are_seen(ncpu);
        starved_is_seen(ncpu);
        own_waits_spread_over_cpus();
        unaccounted_wait_is_starving();
        waits_are_of_their_own_samples();
        unsampled_threads_keep_the_count();
        sleeping_is_not_starving();
        io_bound_waits_per_thread();
        quota_is_not_starving();
        gone_is_an_error();
        printf("test_yield: ok\n");
        return 0;
}
