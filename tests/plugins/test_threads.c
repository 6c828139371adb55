/* test_threads.c — the threads plugin against the recording fake host.
 *
 * Checks that the figures agree with each other, that --events ends a run
 * at exactly that many events, that `yields` sets the work of an event
 * (the fastest event grows with it), that contended locks still make
 * progress, and that the parameter table rejects nonsense. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../fakehost.h"

extern const struct bw_plugin benchwatch_plugin;
bool threads_syscalls_flush_tlb(const char *cpuinfo);

/* This VM's flags (page-table isolation, no PCID), a host with PCID, one
 * without isolation: only the first flushes the TLB at every call. */
static void test_tlb_flush_flags(void)
{
        CHECK(threads_syscalls_flush_tlb("processor\t: 0\nvendor_id\t: AuthenticAMD\n"
                                         "flags\t\t: fpu vme sse2 ssse3 pti ibpb\n"));
        CHECK(!threads_syscalls_flush_tlb("processor\t: 0\n"
                                          "flags\t\t: fpu pcid sse2 pti invpcid\n"));
        CHECK(!threads_syscalls_flush_tlb("processor\t: 0\n"
                                          "flags\t\t: fpu pcid sse2 invpcid_single\n"));
        CHECK(!threads_syscalls_flush_tlb("processor\t: 0\nflags\t\t: fpu sse2 ptix\n"));
        CHECK(!threads_syscalls_flush_tlb("processor\t: 0\n"));
        /* another field's "pti" is not a flag */
        CHECK(!threads_syscalls_flush_tlb("model name\t: x pti\nflags\t\t: fpu pcid\n"));
}

static void run_ok(struct fakehost *fh, const char *const *params,
                   struct fake_events *f)
{
        fakehost_run_events(fh, &benchwatch_plugin, params, f);
}

static void test_figures_agree(void)
{
        struct fakehost fh;
        struct fake_events f;

        run_ok(&fh, (const char *const[]){ "duration=300ms", NULL }, &f);
        CHECK(f.events > 10);
        CHECK(f.rate * f.seconds > 0.999 * f.events);
        CHECK(f.rate * f.seconds < 1.001 * f.events);
        CHECK(f.seconds >= 0.3 && f.seconds < 3);
        CHECK(f.lat->hist.count == (uint64_t)f.events);
        CHECK(fh.progress == (uint64_t)f.events);
        CHECK(f.lat->hist.sum_ns / 1e9 <= f.seconds);
        /* the report says whether this host's calls flush the TLB */
        static char cpuinfo[1 << 16];
        FILE *ci = fopen("/proc/cpuinfo", "re");
        CHECK(ci);
        size_t n = fread(cpuinfo, 1, sizeof(cpuinfo) - 1, ci);
        cpuinfo[n] = 0;
        fclose(ci);
        bool said = fh.logs && strstr(fh.logs, "flushes the TLB at every system call");
        CHECK(said == threads_syscalls_flush_tlb(cpuinfo));
        printf("  this host's system calls %s the TLB\n", said ? "flush" : "keep");
        fakehost_done(&fh);
}

static void test_events_limit(void)
{
        struct fakehost fh;
        struct fake_events f;

        run_ok(&fh, (const char *const[]){ "events=20", "yields=100",
                                            "duration=60s", NULL }, &f);
        CHECK(f.events == 20);
        CHECK(f.lat->hist.count == 20);
        CHECK(f.seconds < 10);
        fakehost_done(&fh);

        /* Four threads fighting over one mutex: no deadlock, exact count. */
        run_ok(&fh, (const char *const[]){ "events=40", "threads=4", "locks=1",
                                            "yields=200", "duration=60s",
                                            NULL }, &f);
        CHECK(f.events == 40);
        fakehost_done(&fh);
}

static double fastest_event(const char *yields)
{
        struct fakehost fh;
        struct fake_events f;
        double ns;

        run_ok(&fh, (const char *const[]){ yields, "duration=200ms", NULL },
               &f);
        ns = (double)f.lat->hist.min_ns;
        fakehost_done(&fh);
        return ns;
}

/* An event is `yields` rounds: 400 take about four times as long as 100.
 * The fastest event is compared, the one nothing else interrupted; on a
 * busy machine a yield hands the CPU away, so only the lower bound holds
 * for sure (an event that ignored `yields` would give 1). */
static void test_yields_scale(void)
{
        double t1 = fastest_event("yields=100");
        double t2 = fastest_event("yields=400");

        fprintf(stderr, "fastest event, 100 yields: %.0f ns, 400: %.0f ns\n",
                t1, t2);
        CHECK(t2 / t1 > 2.5);
}

static void test_stop(void)
{
        struct fakehost fh;

        fakehost_init(&fh);
        fh.stop = true;
        CHECK(fakehost_run(&fh, &benchwatch_plugin,
                           (const char *const[]){ "duration=5s", NULL }) < 0);
        CHECK(fh.error != NULL);
        fakehost_done(&fh);
}

static void bad(const char *param)
{
        fakehost_expect_param_error(&benchwatch_plugin, param);
}

static void test_bad_params(void)
{
        bad("threads=0");
        bad("threads=2000");
        bad("locks=0");
        bad("locks=abc");
        bad("yields=-1");
        bad("duration=-1s");
        bad("events=1.5");
        CHECK(fakehost_param_error(&benchwatch_plugin, (const char *const[]){
                "threads=64", "locks=1", "yields=0", NULL }) == NULL);
}

int main(void)
{
        CHECK(strcmp(benchwatch_plugin.name, "threads") == 0);
        test_bad_params();
        test_tlb_flush_flags();
        test_figures_agree();
        fakehost_check_cpu_twins(&benchwatch_plugin);
        test_events_limit();
        test_yields_scale();
        test_stop();
        printf("test_threads: all passed\n");
        return 0;
}
