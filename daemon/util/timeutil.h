/* timeutil.h — clock readings as plain numbers.
 *
 * Every deadline in benchwatch is an absolute CLOCK_MONOTONIC time; wall
 * time is only for timestamps that leave the process. */
#ifndef BENCHWATCH_TIMEUTIL_H
#define BENCHWATCH_TIMEUTIL_H

#include <stdint.h>
#include <time.h>

static inline uint64_t now_ns(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline double now_mono(void)
{
        return (double)now_ns() / 1e9;
}

double now_wall(void);

#endif
