/* walljump.c — an LD_PRELOAD library that moves the wall clock of one
 * program (tests/faults/faults.sh: the daemon and its probe processes) and
 * nothing else: CLOCK_REALTIME as clock_gettime(), gettimeofday() and
 * time() see it is offset by the whole seconds in the file $WALLJUMP_FILE
 * (e.g. "+600", "-60"; read at most once a second).
 *
 * Why not libfaketime: its timerfd_settime() wrapper shifts absolute
 * CLOCK_MONOTONIC timers by the fake offset even with
 * FAKETIME_DONT_FAKE_MONOTONIC=1 (Debian's 0.9.10), so an sd-event loop
 * sleeps the offset away: a harness artefact, not what a real clock step
 * does (it never moves CLOCK_MONOTONIC).  Built by tests/faults/faults.sh. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static long offset_now(void)
{
        static long offset;
        static time_t checked = -1;
        struct timespec mono;
        syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &mono);
        if (mono.tv_sec != checked) {
                const char *path = getenv("WALLJUMP_FILE");
                FILE *f = path ? fopen(path, "re") : NULL;
                long v;
                checked = mono.tv_sec;
                if (f && fscanf(f, "%ld", &v) == 1)
                        offset = v;
                if (f)
                        fclose(f);
        }
        return offset;
}

int clock_gettime(clockid_t clk, struct timespec *ts)
{
        static int (*real)(clockid_t, struct timespec *);
        if (!real)
                real = (int (*)(clockid_t, struct timespec *))dlsym(RTLD_NEXT, "clock_gettime");
        int r = real(clk, ts);
        if (r == 0 && (clk == CLOCK_REALTIME || clk == CLOCK_REALTIME_COARSE))
                ts->tv_sec += offset_now();
        return r;
}

int gettimeofday(struct timeval *restrict tv, void *restrict tz)
{
        struct timespec ts;
        int r = clock_gettime(CLOCK_REALTIME, &ts);
        if (r == 0) {
                tv->tv_sec = ts.tv_sec;
                tv->tv_usec = ts.tv_nsec / 1000;
        }
        (void)tz;
        return r;
}

time_t time(time_t *t)
{
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        if (t)
                *t = ts.tv_sec;
        return ts.tv_sec;
}
