/* timeutil.h — clock readings as plain numbers.
 *
 * Every deadline in benchwatch is an absolute CLOCK_MONOTONIC time; wall
 * time is only for timestamps that leave the process. */
#ifndef BENCHWATCH_TIMEUTIL_H
#define BENCHWATCH_TIMEUTIL_H

#include <errno.h>
#include <stdint.h>
#include <time.h>

static inline uint64_t now_ns(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* CPU time of the calling thread (CLOCK_THREAD_CPUTIME_ID): the time it
 * ran, not the time it waited for a CPU; the kernel leaves time stolen by
 * a hypervisor out when it accounts steal (paravirtual steal clock). */
static inline uint64_t thread_cpu_ns(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
        return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline double now_mono(void)
{
        return (double)now_ns() / 1e9;
}

/* Sleeps until CLOCK_MONOTONIC reaches ns, through interrupting signals. */
static inline void sleep_until_ns(uint64_t ns)
{
        struct timespec ts = { .tv_sec = (time_t)(ns / 1000000000u),
                               .tv_nsec = (long)(ns % 1000000000u) };
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) ==
               EINTR)
                ;
}

/* CLOCK_REALTIME as UNIX time in seconds: for timestamps people and
 * Prometheus read, never for measuring an interval. */
static inline double now_wall(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* now_wall() cut to the millisecond, for a run's start: every sink names
 * the run by it, and Prometheus keeps milliseconds.  A time between two
 * milliseconds came out as one in the history ("%.3f") and the next on
 * the wire (llround of the product): the receiver held no sample at the
 * history's time (remote_write.sh, CI, 7 December). */
static inline double now_wall_ms(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        return (double)ts.tv_sec + (double)(ts.tv_nsec / 1000000) / 1e3;
}

#endif
