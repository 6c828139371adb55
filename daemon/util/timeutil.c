/* timeutil.c — see timeutil.h. */
#include "util/timeutil.h"

double now_wall(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}
