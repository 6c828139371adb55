/* test_cpu.c — the cpu plugin against the recording fake host.
 *
 * Checks the unit of work (the prime count of sysbench's loop), that the
 * figures agree with each other (rate x time = events, one latency sample
 * per event), that --events and --time end a run as in sysbench, that
 * max_prime and threads change the rate the way they must, that a run
 * with no event fails, and that the parameter table rejects nonsense.
 * Runs are short (0.3 s). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../fakehost.h"
#include "common/sbloop.h"

extern const struct bw_plugin benchwatch_plugin;
uint64_t cpu_count_primes(uint64_t max_prime);

#define NEAR(a, b, rel) (fabs((a) - (b)) <= (rel) * fabs(b))

static void run_ok(struct fakehost *fh, const char *const *params,
                   struct fake_events *f)
{
        fakehost_run_events(fh, &benchwatch_plugin, params, f);
}

static void test_prime_count(void)
{
        /* sysbench starts at 3, so 2 is not counted: pi(n) - 1. */
        CHECK(cpu_count_primes(3) == 0);
        CHECK(cpu_count_primes(4) == 1);    /* 3 */
        CHECK(cpu_count_primes(10) == 3);   /* 3 5 7 */
        CHECK(cpu_count_primes(100) == 24);
        CHECK(cpu_count_primes(10000) == 1228);
        CHECK(cpu_count_primes(10007) == 1228); /* 10007 itself excluded */
        CHECK(cpu_count_primes(10008) == 1229);
}

static void test_figures_agree(void)
{
        struct fakehost fh;
        struct fake_events f;
        double p95;

        run_ok(&fh, (const char *const[]){ "duration=300ms", NULL }, &f);
        CHECK(f.events > 10);
        CHECK(NEAR(f.rate * f.seconds, f.events, 1e-9));
        CHECK(f.seconds >= 0.3 && f.seconds < 3); /* an event may be preempted */
        CHECK(f.lat->hist.count == (uint64_t)f.events);
        CHECK(fh.progress == (uint64_t)f.events);
        /* One thread: the events fill the run, so their summed latency is
         * most of the time (a loaded machine may wake the thread late) and
         * each is time / events on average. */
        CHECK(f.lat->hist.sum_ns / 1e9 <= f.seconds);
        CHECK(f.lat->hist.sum_ns / 1e9 > 0.3 * f.seconds);
        CHECK(f.lat->value <= f.seconds / f.events);
        CHECK(f.lat->value > 0.3 * f.seconds / f.events);
        /* sysbench's own 95th percentile (1.8% wide buckets), from the
         * same events, lies between our 90th and 99th */
        p95 = fakehost_value(&fh, "latency_sysbench_p95_seconds", "") * 1e9;
        CHECK(p95 >= 0.97 * bw_hist_quantile_ns(&f.lat->hist, 0.90));
        CHECK(p95 <= 1.03 * bw_hist_quantile_ns(&f.lat->hist, 0.99));
        fakehost_done(&fh);
}

static void test_events_limit(void)
{
        struct fakehost fh;
        struct fake_events f;

        run_ok(&fh, (const char *const[]){ "events=50", "duration=60s", NULL },
               &f);
        CHECK(f.events == 50);
        CHECK(f.lat->hist.count == 50);
        CHECK(f.seconds < 10);
        fakehost_done(&fh);

        run_ok(&fh, (const char *const[]){ "events=7", "threads=3",
                                            "duration=60s", NULL }, &f);
        CHECK(f.events == 7);
        fakehost_done(&fh);
}

static double rate_of(const char *const *params)
{
        struct fakehost fh;
        struct fake_events f;

        run_ok(&fh, params, &f);
        fakehost_done(&fh);
        return f.rate;
}

static double fastest_event(const char *const *params)
{
        struct fakehost fh;
        struct fake_events f;
        double ns;

        run_ok(&fh, params, &f);
        ns = (double)f.lat->hist.min_ns;
        fakehost_done(&fh);
        return ns;
}

/* An event at max_prime=20000 costs about 2^1.5 * ln(1e4)/ln(2e4) = 2.6
 * times one at 10000: a loop that ignored max_prime would give 1.  The
 * fastest event of each run is compared: it is the one no other process
 * interrupted, so a busy machine does not skew the ratio. */
static void test_max_prime_scales(void)
{
        double t1 = fastest_event((const char *const[]){
                "max_prime=10000", "duration=200ms", NULL });
        double t2 = fastest_event((const char *const[]){
                "max_prime=20000", "duration=200ms", NULL });

        fprintf(stderr, "fastest event at max_prime 10000: %.0f ns, "
                "20000: %.0f ns\n", t1, t2);
        CHECK(t2 / t1 > 2.0 && t2 / t1 < 3.3);
}

/* Both threads run events the whole time: the summed event time is about
 * twice the wall time, busy machine or not (one thread cannot exceed 1x;
 * the margin is for threads woken late on a loaded machine). */
static void test_threads_concurrent(void)
{
        struct fakehost fh;
        struct fake_events f;

        run_ok(&fh, (const char *const[]){ "threads=2", "duration=300ms",
                                            NULL }, &f);
        CHECK(f.lat->hist.count == (uint64_t)f.events);
        CHECK(f.lat->hist.sum_ns / 1e9 > 1.2 * f.seconds); /* 1 thread: <= 1 */
        CHECK(f.lat->hist.sum_ns / 1e9 <= 2.0 * f.seconds);
        fakehost_done(&fh);
}

static double loadavg(void)
{
        double l = 0;
        FILE *f = fopen("/proc/loadavg", "re");

        if (f) {
                if (fscanf(f, "%lf", &l) != 1)
                        l = 0;
                fclose(f);
        }
        return l;
}

/* Two threads on two idle cores do nearly twice the work of one; on a
 * busy machine they cannot, so there the check is skipped, not failed. */
static void test_threads_scale(void)
{
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);

        for (int attempt = 0; cpus >= 2 && attempt < 3; attempt++) {
                double r1 = rate_of((const char *const[]){
                        "threads=1", "duration=300ms", NULL });
                double r2 = rate_of((const char *const[]){
                        "threads=2", "duration=300ms", NULL });
                fprintf(stderr, "threads 1: %.0f/s, 2: %.0f/s\n", r1, r2);
                if (r2 > 1.25 * r1)
                        return;
        }
        if (cpus >= 2 && loadavg() < (double)cpus - 0.5) {
                fprintf(stderr, "2 threads were not faster than 1\n");
                exit(1);
        }
        fprintf(stderr, "fewer than 2 idle CPUs: thread scaling not checked\n");
}

static void test_stop(void)
{
        struct fakehost fh;

        fakehost_init(&fh);
        fh.stop = true;
        CHECK(fakehost_run(&fh, &benchwatch_plugin,
                           (const char *const[]){ "duration=5s", NULL }) < 0);
        CHECK(fh.error != NULL);
        CHECK(fakehost_find(&fh, "events_per_second", NULL) == NULL);
        fakehost_done(&fh);
}

/* A run in which no event completed (1000 threads and a 1-ms duration:
 * the deadline passed before any thread finished one) fails and says why,
 * rather than reporting a rate of 0, which a baseline would take for a
 * regression. */
static void test_no_event(void)
{
        struct fakehost fh;
        struct sbloop_spec spec = { .threads = 1000, .duration = 0.001 };
        struct sbloop_result res = { .events = 0, .seconds = 0.002 };
        fakehost_init(&fh);
        CHECK(sbloop_outcome(&fh.host, &spec, 0, &res) < 0);
        CHECK(fh.error && strstr(fh.error, "no event completed in the run's 0.001s (1000 "
                                           "threads)"));
        fakehost_done(&fh);
        res.events = 1;
        fakehost_init(&fh);
        CHECK(sbloop_outcome(&fh.host, &spec, 0, &res) == 0 && !fh.error);
        fakehost_done(&fh);
}

static void bad(const char *param)
{
        fakehost_expect_param_error(&benchwatch_plugin, param);
}

static void test_bad_params(void)
{
        bad("threads=0");
        bad("threads=1025");
        bad("threads=two");
        bad("max_prime=abc");
        bad("max_prime=2");
        bad("max_prime=100000000");
        bad("duration=0");
        bad("duration=soon");
        bad("events=-1");
        bad("no_such_param=1");
        CHECK(fakehost_param_error(&benchwatch_plugin, (const char *const[]){
                "max_prime=20000", "threads=1024", "events=5", NULL }) == NULL);
}

int main(void)
{
        CHECK(strcmp(benchwatch_plugin.name, "cpu") == 0);
        CHECK(strcmp(benchwatch_plugin.concurrency_param, "threads") == 0);
        test_prime_count();
        test_bad_params();
        test_no_event();
        test_figures_agree();
        fakehost_check_cpu_twins(&benchwatch_plugin);
        test_events_limit();
        test_max_prime_scales();
        test_threads_concurrent();
        test_threads_scale();
        test_stop();
        printf("test_cpu: all passed\n");
        return 0;
}
