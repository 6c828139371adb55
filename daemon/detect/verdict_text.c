/* verdict_text.c — see verdict_text.h. */
#include "detect/verdict_text.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "util/strutil.h"

#define MINUS "\u2212"

static const char *const months[12] = {
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
};

/* Whole percents from 10% up (in magnitude), a tenth below. */
static int decimals_of(double change)
{
        return fabs(change) * 100 >= 9.95 ? 0 : 1;
}

/* A percentage with its sign and decimals, without the "%". */
static const char *percent(double change, int decimals, char *buf, unsigned size)
{
        double p = fabs(change) * 100;
        bool negative = change < 0 && p >= 0.5 * pow(10, -decimals);
        snprintf(buf, size, "%s%.*f", negative ? MINUS : "+", decimals, p);
        return buf;
}

const char *verdict_text_change(double change, char *buf, unsigned size)
{
        char p[32];
        snprintf(buf, size, "%s%%", percent(change, decimals_of(change), p, sizeof(p)));
        return buf;
}

/* "14:02", "3 Dec 14:02", "3 Dec 2025 14:02" (with_time), or the day
 * alone; local time, the parts that differ from now's said. */
static void when(double t, double now, bool with_time, char *buf, size_t size)
{
        time_t tt = (time_t)t, tn = (time_t)now;
        struct tm a, b;
        if (!localtime_r(&tt, &a) || !localtime_r(&tn, &b)) {
                snprintf(buf, size, "?");
                return;
        }
        char day[32] = "", hm[8];
        bool today = a.tm_year == b.tm_year && a.tm_yday == b.tm_yday;
        if (a.tm_year != b.tm_year)
                snprintf(day, sizeof(day), "%d %s %d", a.tm_mday, months[a.tm_mon],
                         a.tm_year + 1900);
        else if (!today || !with_time)
                snprintf(day, sizeof(day), "%d %s", a.tm_mday, months[a.tm_mon]);
        snprintf(hm, sizeof(hm), "%02d:%02d", a.tm_hour, a.tm_min);
        snprintf(buf, size, "%s%s%s", day, *day && with_time ? " " : "", with_time ? hm : "");
}

char *verdict_text_line(const struct verdict_text *v)
{
        int d = decimals_of(v->change);
        char ch[96], lo[32], hi[32], since[48] = "", ref[96] = "", day[32];
        if (isfinite(v->change_lo) && isfinite(v->change_hi))
                snprintf(ch, sizeof(ch), " (95%% CI %s..%s%%)",
                         percent(v->change_lo, d, lo, sizeof(lo)),
                         percent(v->change_hi, d, hi, sizeof(hi)));
        else
                ch[0] = 0;
        if (isfinite(v->since)) {
                when(v->since, v->now, true, day, sizeof(day));
                snprintf(since, sizeof(since), " since %s", day);
        }
        if (v->reference_runs) {
                day[0] = 0;
                if (isfinite(v->reference_time) && v->reference_time > 0)
                        when(v->reference_time, v->now, false, day, sizeof(day));
                snprintf(ref, sizeof(ref), ", against the reference of %u run%s%s%s",
                         v->reference_runs, v->reference_runs == 1 ? "" : "s",
                         *day ? " learnt " : "", day);
        }
        return str_printf("%s %s%%%s%s%s%s%s%s%s", v->figure ? v->figure : "?",
                          percent(v->change, d, lo, sizeof(lo)), ch, since, ref,
                          v->cause ? "; cause: " : "", v->cause ? v->cause->name : "",
                          v->cause && v->cause->evidence ? ", " : "",
                          v->cause && v->cause->evidence ? v->cause->evidence : "");
}
