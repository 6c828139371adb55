/* test_verdict_text.c — the verdict line reads as an operator wants it:
 * figure, change and interval with the minus sign, since when (the day
 * only when not today, the year only when not this year), the reference's
 * runs and day, and the cause with its numbers; what is not known is left
 * out rather than written as "?". */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "detect/verdict_text.h"
#include "test.h"

static double at(int year, int mon, int day, int h, int m)
{
        struct tm tm = { .tm_year = year - 1900, .tm_mon = mon - 1, .tm_mday = day,
                         .tm_hour = h, .tm_min = m };
        return (double)timegm(&tm);
}

static void expect_line(const struct verdict_text *v, const char *want)
{
        char *line = verdict_text_line(v);
        CHECK(line);
        if (strcmp(line, want)) {
                fprintf(stderr, "got  '%s'\nwant '%s'\n", line, want);
                test_failures++;
        }
        free(line);
}

int main(void)
{
        char buf[32];
        setenv("TZ", "UTC", 1);
        tzset();
        struct cause quota = { .kind = CAUSE_CPU_QUOTA, .label = "cpu_quota",
                               .name = "CPU quota",
                               .evidence = (char *)"throttled in 41% of its CPU quota periods" };
        struct verdict_text v = {
                .figure = "cpu events/s", .change = -0.14, .change_lo = -0.15,
                .change_hi = -0.13, .since = at(2026, 12, 5, 14, 2), .reference_runs = 40,
                .reference_time = at(2026, 12, 3, 9, 30), .cause = &quota,
                .now = at(2026, 12, 5, 15, 0),
        };
        expect_line(&v, "cpu events/s \u221214% (95% CI \u221215..\u221213%) since 14:02, "
                    "against the reference of 40 runs learnt 3 Dec; cause: CPU quota, "
                    "throttled in 41% of its CPU quota periods");
        /* yesterday's start says its day; last year's reference its year */
        v.now = at(2026, 12, 6, 8, 0);
        v.reference_time = at(2025, 11, 28, 0, 0);
        v.change = 0.042, v.change_lo = 0.021, v.change_hi = 0.063;
        v.cause = NULL;
        v.figure = "disk read latency p99";
        expect_line(&v, "disk read latency p99 +4.2% (95% CI +2.1..+6.3%) since 5 Dec 14:02, "
                    "against the reference of 40 runs learnt 28 Nov 2025");
        /* nothing known but the figure and its change */
        struct verdict_text bare = { .figure = "memory bytes/s", .change = -0.31,
                                     .change_lo = NAN, .change_hi = NAN, .since = NAN,
                                     .reference_time = NAN, .now = v.now };
        expect_line(&bare, "memory bytes/s \u221231%");
        bare.reference_runs = 1;
        expect_line(&bare, "memory bytes/s \u221231%, against the reference of 1 run");
        CHECK(!strcmp(verdict_text_change(-0.004, buf, sizeof(buf)), "\u22120.4%"));
        CHECK(!strcmp(verdict_text_change(0.0996, buf, sizeof(buf)), "+10%"));
        CHECK(!strcmp(verdict_text_change(-0.0001, buf, sizeof(buf)), "+0.0%"));
        return test_failures != 0;
}
